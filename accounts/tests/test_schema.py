"""The personal API is described by the OpenAPI schema without warnings, Bearer scheme included."""

from __future__ import annotations

import io

import yaml
from django.core.management import call_command


def test_the_openapi_schema_is_valid_and_complete():
    out = io.StringIO()
    call_command(
        "spectacular",
        "--urlconf=accounts.tests.urls_schema",
        "--validate",
        "--fail-on-warn",
        stdout=out,
        stderr=io.StringIO(),
    )
    schema = yaml.safe_load(out.getvalue())
    assert "/api/v1/me/lists/{list_id}/items" in schema["paths"]
    assert "/api/v1/me/lists/{list_id}/items/{arxiv_id}" in schema["paths"]
    assert schema["components"]["securitySchemes"]["bearerToken"]["scheme"] == "bearer"
