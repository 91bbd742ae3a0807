"""Conventions every API view shares: error bodies, cursor pagination."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, pagination
from rest_framework.views import exception_handler as drf_exception_handler


def _first_code(codes) -> str:
    while isinstance(codes, dict | list):
        if not codes:
            return "invalid"
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return str(codes)


def exception_handler(exc, context):
    """Errors as `{"code": <stable machine code>, "detail": <human text>, ...}`.

    Field errors keep DRF's per-field messages under `errors` so a client can point at the field.
    """
    # Django's own 404/403 become DRF's, so they get a `code` like every other error.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
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


class BadRequest(exceptions.APIException):
    status_code = 400
    default_code = "bad_request"
    default_detail = "The request was not valid."

    def __init__(self, detail: str, code: str = "bad_request", **extra) -> None:
        super().__init__({"detail": detail, "code": code, **extra})


class StrictCursorPagination(pagination.CursorPagination):
    """DRF's cursor pagination, except that a malformed cursor is a 400, not a 404."""

    page_size_query_param = "limit"

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except exceptions.NotFound:
            raise BadRequest(
                "The cursor is not one this API gave out.", code="invalid_cursor"
            ) from None


class NewestFirstCursorPagination(StrictCursorPagination):
    """Papers newest first by announcement date."""

    ordering = ("-announced", "-id")
    page_size = 25
    max_page_size = 100
