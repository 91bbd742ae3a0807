"""Server-rendered pages of the topics app: home, a topic, an area."""

from __future__ import annotations

from datetime import timedelta

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from papers import views as paper_views
from papers.paging import InvalidCursor
from papers.selectors import paper_list
from papers.views import (
    BadPageRequest,
    PaperPage,
    bad_request_page,
    decorate_rows,
    newest_first_page,
)
from topics.charts import sparkline, weekly_bar_chart
from topics.models import PaperTopic, Topic, TopicWeek
from topics.selectors import topic_get, topic_list, topic_papers_page, trending_topics

TRENDING_SHOWN = 12
HOME_PAPERS = 20


def trend(summary: dict | None) -> dict | None:
    """A short badge for lists: "+12%", "level", "new" or "few papers" (the low-count guard)."""
    if not summary or not (summary["recent_count"] or summary["previous_count"]):
        return None
    change = summary["change"]
    if summary["low_count"]:
        return {"label": "few papers", "direction": "few"}
    if change is None:
        return {"label": "new", "direction": "up"}
    if abs(change) < 0.005:
        return {"label": "level", "direction": "flat"}
    return {"label": f"{change:+.0%}", "direction": "up" if change > 0 else "down"}


def _weekly_by_topic(topic_ids: list[int]) -> dict[int, list[dict]]:
    """The zero-filled 26-week series of several topics in one query (for sparklines)."""
    from topics.momentum import SERIES_WEEKS, week_start
    from topics.selectors import latest_announcement

    end = latest_announcement()
    if end is None or not topic_ids:
        return {}
    last = week_start(end)
    weeks = [last - timedelta(weeks=n) for n in range(SERIES_WEEKS - 1, -1, -1)]
    counts: dict[int, dict] = {topic_id: {} for topic_id in topic_ids}
    rows = TopicWeek.objects.filter(topic_id__in=topic_ids, week__gte=weeks[0])
    for topic_id, week, count in rows.values_list("topic_id", "week", "count"):
        counts[topic_id][week] = count
    return {
        topic_id: [{"week": week, "count": by_week.get(week, 0)} for week in weeks]
        for topic_id, by_week in counts.items()
    }


def _chart(topic: Topic) -> str:
    """The weekly chart, or nothing when there is nothing to draw (an empty frame says less)."""
    if not any(row["count"] for row in topic.weekly):
        return ""
    title = f"Papers per week in {topic.name}, last {len(topic.weekly)} weeks"
    return weekly_bar_chart(topic.weekly, title=title)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    try:
        page = newest_first_page(paper_list(), request.GET.get("cursor"), page_size=HOME_PAPERS)
    except BadPageRequest as error:
        return bad_request_page(request, error)
    topics = topic_list(sort="momentum")
    areas = sorted((t for t in topics if t.is_area), key=lambda t: t.position)
    trending = trending_topics(topics=topics, limit=TRENDING_SHOWN)
    series = _weekly_by_topic([t.id for t in trending])
    for topic in trending:
        topic.trend = trend(topic.momentum_summary)
        topic.spark = sparkline(series.get(topic.id, []))
    return render(
        request,
        "home.html",
        {"page": page, "trending": trending, "areas": areas, "topic_count": len(topics)},
    )


def _topic_papers_page(topic: Topic, cursor: str | None) -> PaperPage:
    """One newest-first page of the topic's papers (topic_papers_page: one range of the tag
    index, so a topic with 100,000 papers costs what one with 30 does)."""
    try:
        papers, next_cursor = topic_papers_page(
            topic=topic, cursor=cursor, size=paper_views.PAGE_SIZE
        )
    except InvalidCursor:
        raise paper_views.broken_cursor() from None
    return PaperPage(papers=decorate_rows(papers), next_cursor=next_cursor, is_first=not cursor)


@require_safe
def topic_detail(request: HttpRequest, slug: str) -> HttpResponse:
    topic = topic_get(slug=slug)
    if topic is None:
        raise Http404(f"There is no topic “{slug}”.")
    try:
        page = _topic_papers_page(topic, request.GET.get("cursor"))
    except BadPageRequest as error:
        return bad_request_page(request, error)
    try:
        paper_count = topic.momentum.total_count  # precomputed; counting would scan the topic
    except Topic.momentum.RelatedObjectDoesNotExist:
        paper_count = PaperTopic.objects.filter(topic=topic).count()
    if page.papers and paper_count < len(page.papers):
        paper_count = PaperTopic.objects.filter(topic=topic).count()  # stats not yet recomputed
    area = topic.area if topic.area_id else topic
    # A subtopic is listed as such; repeating it under "related" says nothing new.
    child_ids = {child.id for child in topic.active_children}
    topic.related = [t for t in topic.related if t.id not in child_ids]
    return render(
        request,
        "topics/topic_detail.html",
        {
            "topic": topic,
            "area": area,
            "page": page,
            "paper_count": paper_count,
            "chart": _chart(topic),
        },
    )


@require_safe
def area_detail(request: HttpRequest, slug: str) -> HttpResponse:
    area = topic_get(slug=slug)
    if area is None or not area.is_area:
        raise Http404(f"There is no area “{slug}”.")
    topics = [t for t in topic_list(area=slug) if t.id != area.id]
    for topic in topics:
        topic.trend = trend(topic.momentum_summary)
    children: dict[int, list[Topic]] = {}
    for topic in sorted(topics, key=lambda t: t.position):
        children.setdefault(topic.parent_id, []).append(topic)

    def tree(parent_id: int, depth: int = 0) -> list[dict]:
        if depth > 8:  # a cycle in bad data must not hang the page
            return []
        return [
            {"topic": t, "children": tree(t.id, depth + 1)} for t in children.get(parent_id, [])
        ]

    return render(
        request,
        "topics/area_detail.html",
        {
            "area": area,
            "tree": tree(area.id),
            "topic_count": len(topics),
            "chart": _chart(area),
        },
    )
