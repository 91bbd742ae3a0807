"""What the account page shows; the account views and the digest views both render it."""

from __future__ import annotations

from django.http import HttpRequest

from accounts import selectors
from accounts.forms import (
    DigestSettingsForm,
    TokenCreateForm,
)
from accounts.services import private_feeds as feed_services
from accounts.services.delivery import digest_preview
from accounts.services.digest_settings import (
    digest_settings_get,
)


def account_digest_context(request: HttpRequest, form: DigestSettingsForm | None = None) -> dict:
    """What the account page shows about digests and private feeds."""
    user = request.user
    prefs = digest_settings_get(user=user)
    follows = selectors.follows_for_user(user=user)
    if form is None:
        form = DigestSettingsForm(
            initial={
                "frequency": prefs.frequency,
                "weekday": prefs.weekday,
                "muted": [f.topic.slug for f in follows if f.digest_muted],
            },
            follows=follows,
        )
    feeds = feed_services.private_feeds_ensure(user=user)
    for feed in feeds:
        feed.url = request.build_absolute_uri(feed_services.private_feed_path(feed))
    return {
        "digest_settings": prefs,
        "digest_form": form,
        "digest_preview": digest_preview(user=user),
        "private_feeds": feeds,
    }


def account_context(request: HttpRequest, **extra) -> dict:
    return {
        "tokens": list(selectors.tokens_for_user(user=request.user)),
        "follows": selectors.follows_for_user(user=request.user),
        "lists": selectors.reading_lists_for_user(user=request.user),
        "token_form": TokenCreateForm(),
        **account_digest_context(request, form=extra.pop("digest_form", None)),
        **extra,
    }
