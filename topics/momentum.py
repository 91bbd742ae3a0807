"""Momentum in words and numbers, from the cached TopicMomentum row."""

from __future__ import annotations

from datetime import date, timedelta

from topics.models import TopicMomentum

WINDOW_DAYS = 28  # announcement days, not calendar days: arXiv announces five days a week
SERIES_WEEKS = 26  # weeks in a topic's chart and series

# Below this many papers across both windows a percentage says more about noise than the field.
LOW_COUNT = 10


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def momentum_summary(momentum: TopicMomentum | None) -> dict | None:
    if momentum is None:
        return None
    recent, previous = momentum.recent_count, momentum.previous_count
    low = recent + previous < LOW_COUNT
    change = momentum.change
    head = f"{plural(recent, 'paper')} in the last {WINDOW_DAYS} announcement days"
    if low:
        sentence = (
            f"{head}, {plural(previous, 'paper')} in the {WINDOW_DAYS} before: "
            "too few to call a trend."
        )
    elif change is None:
        sentence = f"{head}, none in the {WINDOW_DAYS} before."
    elif abs(change) < 0.005:
        sentence = f"{head}, level with the {WINDOW_DAYS} before."
    else:
        direction = "up" if change > 0 else "down"
        sentence = f"{head}, {direction} {abs(change):.0%} on the {WINDOW_DAYS} before."
    if momentum.total_recent:
        share = momentum.share * 100
        sentence += (
            f" {share:.1f}% of all new papers."
            if share >= 0.1
            else " Under 0.1% of all new papers."
        )
    return {
        "window_start": momentum.window_start,
        "window_end": momentum.window_end,
        "window_days": WINDOW_DAYS,
        "recent_count": recent,
        "previous_count": previous,
        "change": None if change is None else round(change, 4),
        "share": round(momentum.share, 6),
        "low_count": low,
        "sentence": sentence,
    }
