"""`Authorization: Bearer <token>` for the extension and scripts, and the scope rule for writes.

A token is looked up by its hash on every request, so a revoked token is refused at once.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.models import ApiToken
from accounts.selectors import token_get_by_hash
from accounts.services.tokens import token_hash, token_touch


class BearerTokenAuthentication(BaseAuthentication):
    keyword = "bearer"

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        parts = header.split()
        if parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: expected 'Bearer <token>'.", code="invalid_token"
            )
        token = token_get_by_hash(key_hash=token_hash(parts[1]))
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown API token.", code="invalid_token")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(
                "This API token was revoked; connect again to get a new one.", code="token_revoked"
            )
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.", code="user_inactive")
        token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request) -> str:
        # Makes DRF answer 401 (not 403) when credentials are missing or bad.
        return 'Bearer realm="paperscope"'


class TokenScopes(BasePermission):
    """Sessions may do everything their user may; a token only what its scopes allow.

    Reads need `read`; writes need the view's `write_scope`. Views with `session_only = True`
    (token management) or the method in `session_only_methods` (account deletion) refuse tokens.
    """

    def has_permission(self, request, view) -> bool:
        token = request.auth
        if not isinstance(token, ApiToken):
            return True
        if getattr(view, "session_only", False) or request.method in getattr(
            view, "session_only_methods", ()
        ):
            raise exceptions.PermissionDenied(
                "This can only be done signed in on the website, not with an API token.",
                code="session_required",
            )
        needed = "read" if request.method in SAFE_METHODS else getattr(view, "write_scope", None)
        if needed is None or not token.has_scope(needed):
            raise exceptions.PermissionDenied(
                f"This token lacks the {needed!r} scope.", code="insufficient_scope"
            )
        return True
