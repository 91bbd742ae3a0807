"""Errors under /api/ are JSON like every other API answer, even when Django (not DRF) gives them.

DRF renders the errors of its own views (config.api.exception_handler). Django answers before or
after them with its HTML pages: a URL no route matches (/api/v1/me/lists/abc: `<int:list_id>`
turns it away), or an exception that escaped a view. An API client would get HTML it can't read;
this turns those answers into the same `{"code", "detail"}` body, with nothing from the HTML page.
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader

logger = logging.getLogger("paperscope")
API_PREFIX = "/api/"
DETAILS = {
    404: "No such API endpoint: see /api/docs/.",
    500: "Something went wrong on our side; it has been logged.",
    503: "The database is not answering (most likely a restart); try again in a few seconds.",
}
RETRY_AFTER_SECONDS = 5


class ApiJsonErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith(API_PREFIX)
            and not response.get("Content-Type", "").startswith("application/json")
            # With DEBUG on, a developer wants Django's page with the traceback.
            and not (settings.DEBUG and response.status_code >= 500)
        ):
            return json_error(response)
        return response


def json_error(response) -> JsonResponse:
    status = response.status_code
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    answer = JsonResponse(
        {
            "code": phrase.lower().replace(" ", "_").replace("-", "_"),
            "detail": DETAILS.get(status, f"{phrase}."),
        },
        status=status,
    )
    for header in ("Allow", "Retry-After", "WWW-Authenticate"):
        if header in response:
            answer[header] = response[header]
    return answer


class DatabaseUnavailableMiddleware:
    """While the database is down (a restart, a fail-over), answer 503 with Retry-After instead
    of a 500: clients and load balancers know to retry, and the error log is not flooded with
    tracebacks of one known cause. /healthz says which part is down (config.health)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)) or settings.DEBUG:
            return None
        logger.warning("database unavailable: %s %s: %s", request.method, request.path, exception)
        if request.path.startswith(API_PREFIX):
            response = JsonResponse(
                {"code": "service_unavailable", "detail": DETAILS[503]}, status=503
            )
        else:
            # Rendered without the request: its context processors would query the database.
            response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
