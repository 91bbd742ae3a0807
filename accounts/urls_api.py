"""The personal API, included by config.urls under /api/v1/."""

from django.urls import path

from accounts import apis

urlpatterns = [
    path("me", apis.MeApi.as_view(), name="api-me"),
    path("me/export", apis.MeExportApi.as_view(), name="api-me-export"),
    path("me/follows", apis.FollowListApi.as_view(), name="api-follow-list"),
    path("me/follows/<slug:slug>", apis.FollowDetailApi.as_view(), name="api-follow-detail"),
    path("me/feed", apis.FeedApi.as_view(), name="api-feed"),
    path("me/hidden", apis.HiddenListApi.as_view(), name="api-hidden-list"),
    path("me/hidden/<path:arxiv_id>", apis.HiddenDetailApi.as_view(), name="api-hidden-detail"),
    path("me/feedback", apis.FeedbackApi.as_view(), name="api-feedback"),
    path("me/digest", apis.DigestApi.as_view(), name="api-digest"),
    path("me/digest/preview", apis.DigestPreviewApi.as_view(), name="api-digest-preview"),
    path("me/alerts", apis.AlertListApi.as_view(), name="api-alert-list"),
    path("me/alerts/<int:alert_id>", apis.AlertDetailApi.as_view(), name="api-alert-detail"),
    path("me/lists", apis.ListListApi.as_view(), name="api-list-list"),
    path("me/lists/<int:list_id>", apis.ListDetailApi.as_view(), name="api-list-detail"),
    path("me/lists/<int:list_id>/export", apis.ListExportApi.as_view(), name="api-list-export"),
    path("me/lists/<int:list_id>/import", apis.ListImportApi.as_view(), name="api-list-import"),
    path("me/lists/<int:list_id>/items", apis.ItemListApi.as_view(), name="api-item-list"),
    # The actions come before the <path:arxiv_id> route; none of them is an arXiv id.
    path("me/lists/<int:list_id>/items/bulk", apis.ItemBulkApi.as_view(), name="api-item-bulk"),
    path("me/lists/<int:list_id>/items/move", apis.ItemMoveApi.as_view(), name="api-item-move"),
    path("me/lists/<int:list_id>/items/copy", apis.ItemTransferApi.as_view(), name="api-item-copy"),
    path(
        "me/lists/<int:list_id>/items/<path:arxiv_id>",
        apis.ItemDetailApi.as_view(),
        name="api-item-detail",
    ),
    path("me/imports/<int:job_id>", apis.ImportJobApi.as_view(), name="api-import-job"),
    path("me/tokens", apis.TokenListApi.as_view(), name="api-token-list"),
    path("me/tokens/current", apis.TokenCurrentApi.as_view(), name="api-token-current"),
    path("me/tokens/<int:token_id>", apis.TokenDetailApi.as_view(), name="api-token-detail"),
]
