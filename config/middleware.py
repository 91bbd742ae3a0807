"""Errors under /api/ are JSON like every other API answer, even when Django (not DRF) gives them.

DRF renders the errors of its own views (config.api.exception_handler). Django answers before or
after them with its HTML pages: a URL no route matches (/api/v1/me/lists/abc: `<int:list_id>`
turns it away), or an exception that escaped a view. An API client would get HTML it can't read;
this turns those answers into the same `{"code", "detail"}` body, with nothing from the HTML page.
"""

from __future__ import annotations

from http import HTTPStatus

from django.conf import settings
from django.http import JsonResponse

API_PREFIX = "/api/"
DETAILS = {
    404: "No such API endpoint: see /api/docs/.",
    500: "Something went wrong on our side; it has been logged.",
}


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
