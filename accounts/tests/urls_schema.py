"""Only the personal API, for the OpenAPI schema test."""

from django.urls import include, path

urlpatterns = [path("api/v1/", include("accounts.urls_api"))]
