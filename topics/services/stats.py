"""Weekly counts and momentum per topic, precomputed so pages never aggregate the paper table."""

from __future__ import annotations

from datetime import date, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count

from papers.models import Paper
from topics.models import PaperTopic, Topic, TopicMomentum, TopicWeek
from topics.momentum import SERIES_WEEKS, WINDOW_DAYS, week_start
from topics.selectors import latest_announcement

STATS_DEBOUNCE_SECONDS = 10


def topic_stats_schedule() -> None:
    """Queue one recount soon; batches tagged meanwhile ride along instead of queueing their own."""
    from topics.tasks import topic_stats_task

    if cache.add("topics:stats-scheduled", 1, timeout=STATS_DEBOUNCE_SECONDS):
        topic_stats_task.apply_async(countdown=STATS_DEBOUNCE_SECONDS)


@transaction.atomic
def topic_stats_recompute(*, since: date | None = None) -> int:
    """Recount weekly papers per topic from `since` (default: the whole series) and refresh
    every topic's momentum. Returns the number of topics with momentum rows.

    Windows end at the newest announcement in the database, so a live instance ends today and an
    offline sample still shows sensible figures.
    """
    end = latest_announcement()
    if end is None:
        return 0
    first_week = week_start(end) - timedelta(weeks=SERIES_WEEKS - 1)
    start_week = max(first_week, week_start(since)) if since else first_week
    tagged = PaperTopic.objects.filter(paper__announced__gte=start_week, paper__announced__lte=end)
    weekly: dict[tuple[int, date], int] = {}
    for topic_id, announced, count in tagged.values_list("topic_id", "paper__announced").annotate(
        n=Count("paper_id", distinct=True)
    ):
        key = (topic_id, week_start(announced))
        weekly[key] = weekly.get(key, 0) + count
    TopicWeek.objects.filter(week__gte=start_week).delete()
    TopicWeek.objects.filter(week__lt=first_week).delete()
    TopicWeek.objects.bulk_create(
        [TopicWeek(topic_id=t, week=w, count=n) for (t, w), n in weekly.items()], batch_size=2000
    )
    return _momentum_recompute(end)


def announcement_windows(end: date) -> tuple[date, date]:
    """The first days of the momentum windows ending at ``end``: the recent window is the last
    WINDOW_DAYS days with announcements, the previous one the WINDOW_DAYS announcement days
    before it (the previous window is empty, starting at the recent one, when the database has
    no earlier announcements). Weekends and arXiv's holidays do not count, so a window always
    holds the same number of announcements."""
    days = list(
        Paper.objects.filter(announced__lte=end)
        .order_by("-announced")
        .values_list("announced", flat=True)
        .distinct()[: 2 * WINDOW_DAYS]
    )
    dated = [d for d in days if d is not None]
    recent_start = dated[:WINDOW_DAYS][-1]
    previous = dated[WINDOW_DAYS:]
    return recent_start, previous[-1] if previous else recent_start


def _momentum_recompute(end: date) -> int:
    recent_start, previous_start = announcement_windows(end)
    total_recent = Paper.objects.filter(announced__gte=recent_start, announced__lte=end).count()

    def counts(start: date, stop: date) -> dict[int, int]:
        rows = (
            PaperTopic.objects.filter(paper__announced__gte=start, paper__announced__lte=stop)
            .values("topic_id")
            .annotate(n=Count("paper_id", distinct=True))
        )
        return {row["topic_id"]: row["n"] for row in rows}

    recent = counts(recent_start, end)
    previous = counts(previous_start, recent_start - timedelta(days=1))
    totals = dict(
        PaperTopic.objects.values("topic_id")
        .annotate(n=Count("paper_id", distinct=True))
        .values_list("topic_id", "n")
    )
    topic_ids = list(Topic.objects.values_list("id", flat=True))
    TopicMomentum.objects.all().delete()
    TopicMomentum.objects.bulk_create(
        [
            TopicMomentum(
                topic_id=topic_id,
                window_start=recent_start,
                window_end=end,
                recent_count=recent.get(topic_id, 0),
                previous_count=previous.get(topic_id, 0),
                total_recent=total_recent,
                total_count=totals.get(topic_id, 0),
            )
            for topic_id in topic_ids
        ],
        batch_size=2000,
    )
    return len(topic_ids)
