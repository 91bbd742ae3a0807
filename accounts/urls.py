"""Account pages, included by config.urls at the site root.

The password views keep Django's URL names (password_reset_done, ...) because Django's own views
and e-mail template reverse them by those names.
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.feeds import private_feed
from accounts.views import account, auth, digests, feed, lists, welcome

urlpatterns = [
    path("accounts/signup/", auth.signup, name="signup"),
    path("welcome/", welcome.welcome, name="accounts-welcome"),
    path("accounts/login/", auth.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/change/",
        auth.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        auth.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("account/", account.account, name="accounts-account"),
    path("account/digest/", digests.digest_settings, name="accounts-digest"),
    path(
        "account/digest/preview/",
        digests.digest_preview_page,
        name="accounts-digest-preview",
    ),
    path(
        "account/digest/save/<str:token>/",
        digests.digest_save,
        name="accounts-digest-save",
    ),
    path(
        "account/digest/unsubscribe/<str:token>/",
        digests.digest_unsubscribe_page,
        name="accounts-digest-unsubscribe",
    ),
    path(
        "account/feeds/<int:feed_id>/",
        digests.private_feed_action,
        name="accounts-private-feed-action",
    ),
    path("account/tokens/", account.token_create, name="accounts-token-create"),
    path(
        "account/tokens/<int:token_id>/revoke/", account.token_revoke, name="accounts-token-revoke"
    ),
    path("account/export/", account.account_export, name="accounts-export"),
    path("account/delete/", account.account_delete, name="accounts-delete"),
    path("feed/", feed.feed, name="accounts-feed"),
    path("feed/private/<str:token>/", private_feed, name="accounts-private-feed"),
    path("feed/hide/", feed.feed_hide, name="accounts-hide"),
    path("feed/unhide/", feed.feed_unhide, name="accounts-unhide"),
    path("follows/<slug:slug>/", feed.follow_toggle, name="accounts-follow"),
    path("lists/", lists.lists_index, name="accounts-lists"),
    path("lists/save/", lists.list_save, name="accounts-save"),
    path("lists/import/", lists.list_import, name="accounts-import"),
    path("lists/<int:list_id>/", lists.list_detail, name="accounts-list-detail"),
    path("lists/<int:list_id>/import/", lists.list_import, name="accounts-list-import"),
    path("lists/imports/<int:job_id>/", lists.import_job_page, name="accounts-import-job"),
    path("lists/<int:list_id>/export/", lists.list_export, name="accounts-list-export"),
    path(
        "lists/<int:list_id>/items/<path:arxiv_id>/",
        lists.item_action,
        name="accounts-item-action",
    ),
    path("extension/connect", account.extension_connect, name="extension-connect"),
]
