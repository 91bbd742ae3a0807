"""After sign-up: pick topics, so the first feed is not empty.

Areas, each with its rising topics (the same choice as home's trending), and a search box over
every topic; ticking boxes and pressing one button follows them all. A plain GET form and a
plain POST form: it works without scripts.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts import selectors
from accounts.errors import AccountsError
from accounts.services import follows as follow_services
from topics.selectors import topic_list, trending_topics

TOPICS_PER_AREA = 6
SEARCH_RESULTS = 24
QUERY_MAX_LENGTH = 100


def _areas_with_topics(topics) -> list[dict]:
    areas = sorted((t for t in topics if t.is_area), key=lambda t: t.position)
    groups = []
    for area in areas:
        own = [t for t in topics if t.area_id == area.id and t.id != area.id]
        picks = trending_topics(topics=own, limit=TOPICS_PER_AREA)
        if len(picks) < TOPICS_PER_AREA:  # a quiet area still offers its biggest topics
            picked = {t.id for t in picks}
            biggest = [t for t in own if t.id not in picked and t.momentum_summary]
            biggest.sort(key=lambda t: -t.momentum_summary["recent_count"])
            picks += biggest[: TOPICS_PER_AREA - len(picks)]
        if picks:
            groups.append({"area": area, "topics": picks})
    return groups


@login_required
@require_http_methods(["GET", "POST"])
def welcome(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and "find" in request.POST:
        # The search button of the one form: search, keeping what is ticked so far.
        return _page(request, request.POST.get("q", ""), set(request.POST.getlist("topic")))
    if request.method == "POST":
        followed, errors = 0, []
        for slug in request.POST.getlist("topic")[:50]:
            try:
                _, created = follow_services.follow_create(user=request.user, topic_slug=slug)
            except AccountsError as error:
                errors.append(str(error))
                continue
            followed += created
        for error in dict.fromkeys(errors):
            messages.error(request, error)
        if followed:
            messages.success(
                request,
                f"Following {followed} topic{'s' if followed != 1 else ''}: here are their papers.",
            )
            return redirect("accounts-feed")
        if not errors:
            messages.error(request, "Tick at least one topic, or skip to your feed.")
        return redirect("accounts-welcome")
    return _page(request, request.GET.get("q", ""), set())


def _page(request: HttpRequest, query: str, ticked: set[str]) -> HttpResponse:
    query = " ".join(query.split())[:QUERY_MAX_LENGTH]
    following = {f.topic_id for f in selectors.follows_for_user(user=request.user)}
    topics = topic_list(sort="momentum")
    matches = (
        [t for t in topic_list(query=query, sort="momentum") if not t.is_area][:SEARCH_RESULTS]
        if query
        else []
    )
    return render(
        request,
        "accounts/welcome.html",
        {
            "groups": _areas_with_topics(topics),
            "query": query,
            "matches": matches,
            "following": following,
            "ticked": ticked,
        },
    )
