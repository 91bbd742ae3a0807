from django.urls import path

from papers.apis import PaperDetailApi, PaperListApi, PaperLookupApi

urlpatterns = [
    path("papers", PaperListApi.as_view(), name="api-paper-list"),
    path("papers/lookup", PaperLookupApi.as_view(), name="api-paper-lookup"),
    path("papers/<path:raw_id>", PaperDetailApi.as_view(), name="api-paper-detail"),
]
