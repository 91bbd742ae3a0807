"""Celery tasks of the topics app (thin: services hold the logic)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="topics.tag_papers", acks_late=True)
def tag_papers_task(paper_ids: list[int]) -> int:
    from topics.services.stats import topic_stats_schedule
    from topics.services.tagging import papers_tag

    tagged = papers_tag(paper_ids=paper_ids)
    topic_stats_schedule()  # new tags change the counts; coalesced with other batches
    return tagged


@shared_task(name="topics.stats")
def topic_stats_task() -> int:
    from topics.services.stats import topic_stats_recompute

    return topic_stats_recompute()
