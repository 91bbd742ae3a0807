"""Celery tasks of the topics app (thin: services hold the logic)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

# The database is restarting or failing over: every query fails for a few seconds, and a worker
# would burn through its whole queue in that time. Tagging batches wait and retry instead of
# being lost, since nothing tags their papers later (docs/faults.md).
DATABASE_DOWN = (OperationalError, InterfaceError)


@shared_task(
    name="topics.tag_papers",
    acks_late=True,
    autoretry_for=DATABASE_DOWN,
    retry_backoff=2,
    retry_backoff_max=120,
    max_retries=10,
)
def tag_papers_task(paper_ids: list[int]) -> int:
    from topics.services.stats import topic_stats_schedule
    from topics.services.tagging import papers_tag

    tagged = papers_tag(paper_ids=paper_ids)
    topic_stats_schedule()  # new tags change the counts; coalesced with other batches
    return tagged


@shared_task(name="topics.tag_stragglers", acks_late=True)
def tag_stragglers_task() -> int:
    """The scheduled sweep for papers whose tagging task was lost (worker killed, queue lost)."""
    from topics.services.stats import topic_stats_schedule
    from topics.services.tagging import papers_tag_stragglers

    tagged = papers_tag_stragglers()
    if tagged:
        topic_stats_schedule()
    return tagged


@shared_task(name="topics.refine_tags", acks_late=True, soft_time_limit=10 * 60, time_limit=11 * 60)
def refine_tags_task() -> int:
    """The scheduled sweep of the refined stage: the newest papers the fast path tagged get the
    contextual encoder's tags (topics.services.tagging.papers_refine)."""
    from topics.services.stats import topic_stats_schedule
    from topics.services.tagging import papers_refine

    refined = papers_refine()
    if refined:
        topic_stats_schedule()
    return refined


@shared_task(name="topics.stats")
def topic_stats_task() -> int:
    from topics.services.stats import topic_stats_recompute

    return topic_stats_recompute()


@shared_task(name="topics.retrain_tagger", acks_late=True)
def retrain_tagger_task(force: bool = False) -> str:
    """Refit and recalibrate the scorer and refresh the priors when enough new judgements
    arrived (on the beat schedule; ``force`` refits anyway)."""
    from topics.services.retrain import tagger_retrain

    return tagger_retrain(force=force).summary()


@shared_task(name="topics.retag_topics", acks_late=True)
def retag_topics_task(topic_ids: list[int], edited_at: str | None = None) -> int:
    """Re-tag the papers a topic edit may change (queued by topics.signals after the commit)."""
    from topics.services.retagging import topics_retag

    return topics_retag(topic_ids=topic_ids, edited_at=edited_at)


@shared_task(name="topics.propose_topics", acks_late=True)
def propose_topics_task() -> int:
    """Weekly: cluster recent, poorly covered papers into new-topic proposals for the admin."""
    from topics.services.proposals import topic_proposals_create

    return len(topic_proposals_create().proposals)
