"""A paper's chips as stored: ``rank``, ``shown`` and ``implied`` on its PaperTopic rows and the
API's JSON of its tags on ``Paper.tags_json``, both from the one display rule
(``topics.tagger.chips.chips_arrange``). Whatever writes a paper's tags calls :func:`tags_arrange`
before saving them or :func:`paper_chips_refresh` after; readers only read."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction

from papers.models import Paper
from topics.models import PaperTopic, Topic
from topics.tagger.chips import ChipTag, chips_arrange

REFRESH_BATCH = 500
# What tags_arrange reads of a stored tag.
ARRANGE_FIELDS = (
    *("id", "paper_id", "topic_id", "score", "chip_order"),
    *("rank", "source", "shown", "implied"),
)


@dataclass(frozen=True)
class TopicNode:
    slug: str
    name: str
    area: str | None  # the area's slug (the topic's own for an area)
    ancestors: tuple[int, ...]  # parent first, area last
    depth: int
    active: bool

    @property
    def is_area(self) -> bool:
        return not self.ancestors


def topic_tree() -> dict[int, TopicNode]:
    """Every topic by id with what the display rule and the tags JSON need (one query)."""
    rows = list(
        Topic.objects.values_list(
            "id", "slug", "name", "parent_id", "area__slug", "depth", "active"
        )
    )
    parent_of = {pk: parent for pk, _, _, parent, *_ in rows}
    tree = {}
    for pk, slug, name, _, area, depth, active in rows:
        chain: list[int] = []
        node = parent_of.get(pk)
        while node is not None and len(chain) < 64:  # 64: a cycle cannot hang us
            chain.append(node)
            node = parent_of.get(node)
        tree[pk] = TopicNode(slug, name, area, tuple(chain), depth, active)
    return tree


# The chip order of a model tag the chip-order model did not rank, on a paper whose chips it did
# rank: the tagger ranks every chip, so such a tag was not one (an implied ancestor, an area)
# when the paper was tagged. A taxonomy edit can make it specific (its child moved elsewhere);
# until the paper is tagged again it stays a tag, below the bar, rather than become a chip the
# model never chose. People's and editors' tags are never ranked: they keep their place.
UNRANKED = 0.0


def _unranked_model_tag(row: PaperTopic) -> bool:
    return row.chip_order is None and row.source == PaperTopic.Source.MODEL


def tags_arrange(rows: Sequence[PaperTopic], tree: dict[int, TopicNode]) -> list[PaperTopic]:
    """Set ``rank``, ``shown`` and ``implied`` on one paper's rows (in memory, nothing saved) and
    return the rows of active topics in display order. Rows of retired topics go last, unshown."""
    live = sorted(
        (r for r in rows if r.topic_id in tree and tree[r.topic_id].active), key=lambda r: r.rank
    )
    by_topic = {r.topic_id: r for r in live}
    ranked = any(r.chip_order is not None for r in live)
    placed = chips_arrange(
        [
            ChipTag(
                key=r.topic_id,
                ancestors=tree[r.topic_id].ancestors,
                is_area=tree[r.topic_id].is_area,
                score=r.score,
                depth=tree[r.topic_id].depth,
                order=UNRANKED if ranked and _unranked_model_tag(r) else r.chip_order,
            )
            for r in live
        ]
    )
    ordered = []
    for rank, place in enumerate(placed, start=1):
        row = by_topic[place.key]  # type: ignore[index]  # the keys are topic ids
        row.rank, row.shown, row.implied = rank, place.shown, place.implied
        ordered.append(row)
    retired = [r for r in rows if r.topic_id not in by_topic]
    for rank, row in enumerate(retired, start=len(ordered) + 1):
        row.rank, row.shown, row.implied = rank, False, False
    return ordered


# The fields of one tag in the API (papers.serializers.TagOutput), in its order.
TAG_FIELDS = ("slug", "name", "area", "score", "confidence", "rank", "source", "shown", "implied")


def tags_encode(entries: Iterable[Sequence]) -> str:
    """JSON text of a paper's tags from their values in TAG_FIELDS order, display order."""
    return json.dumps(
        [dict(zip(TAG_FIELDS, entry, strict=True)) for entry in entries],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def tags_json(ordered: Iterable[PaperTopic], tree: dict[int, TopicNode]) -> str:
    """The API's ``tags`` of one paper (papers.serializers.TagOutput's shape) as JSON text."""
    return tags_encode(
        (
            tree[r.topic_id].slug,
            tree[r.topic_id].name,
            tree[r.topic_id].area,
            r.score,
            r.confidence,
            r.rank,
            r.source,
            r.shown,
            r.implied,
        )
        for r in ordered
    )


def paper_chips_refresh(
    *, paper_ids: Iterable[int], tree: dict[int, TopicNode] | None = None
) -> int:
    """Re-arrange the stored tags of these papers and rebuild their ``tags_json`` (after
    feedback, an accepted proposal, a renamed or retired topic); returns papers refreshed."""
    ids = sorted(set(paper_ids))
    tree = tree if tree is not None else topic_tree()
    for start in range(0, len(ids), REFRESH_BATCH):
        chunk = ids[start : start + REFRESH_BATCH]
        by_paper: dict[int, list[PaperTopic]] = {pk: [] for pk in chunk}
        for row in PaperTopic.objects.filter(paper_id__in=chunk).only(*ARRANGE_FIELDS):
            by_paper[row.paper_id].append(row)
        changed, papers = [], []
        for pk, rows in by_paper.items():
            before = {r.pk: (r.rank, r.shown, r.implied) for r in rows}
            ordered = tags_arrange(rows, tree)
            changed += [r for r in rows if before[r.pk] != (r.rank, r.shown, r.implied)]
            papers.append(Paper(pk=pk, tags_json=tags_json(ordered, tree)))
        with transaction.atomic():
            PaperTopic.objects.bulk_update(changed, ["rank", "shown", "implied"], batch_size=500)
            Paper.objects.bulk_update(papers, ["tags_json"], batch_size=500)
    return len(ids)
