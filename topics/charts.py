"""Charts drawn on the server as inline SVG: no JavaScript, readable by screen readers.

The weekly chart has no viewBox: bar positions are percentages of its width and text sizes are
pixels, so it stretches from a phone to a wide column without the labels shrinking or growing.
Colours come from the page's CSS (classes below), so dark mode needs nothing here.
"""

from __future__ import annotations

import math
from datetime import date

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

CHART_HEIGHT = 184  # px
PLOT_TOP = 22  # px: room for the axis title above the bars
PLOT_BOTTOM = 150  # px: the baseline; month labels sit below it
PLOT_RIGHT = 90.0  # % of the width used by bars; the rest holds the y-axis labels
RECENT_WEEKS = 4  # the momentum window, highlighted


def _day(value: date) -> str:
    return f"{value.day} {value:%b %Y}"


def _nice_max(value: int) -> int:
    """A round axis maximum at or above value: 4, 5, 10, 20, 25, 50, 100, ..."""
    if value <= 4:
        return 4
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        candidate = int(step * magnitude)
        if candidate >= value:
            return candidate
    return 10 * magnitude


def _pct(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "%"


def _papers(count: int) -> str:
    return f"{count:,} paper{'' if count == 1 else 's'}"


def chart_summary(weekly: list[dict]) -> str:
    """One sentence a screen reader can use instead of the bars."""
    if not weekly:
        return "No weekly counts yet."
    total = sum(row["count"] for row in weekly)
    busiest = max(weekly, key=lambda row: (row["count"], row["week"]))
    recent = sum(row["count"] for row in weekly[-RECENT_WEEKS:])
    return (
        f"{len(weekly)} weeks from {_day(weekly[0]['week'])} to {_day(weekly[-1]['week'])}: "
        f"{_papers(total)} in all, {_papers(recent)} in the last {RECENT_WEEKS} weeks "
        f"(highlighted). Busiest week: {_day(busiest['week'])} with {_papers(busiest['count'])}. "
        f"Latest week: {_papers(weekly[-1]['count'])}."
    )


def weekly_bar_chart(
    weekly: list[dict], *, title: str, chart_id: str = "weekly-chart"
) -> SafeString:
    """An SVG bar chart of [{"week": date, "count": int}, ...] (oldest first), with a title,
    a description, a right-hand count axis and month labels under the bars."""
    if not weekly:
        return mark_safe("")  # noqa: S308
    counts = [int(row["count"]) for row in weekly]
    top = _nice_max(max(counts))
    plot_height = PLOT_BOTTOM - PLOT_TOP
    slot = PLOT_RIGHT / len(weekly)
    bar_width = slot * 0.72
    parts: list[str] = [
        format_html(
            '<svg class="chart" width="100%" height="{}" role="img" '
            'aria-labelledby="{}-title {}-desc" xmlns="http://www.w3.org/2000/svg">',
            CHART_HEIGHT,
            chart_id,
            chart_id,
        ),
        format_html('<title id="{}-title">{}</title>', chart_id, title),
        format_html('<desc id="{}-desc">{}</desc>', chart_id, chart_summary(weekly)),
        mark_safe('<text class="chart-axis-title" x="0" y="12">Papers per week</text>'),  # noqa: S308
    ]
    # Gridlines at 0, half and the top, labelled in the right-hand gutter.
    for value in (0, top // 2, top):
        y = PLOT_BOTTOM - plot_height * value / top
        parts.append(
            format_html(
                '<line class="chart-grid{}" x1="0" x2="{}" y1="{}" y2="{}"></line>'
                '<text class="chart-tick" x="100%" y="{}" dy="0.35em" text-anchor="end">{}</text>',
                " chart-baseline" if value == 0 else "",
                _pct(PLOT_RIGHT),
                f"{y:.1f}",
                f"{y:.1f}",
                f"{y:.1f}",
                f"{value:,}",
            )
        )
    recent_from = len(weekly) - RECENT_WEEKS
    previous_month = None
    for index, row in enumerate(weekly):
        count = int(row["count"])
        week: date = row["week"]
        x = slot * index + (slot - bar_width) / 2
        height = plot_height * count / top
        if count:
            height = max(height, 2.0)  # a single paper stays visible
        css = "chart-bar chart-bar-recent" if index >= recent_from else "chart-bar"
        parts.append(
            format_html(
                '<rect class="{}" x="{}" y="{}" width="{}" height="{}" rx="1.5">'
                "<title>Week of {}: {}</title></rect>",
                css,
                _pct(x),
                f"{PLOT_BOTTOM - height:.1f}",
                _pct(bar_width),
                f"{height:.1f}",
                _day(week),
                _papers(count),
            )
        )
        # A month label under the first week that starts in a new month (not the very first
        # bar, whose month has usually begun before the series).
        # January also names its year, on a second line so that labels never collide.
        if week.month != previous_month and 0 < index <= len(weekly) - 2:
            parts.append(
                format_html(
                    '<line class="chart-tickmark" x1="{}" x2="{}" y1="{}" y2="{}"></line>'
                    '<text class="chart-tick" x="{}" y="{}">{}</text>',
                    _pct(slot * index),
                    _pct(slot * index),
                    PLOT_BOTTOM,
                    PLOT_BOTTOM + 5,
                    _pct(slot * index),
                    PLOT_BOTTOM + 18,
                    f"{week:%b}",
                )
            )
            if week.month == 1:
                parts.append(
                    format_html(
                        '<text class="chart-tick chart-year" x="{}" y="{}">{}</text>',
                        _pct(slot * index),
                        PLOT_BOTTOM + 31,
                        week.year,
                    )
                )
        previous_month = week.month
    parts.append("</svg>")
    return mark_safe("".join(str(part) for part in parts))  # noqa: S308 (every part escaped)


def sparkline(weekly: list[dict], *, width: int = 112, height: int = 28) -> SafeString:
    """A tiny decorative bar strip for lists (aria-hidden: the sentence next to it says it)."""
    if not weekly:
        return mark_safe("")  # noqa: S308
    counts = [int(row["count"]) for row in weekly]
    top = max(max(counts), 1)
    slot = width / len(counts)
    recent_from = len(counts) - RECENT_WEEKS
    bars = []
    for index, count in enumerate(counts):
        bar_height = (height - 2) * count / top
        if count:
            bar_height = max(bar_height, 1.5)
        bars.append(
            format_html(
                '<rect class="{}" x="{}" y="{}" width="{}" height="{}"></rect>',
                "spark-bar spark-bar-recent" if index >= recent_from else "spark-bar",
                f"{index * slot + slot * 0.15:.2f}",
                f"{height - bar_height:.2f}",
                f"{slot * 0.7:.2f}",
                f"{bar_height:.2f}",
            )
        )
    svg = format_html(
        '<svg class="sparkline" width="{}" height="{}" viewBox="0 0 {} {}" '
        'preserveAspectRatio="none" aria-hidden="true" focusable="false" '
        'xmlns="http://www.w3.org/2000/svg">{}</svg>',
        width,
        height,
        width,
        height,
        mark_safe("".join(str(bar) for bar in bars)),  # noqa: S308 (each bar escaped)
    )
    return svg
