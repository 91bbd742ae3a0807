"""/api/docs/: Swagger UI over our OpenAPI schema, entirely from our own static files.

Swagger UI comes from drf-spectacular-sidecar (pinned), so the page works offline and under the
site's Content-Security-Policy unchanged: scripts and styles are 'self', and the page's one
script (static/js/api-docs.js) starts it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe


@require_safe
def api_docs(request: HttpRequest) -> HttpResponse:
    return render(request, "api/docs.html", {"schema_url": reverse("api-schema")})
