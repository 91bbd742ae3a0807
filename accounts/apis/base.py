"""Machinery every personal API view shares: auth, scopes, throttles, errors, sync headers."""

from __future__ import annotations

from rest_framework import exceptions, parsers, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors
from accounts.authentication import BearerTokenAuthentication, TokenScopes
from accounts.errors import AccountsError, VersionConflict
from accounts.services.sync import parse_version
from accounts.throttling import PersonalUserThrottle, ThrottleFailedAuthentication
from config.api import ApiAutoSchema, BadRequest, StrictCursorPagination

VERSION_HEADER = "Last-Modified-Version"
IDS_FIELD = serializers.ListField(child=serializers.CharField())
INT_FIELD = serializers.IntegerField()
MAX_BULK_IDS = 1000


# --- shared machinery ------------------------------------------------------------------------


class IgnoreFormatNegotiation(DefaultContentNegotiation):
    """`?format=` names an export or import format here, not a DRF renderer."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PlainTextParser(parsers.BaseParser):
    """Lets `curl --data-binary @refs.bib -H 'Content-Type: text/plain'` post a file to import."""

    media_type = "text/plain"

    def parse(self, stream, media_type=None, parser_context=None):
        charset = (parser_context or {}).get("encoding") or "utf-8"
        request = (parser_context or {}).get("request")
        # DRF hands this parser the raw stream; request.body first refuses a body larger than
        # DATA_UPLOAD_MAX_MEMORY_SIZE (a 413), as it does for JSON, before reading it.
        raw = request.body if request is not None else stream.read()
        try:
            return raw.decode(charset)
        except UnicodeDecodeError:
            raise exceptions.ParseError("The file is not UTF-8 text.") from None


class AccountsApiError(exceptions.APIException):
    def __init__(self, error: AccountsError) -> None:
        self.status_code = error.status
        super().__init__({"detail": error.detail, "code": error.code, **error.extra})


class PersonalApi(ThrottleFailedAuthentication, APIView):
    """Base of every /me view: Bearer token or session, scopes, per-user throttling, 404s."""

    authentication_classes = [BearerTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated, TokenScopes]
    throttle_classes = [PersonalUserThrottle]
    schema = ApiAutoSchema()
    content_negotiation_class = IgnoreFormatNegotiation
    write_scope: str | None = None
    session_only = False
    allowed_params: tuple[str, ...] = ()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method == "GET":
            unknown = set(request.query_params) - set(self.allowed_params)
            if unknown:
                raise BadRequest(
                    f"Unknown parameter: {', '.join(sorted(unknown))}.", code="unknown_parameter"
                )

    def handle_exception(self, exc):
        error = exc if isinstance(exc, AccountsError) else None
        if error is not None:
            exc = AccountsApiError(error)
        response = super().handle_exception(exc)
        if isinstance(error, VersionConflict):
            response[VERSION_HEADER] = str(error.extra.get("current_version", ""))
        return response

    # helpers

    def expected_version(self, request) -> int | None:
        return parse_version(request.headers.get("If-Unmodified-Since-Version"))

    def since(self, request) -> int | None:
        return parse_version(request.query_params.get("since"), what="since")

    def with_version(self, response: Response) -> Response:
        response[VERSION_HEADER] = str(selectors.library_version(user=self.request.user))
        return response


def created_or_ok(serializer) -> dict:
    """Responses of a write that answers 201 when it created something and 200 when not."""
    return {201: serializer, 200: serializer}


def validated(serializer_class, data) -> dict:
    """Validate input shape; the error's `detail` names the first bad field and why."""
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return serializer.validated_data
    errors = serializer.errors
    field, messages = next(iter(errors.items()))
    message = messages[0] if isinstance(messages, list) and messages else str(messages)
    exc = exceptions.ValidationError(errors)
    exc.summary = message if field == "non_field_errors" else f"{field}: {message}"
    raise exc


class ItemCursorPagination(StrictCursorPagination):
    ordering = ("position", "id")
    page_size = 100
    max_page_size = 500
