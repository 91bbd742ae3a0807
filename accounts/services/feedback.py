"""Tag feedback from people (issue 4): confirm, reject, or add a topic on a paper."""

from __future__ import annotations

import importlib
import logging

from django.db import transaction
from django.db.models import Max

from accounts.errors import InvalidInput
from accounts.services.ids import canonical_id
from papers.models import Paper
from topics.models import PaperTopic, TagFeedback, Topic

logger = logging.getLogger(__name__)

VOTES = tuple(TagFeedback.Vote.values)


def _tagger_hook():
    """topics.services.feedback.feedback_applied(paper_id, topic_slug, vote), if it exists yet."""
    try:
        module = importlib.import_module("topics.services.feedback")
    except ImportError:
        return None
    return getattr(module, "feedback_applied", None)


def _notify_tagger(paper_id: int, topic_slug: str, vote: str) -> None:
    hook = _tagger_hook()
    if hook is None:
        return
    try:
        hook(paper_id, topic_slug, vote)
    except Exception:  # the vote is stored; the tagger catches up at its next retraining
        logger.exception("feedback_applied failed for paper %s, topic %s", paper_id, topic_slug)


@transaction.atomic
def tag_feedback_submit(
    *, user, arxiv_id: str, topic_slug: str, vote: str
) -> tuple[TagFeedback, bool]:
    """Record one person's vote on one tag (their latest vote counts). A confirm or add makes the
    tag a "user" tag, which keeps it through re-tagging. Returns (feedback, created)."""
    if vote not in VOTES:
        raise InvalidInput(
            f"vote must be one of {', '.join(VOTES)}, not {str(vote)[:40]!r}.", code="invalid_vote"
        )
    canonical = canonical_id(arxiv_id)
    topic = Topic.objects.filter(slug=str(topic_slug), active=True).first()
    if topic is None:
        raise InvalidInput(
            f"Unknown topic {str(topic_slug)[:100]!r}: use a topic slug from /api/v1/topics.",
            code="unknown_topic",
        )
    paper = Paper.objects.filter(arxiv_id=canonical).first()
    if paper is None:
        raise InvalidInput(
            f"No paper {canonical} here yet; try again once it has been fetched.",
            code="unknown_paper",
        )
    feedback, created = TagFeedback.objects.update_or_create(
        user=user, paper=paper, topic=topic, defaults={"vote": vote}
    )
    if vote in (TagFeedback.Vote.CONFIRM, TagFeedback.Vote.ADD):
        tag = PaperTopic.objects.filter(paper=paper, topic=topic).first()
        if tag is None:
            last = PaperTopic.objects.filter(paper=paper).aggregate(m=Max("rank"))["m"]
            PaperTopic.objects.create(
                paper=paper,
                topic=topic,
                score=1.0,
                rank=(last or 0) + 1,
                source=PaperTopic.Source.USER,
                evidence={"feedback": vote},
            )
        elif tag.source != PaperTopic.Source.USER:
            tag.source = PaperTopic.Source.USER
            tag.save(update_fields=["source"])
    slug = topic.slug
    transaction.on_commit(lambda: _notify_tagger(paper.pk, slug, vote))
    return feedback, created
