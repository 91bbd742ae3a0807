"""The site's URLs with the accounts app mounted, for tests that run before (or after) config.urls
includes it: accounts first, so the result is the same either way."""

from django.urls import include, path

from config.urls import urlpatterns as site_urlpatterns

urlpatterns = [
    path("api/v1/", include("accounts.urls_api")),
    path("", include("accounts.urls")),
    *site_urlpatterns,
]
