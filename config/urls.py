from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from config.api_docs import api_docs
from config.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    # Before papers: its papers/<path:raw_id> would swallow papers/<id>/ask.
    path("api/v1/", include("ask.urls_api")),
    path("api/v1/", include("papers.urls_api")),
    path("api/v1/", include("topics.urls_api")),
    path("api/v1/", include("accounts.urls_api")),
    path("", include("accounts.urls")),  # sign-in, /feed/, /lists/, /account/, /extension/connect
    path("", include("topics.urls")),
    path("", include("papers.urls")),
]
