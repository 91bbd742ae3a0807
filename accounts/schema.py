"""OpenAPI description of the Bearer token scheme (drf-spectacular finds it by class path)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from /account/ or /extension/connect, "
            "sent as `Authorization: Bearer <token>`.",
        }
