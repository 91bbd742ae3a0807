"""Follows and "not interested": the two ways a person steers their feed."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.errors import InvalidInput, NotFoundError
from accounts.models import Follow, Hidden
from accounts.services.ids import canonical_id
from papers.models import Paper
from topics.models import Topic

MAX_FOLLOWS = 500


def _active_topic(slug) -> Topic:
    topic = Topic.objects.filter(slug=str(slug), active=True).select_related("area").first()
    if topic is None:
        raise InvalidInput(
            f"Unknown topic {str(slug)[:100]!r}: use a topic slug from /api/v1/topics.",
            code="unknown_topic",
        )
    return topic


def follow_create(*, user, topic_slug: str) -> tuple[Follow, bool]:
    """Follow a topic; following it again changes nothing. Returns (follow, created)."""
    topic = _active_topic(topic_slug)
    existing = Follow.objects.filter(user=user, topic=topic).select_related("topic__area").first()
    if existing is not None:
        return existing, False
    if Follow.objects.filter(user=user).count() >= MAX_FOLLOWS:
        raise InvalidInput(f"You can follow at most {MAX_FOLLOWS} topics.", code="too_many_follows")
    try:
        with transaction.atomic():
            follow = Follow.objects.create(user=user, topic=topic)
    except IntegrityError:  # a concurrent request followed it first
        return Follow.objects.select_related("topic__area").get(user=user, topic=topic), False
    return follow, True


def follow_delete(*, user, topic_slug: str) -> None:
    deleted, _ = Follow.objects.filter(user=user, topic__slug=str(topic_slug)).delete()
    if not deleted:
        raise NotFoundError(f"You do not follow {str(topic_slug)[:100]!r}.")


def hidden_create(*, user, arxiv_id: str) -> tuple[Hidden, bool]:
    """Hide a paper from the feed for good; hiding it again changes nothing."""
    canonical = canonical_id(arxiv_id)
    paper = Paper.objects.filter(arxiv_id=canonical).first()
    if paper is None:
        raise InvalidInput(f"No paper {canonical} here yet.", code="unknown_paper")
    existing = Hidden.objects.filter(user=user, paper=paper).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return Hidden.objects.create(user=user, paper=paper), True
    except IntegrityError:
        return Hidden.objects.get(user=user, paper=paper), False


def hidden_delete(*, user, arxiv_id: str) -> None:
    canonical = canonical_id(arxiv_id)
    deleted, _ = Hidden.objects.filter(user=user, paper__arxiv_id=canonical).delete()
    if not deleted:
        raise NotFoundError(f"{canonical} is not hidden.")
