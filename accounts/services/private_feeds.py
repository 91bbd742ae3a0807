"""Secret Atom feed URLs: one for the person's feed, one per reading list.

A URL is `/feed/private/<token>/`, the token being the row id and its nonce signed with
SECRET_KEY (django.core.signing, own salt). Regenerating draws a new nonce, revoking turns the
row off: either way every URL handed out before stops working at once.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.errors import NotFoundError
from accounts.models import PrivateFeed, ReadingList

SALT = "accounts.private-feed"


def _nonce() -> str:
    return secrets.token_hex(12)


def private_feed_token(feed: PrivateFeed) -> str:
    return signing.Signer(salt=SALT).sign(f"{feed.pk}.{feed.nonce}")


def private_feed_path(feed: PrivateFeed) -> str:
    return reverse("accounts-private-feed", args=[private_feed_token(feed)])


def private_feed_resolve(token: str) -> PrivateFeed | None:
    """The active feed a token names, or None (not ours, regenerated since, or revoked)."""
    try:
        value = signing.Signer(salt=SALT).unsign(token)
    except signing.BadSignature:
        return None
    pk, _, nonce = value.partition(".")
    if not pk.isdigit() or not nonce:
        return None
    return (
        PrivateFeed.objects.select_related("user", "reading_list")
        .filter(pk=int(pk), nonce=nonce, active=True, user__is_active=True)
        .first()
    )


def private_feeds_ensure(*, user) -> list[PrivateFeed]:
    """The person's feeds, personal first then one per list in list order; feeds that do not
    exist yet are created active (revoked ones stay revoked)."""
    lists = list(ReadingList.objects.filter(user=user).order_by("position", "id"))
    have = {feed.reading_list_id: feed for feed in PrivateFeed.objects.filter(user=user)}
    missing = [None, *(rl.pk for rl in lists)]
    missing = [list_id for list_id in missing if list_id not in have]
    if missing:
        PrivateFeed.objects.bulk_create(
            [
                PrivateFeed(user=user, reading_list_id=list_id, nonce=_nonce())
                for list_id in missing
            ],
            ignore_conflicts=True,
        )
        have = {feed.reading_list_id: feed for feed in PrivateFeed.objects.filter(user=user)}
    names = {rl.pk: rl for rl in lists}
    feeds = [have[None]]
    for rl in lists:
        feed = have[rl.pk]
        feed.reading_list = names[rl.pk]
        feeds.append(feed)
    return feeds


def private_feed_for_list(*, user, reading_list: ReadingList) -> PrivateFeed:
    for feed in private_feeds_ensure(user=user):
        if feed.reading_list_id == reading_list.pk:
            return feed
    raise NotFoundError(f"No list {reading_list.pk}.")


def _own(*, user, feed_id: int) -> PrivateFeed:
    feed = PrivateFeed.objects.select_for_update().filter(user=user, pk=feed_id).first()
    if feed is None:
        raise NotFoundError(f"No private feed {feed_id}.")
    return feed


@transaction.atomic
def private_feed_regenerate(*, user, feed_id: int) -> PrivateFeed:
    """A new secret URL (the old one stops working); turns a revoked feed back on."""
    feed = _own(user=user, feed_id=feed_id)
    feed.nonce = _nonce()
    feed.active = True
    feed.rotated_at = timezone.now()
    feed.save(update_fields=["nonce", "active", "rotated_at"])
    return feed


@transaction.atomic
def private_feed_revoke(*, user, feed_id: int) -> PrivateFeed:
    """Switch the feed off: its URL stops working, and turning it on again gives a new one."""
    feed = _own(user=user, feed_id=feed_id)
    feed.active = False
    feed.nonce = _nonce()
    feed.rotated_at = timezone.now()
    feed.save(update_fields=["active", "nonce", "rotated_at"])
    return feed


def private_feed_touch(feed: PrivateFeed) -> None:
    """Remember when a feed reader last fetched it (at most one write an hour)."""
    now = timezone.now()
    PrivateFeed.objects.filter(pk=feed.pk).exclude(
        last_read_at__gt=now - timedelta(hours=1)
    ).update(last_read_at=now)
