"""Reads of the accounts app. Everything personal is filtered by its owner here, so a view can
never reach another person's rows by forgetting to."""

from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Prefetch, QuerySet

from accounts.errors import NotFoundError
from accounts.models import ApiToken, Deletion, Follow, Hidden, Library, ListItem, ReadingList
from papers.models import Paper
from papers.selectors import papers_by_ids, tags_prefetch
from topics.models import PaperTopic


def library_version(*, user) -> int:
    return Library.objects.filter(user=user).values_list("version", flat=True).first() or 0


# --- tokens ----------------------------------------------------------------------------------


def token_get_by_hash(*, key_hash: str) -> ApiToken | None:
    return ApiToken.objects.select_related("user").filter(key_hash=key_hash).first()


def tokens_for_user(*, user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at", "-id")


# --- follows and feed ------------------------------------------------------------------------


def follows_for_user(*, user) -> list[Follow]:
    return list(
        Follow.objects.filter(user=user, topic__active=True)
        .select_related("topic", "topic__area")
        .order_by("topic__name", "id")
    )


def followed_topic_ids(*, user) -> set[int]:
    return set(
        Follow.objects.filter(user=user, topic__active=True).values_list("topic_id", flat=True)
    )


def is_following(*, user, topic) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return Follow.objects.filter(user=user, topic=topic).exists()


def feed_for_user(*, user, topic_ids: set[int] | None = None) -> QuerySet[Paper]:
    """Papers tagged with a followed topic (or with `topic_ids`), minus the hidden ones.

    Ordered by the caller's paginator (newest first); tags are prefetched best first.
    """
    followed = topic_ids if topic_ids is not None else followed_topic_ids(user=user)
    tagged = PaperTopic.objects.filter(paper=OuterRef("pk"), topic_id__in=followed)
    hidden = Hidden.objects.filter(user=user, paper=OuterRef("pk"))
    return (
        Paper.objects.filter(Exists(tagged))
        .exclude(Exists(hidden))
        .prefetch_related(tags_prefetch())
    )


def feed_decorate(*, user, papers: list[Paper], topic_ids: set[int]) -> list[Paper]:
    """Mark each paper with the followed tags that brought it (`matched`) and `saved`."""
    saved = saved_arxiv_ids(user=user, arxiv_ids=[p.arxiv_id for p in papers])
    for paper in papers:
        paper.matched = [tag for tag in paper.tags.all() if tag.topic_id in topic_ids]
        paper.saved = paper.arxiv_id in saved
    return papers


def hidden_for_user(*, user) -> QuerySet[Hidden]:
    return Hidden.objects.filter(user=user).select_related("paper").order_by("-created_at", "-id")


# --- lists -----------------------------------------------------------------------------------


def _lists(*, user) -> QuerySet[ReadingList]:
    return ReadingList.objects.filter(user=user).annotate(item_count=Count("items"))


def reading_lists_for_user(*, user, since: int | None = None) -> list[ReadingList]:
    lists = _lists(user=user)
    if since is not None:
        lists = lists.filter(version__gt=since)
    return list(lists.order_by("position", "id"))


def reading_list_get(*, user, list_id) -> ReadingList:
    reading_list = _lists(user=user).filter(pk=list_id).first()
    if reading_list is None:
        raise NotFoundError(f"No list {list_id}.")
    return reading_list


def default_list_id(*, user) -> int | None:
    return (
        ReadingList.objects.filter(user=user, is_default=True).values_list("id", flat=True).first()
    )


def list_items(
    *, reading_list: ReadingList, since: int | None = None, read_state: str | None = None
) -> QuerySet[ListItem]:
    items = ListItem.objects.filter(reading_list=reading_list).select_related("paper")
    if since is not None:
        items = items.filter(version__gt=since)
    if read_state:
        items = items.filter(read_state=read_state)
    return items.prefetch_related(Prefetch("paper__tags", queryset=tags_prefetch().queryset))


def list_item_get(*, reading_list: ReadingList, arxiv_id: str) -> ListItem:
    item = list_items(reading_list=reading_list).filter(arxiv_id=arxiv_id).first()
    if item is None:
        raise NotFoundError(f"{arxiv_id} is not in the list {reading_list.name!r}.")
    attach_papers([item])
    return item


def attach_papers(items: list[ListItem]) -> list[ListItem]:
    """Give items saved before their paper arrived the paper, if it has arrived since (in memory;
    services.lists.list_items_link_papers makes it stick)."""
    missing = [item.arxiv_id for item in items if item.paper_id is None]
    if missing:
        found = papers_by_ids(arxiv_ids=missing)
        for item in items:
            if item.paper_id is None and item.arxiv_id in found:
                item.paper = found[item.arxiv_id]
    return items


def deleted_since(*, user, kind: str, since: int, list_id: int | None = None) -> list:
    rows = Deletion.objects.filter(user=user, kind=kind, version__gt=since)
    if kind == Deletion.Kind.LIST:
        return sorted(set(rows.values_list("list_id", flat=True)))
    items = rows.filter(list_id=list_id) if list_id is not None else rows.none()
    return sorted(set(items.values_list("arxiv_id", flat=True)))


def saved_arxiv_ids(*, user, arxiv_ids: list[str]) -> set[str]:
    return set(
        ListItem.objects.filter(reading_list__user=user, arxiv_id__in=arxiv_ids).values_list(
            "arxiv_id", flat=True
        )
    )


def lists_containing(*, user, arxiv_id: str) -> set[int]:
    return set(
        ListItem.objects.filter(reading_list__user=user, arxiv_id=arxiv_id).values_list(
            "reading_list_id", flat=True
        )
    )
