"""The personal API under /api/v1/me: follows, feed, lists and items with Zotero-style sync,
export and import, tag feedback, tokens, and the account itself.

Every view answers for the caller only: other people's lists, items and tokens are 404, exactly
as if they did not exist. Session writes need the CSRF token (DRF's SessionAuthentication);
token writes need the view's scope (accounts.authentication.TokenScopes).
"""

from accounts.apis.digests import AlertDetailApi, AlertListApi, DigestApi, DigestPreviewApi
from accounts.apis.follows import (
    FeedApi,
    FeedbackApi,
    FollowDetailApi,
    FollowListApi,
    HiddenDetailApi,
    HiddenListApi,
)
from accounts.apis.imports import ImportJobApi, ListImportApi
from accounts.apis.lists import (
    ItemBulkApi,
    ItemDetailApi,
    ItemListApi,
    ItemMoveApi,
    ItemTransferApi,
    ListDetailApi,
    ListExportApi,
    ListListApi,
    export_response,
)
from accounts.apis.me import (
    MeApi,
    MeExportApi,
    TokenCurrentApi,
    TokenDetailApi,
    TokenListApi,
    account_export_response,
)

__all__ = [
    "AlertDetailApi",
    "AlertListApi",
    "DigestApi",
    "DigestPreviewApi",
    "FeedApi",
    "FeedbackApi",
    "FollowDetailApi",
    "FollowListApi",
    "HiddenDetailApi",
    "HiddenListApi",
    "ItemBulkApi",
    "ItemDetailApi",
    "ItemListApi",
    "ItemMoveApi",
    "ItemTransferApi",
    "ListDetailApi",
    "ListExportApi",
    "ImportJobApi",
    "ListImportApi",
    "ListListApi",
    "MeApi",
    "MeExportApi",
    "TokenCurrentApi",
    "TokenDetailApi",
    "TokenListApi",
    "account_export_response",
    "export_response",
]
