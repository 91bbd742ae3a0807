"""Account pages, included by config.urls at the site root.

The password views keep Django's URL names (password_reset_done, ...) because Django's own views
and e-mail template reverse them by those names.
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views, views_digests
from accounts.feeds import private_feed

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        auth_views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("account/", views.account, name="accounts-account"),
    path("account/digest/", views_digests.digest_settings, name="accounts-digest"),
    path(
        "account/digest/preview/",
        views_digests.digest_preview_page,
        name="accounts-digest-preview",
    ),
    path(
        "account/digest/save/<str:token>/",
        views_digests.digest_save,
        name="accounts-digest-save",
    ),
    path(
        "account/digest/unsubscribe/<str:token>/",
        views_digests.digest_unsubscribe_page,
        name="accounts-digest-unsubscribe",
    ),
    path(
        "account/feeds/<int:feed_id>/",
        views_digests.private_feed_action,
        name="accounts-private-feed-action",
    ),
    path("account/tokens/", views.token_create, name="accounts-token-create"),
    path("account/tokens/<int:token_id>/revoke/", views.token_revoke, name="accounts-token-revoke"),
    path("account/export/", views.account_export, name="accounts-export"),
    path("account/delete/", views.account_delete, name="accounts-delete"),
    path("feed/", views.feed, name="accounts-feed"),
    path("feed/private/<str:token>/", private_feed, name="accounts-private-feed"),
    path("feed/hide/", views.feed_hide, name="accounts-hide"),
    path("feed/unhide/", views.feed_unhide, name="accounts-unhide"),
    path("follows/<slug:slug>/", views.follow_toggle, name="accounts-follow"),
    path("lists/", views.lists_index, name="accounts-lists"),
    path("lists/save/", views.list_save, name="accounts-save"),
    path("lists/import/", views.list_import, name="accounts-import"),
    path("lists/<int:list_id>/", views.list_detail, name="accounts-list-detail"),
    path("lists/<int:list_id>/import/", views.list_import, name="accounts-list-import"),
    path("lists/<int:list_id>/export/", views.list_export, name="accounts-list-export"),
    path(
        "lists/<int:list_id>/items/<path:arxiv_id>/",
        views.item_action,
        name="accounts-item-action",
    ),
    path("extension/connect", views.extension_connect, name="extension-connect"),
]
