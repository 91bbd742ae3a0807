"""Conventions every API view shares: error bodies, cursor pagination."""

from __future__ import annotations

import traceback

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import exceptions, pagination, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from accounts.authentication import BearerTokenAuthentication
from accounts.throttling import AnonThrottle, ThrottleFailedAuthentication, UserThrottle


def _first_code(codes) -> str:
    while isinstance(codes, dict | list):
        if not codes:
            return "invalid"
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return str(codes)


class RequestTooLarge(exceptions.APIException):
    status_code = 413
    default_code = "request_too_large"


def _while_parsing(exc: BaseException) -> bool:
    """Whether `exc` was raised while DRF parsed the request body."""
    return any(
        frame.f_code is Request._parse.__code__  # type: ignore[attr-defined]  # DRF's private parser
        for frame, _ in traceback.walk_tb(exc.__traceback__)
    )


def _body_error(exc):
    """The API error for a request body Django or the parser refused, or None."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return RequestTooLarge(f"The request body is larger than {limit:,} bytes.")
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return exceptions.ParseError("The form has too many fields or files.", code="too_many")
    if isinstance(exc, RecursionError) and _while_parsing(exc):
        return exceptions.ParseError("The JSON is nested too deeply.")
    return None


def exception_handler(exc, context):
    """Errors as `{"code": <stable machine code>, "detail": <human text>, ...}`.

    Field errors keep DRF's per-field messages under `errors` so a client can point at the field.
    """
    # Django's own 404/403 become DRF's, so they get a `code` like every other error.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    else:
        # A body too large (Django refuses it before reading it) or a JSON bomb is the caller's
        # mistake, not a 500 nor Django's HTML 400 page.
        exc = _body_error(exc) or exc
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    body: dict = {}
    if isinstance(exc, exceptions.ValidationError) and not isinstance(exc.detail, str):
        body["code"] = getattr(exc, "error_code", None) or _first_code(exc.get_codes())
        body["detail"] = getattr(exc, "summary", None) or "The request was not valid."
        body["errors"] = response.data
    else:
        detail = exc.detail
        if isinstance(detail, dict) and "detail" in detail:
            body.update(detail)
            body.setdefault("code", _first_code(exc.get_codes()))
        else:
            body["code"] = getattr(exc, "error_code", None) or _first_code(exc.get_codes())
            body["detail"] = (
                str(detail) if not isinstance(detail, list) else "; ".join(map(str, detail))
            )
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait)
    response.data = body
    return response


class PublicApi(ThrottleFailedAuthentication, APIView):
    """Base of the public API views: anyone may call them, per address or per user throttled,
    and a request with bad credentials spends its address's budget too."""

    authentication_classes = [BearerTokenAuthentication, SessionAuthentication]
    throttle_classes = [AnonThrottle, UserThrottle]


class BadRequest(exceptions.APIException):
    status_code = 400
    default_code = "bad_request"
    default_detail = "The request was not valid."

    def __init__(self, detail: str, code: str = "bad_request", **extra) -> None:
        super().__init__({"detail": detail, "code": code, **extra})


class StrictCursorPagination(pagination.CursorPagination):
    """DRF's cursor pagination, except that a malformed cursor is a 400, not a 404; so is a forged
    one whose position is not a value of the ordering field (DRF would let Django's error out)."""

    page_size_query_param = "limit"
    invalid_cursor = "The cursor is not one this API gave out."

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound:
            raise BadRequest(self.invalid_cursor, code="invalid_cursor") from None

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError):  # not a date, not a number ...
            raise BadRequest(self.invalid_cursor, code="invalid_cursor") from None


# --- the OpenAPI description of the conventions above -------------------------------------


class ErrorOutput(serializers.Serializer):
    """Every error body. Some errors add fields of their own (`invalid_ids`, `retry_after`,
    `current_version` ...)."""

    code = serializers.CharField(help_text="stable, for programs: `not_found`, `invalid` ...")
    detail = serializers.CharField(help_text="for people")
    errors = serializers.JSONField(  # type: ignore[assignment]  # the error body, not Serializer.errors
        required=False, help_text="per-field messages, when invalid"
    )


CURSOR_PARAMETERS = [
    OpenApiParameter("cursor", str, description="the `next` or `previous` link's cursor"),
    OpenApiParameter("limit", int, description="page size"),
]


def page_of(name: str, serializer, *, previous: bool = False, **extra):
    """The `{"results": [...], "next": <link or null>}` envelope every list answers with;
    paged lists add `previous` (and `count` where it is cheap)."""
    fields = {
        "results": serializer(many=True),
        "next": serializers.CharField(allow_null=True, help_text="the next page's URL"),
    }
    if previous:
        fields["previous"] = serializers.CharField(allow_null=True)
    page = inline_serializer(name, {**fields, **extra})
    page.is_page = True  # type: ignore[attr-defined]  # read by the schema hooks
    return page


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's schema plus the error answers an operation can give, all `ErrorOutput`:
    400 where there is input to get wrong, 401 where a caller must be signed in, 403 (CSRF,
    scopes), 404 for objects named in the path, 409/412 for writes that conflict, 413 and 415
    for bodies, 429 everywhere."""

    def error_statuses(self) -> list[int]:
        has_body = self.method in ("POST", "PUT", "PATCH")
        writes = self.method not in ("GET", "HEAD", "OPTIONS")
        personal = IsAuthenticated in getattr(self.view, "permission_classes", ())
        statuses = {403, 429}
        if has_body or personal or "{" in self.path or self._get_parameters():
            statuses.add(400)
        if personal:
            statuses.add(401)
        if "{" in self.path:
            statuses.add(404)
        if has_body:
            statuses.update({413, 415})
        if writes and personal:
            statuses.update({409, 412})
        return sorted(statuses)

    def get_operation_id(self) -> str:
        # A page is a list, as drf-spectacular would name a plain array: `..._list`.
        operation_id = super().get_operation_id()
        if getattr(self.get_response_serializers(), "is_page", False):
            operation_id = operation_id.removesuffix("_retrieve") + "_list"
        return operation_id

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self.error_statuses():
            responses.setdefault(
                str(status),
                self._get_response_for_code(
                    OpenApiResponse(ErrorOutput, description=f"{status}: see `code`"), str(status)
                ),
            )
        return responses
