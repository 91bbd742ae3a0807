"""The personal feed: followed topics' papers, hiding and following."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.validators import slug_re
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts import selectors
from accounts.errors import AccountsError
from accounts.services import follows as follow_services
from accounts.views.responses import done, failed
from topics.models import Topic

# --- feed ------------------------------------------------------------------------------------


@login_required
@require_GET
def feed(request: HttpRequest) -> HttpResponse:
    from papers.views import BadPageRequest, bad_request_page, newest_first_page

    follows = selectors.follows_for_user(user=request.user)
    topic_ids = {follow.topic_id for follow in follows}
    current = None
    slug = request.GET.get("topic", "")
    if slug:
        current = next((f.topic for f in follows if f.topic.slug == slug), None)
        if current is None and slug_re.match(slug):  # a NUL is a 500 on PostgreSQL
            current = Topic.objects.filter(slug=slug[:100], active=True).first()
        if current is None:
            raise Http404("No such topic.")
        topic_ids = {current.pk}
    try:
        page = newest_first_page(
            selectors.feed_for_user(user=request.user, topic_ids=topic_ids),
            request.GET.get("cursor") or None,
        )
    except BadPageRequest as error:
        return bad_request_page(request, error)
    selectors.feed_decorate(user=request.user, papers=page.papers, topic_ids=topic_ids)
    return render(
        request,
        "accounts/feed.html",
        {
            "page": page,
            "follows": follows,
            "current_topic": current,
            "base_query": f"topic={current.slug}" if current else "",
            "default_list_id": selectors.default_list_id(user=request.user),
        },
    )


@login_required
@require_POST
def feed_hide(request: HttpRequest) -> HttpResponse:
    try:
        follow_services.hidden_create(user=request.user, arxiv_id=request.POST.get("arxiv_id", ""))
    except AccountsError as error:
        return failed(request, error, reverse("accounts-feed"))
    return done(request, "Hidden: it will not show in your feed again.", reverse("accounts-feed"))


@login_required
@require_POST
def feed_unhide(request: HttpRequest) -> HttpResponse:
    try:
        follow_services.hidden_delete(user=request.user, arxiv_id=request.POST.get("arxiv_id", ""))
    except AccountsError as error:
        return failed(request, error, reverse("accounts-feed"))
    return done(request, "Shown in your feed again.", reverse("accounts-feed"))


@login_required
@require_POST
def follow_toggle(request: HttpRequest, slug: str) -> HttpResponse:
    default = (
        reverse("topic-detail", args=[slug]) if _topic_exists(slug) else reverse("accounts-feed")
    )
    try:
        if request.POST.get("action") == "unfollow":
            follow_services.follow_delete(user=request.user, topic_slug=slug)
            return done(request, "Unfollowed.", default, following=False)
        follow, _ = follow_services.follow_create(user=request.user, topic_slug=slug)
    except AccountsError as error:
        return failed(request, error, default)
    return done(
        request, f"Following {follow.topic.name}: its new papers appear in your feed.", default,
        following=True,
    )  # fmt: skip


def _topic_exists(slug: str) -> bool:
    return Topic.objects.filter(slug=slug, active=True).exists()
