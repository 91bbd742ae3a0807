"""What the chips' data migrations share (the loader skips modules named with "_"): the topic
tree as the historical models hold it, one paper's tags re-arranged by the display rule, and
the batched pass over many papers that saves them."""

import json

from topics.tagger.chips import ChipTag, chips_arrange, tag_confidence


def topic_tree(Topic) -> dict:
    """topic id -> (slug, name, area slug, ancestor ids parent first, depth, active)."""
    rows = list(Topic.objects.values_list("id", "slug", "name", "parent_id", "area__slug", "depth", "active"))
    parent_of = {pk: parent for pk, _, _, parent, *_ in rows}
    tree = {}
    for pk, slug, name, _, area, depth, active in rows:
        chain, node = [], parent_of.get(pk)
        while node is not None and len(chain) < 64:
            chain.append(node)
            node = parent_of.get(node)
        tree[pk] = (slug, name, area, tuple(chain), depth, active)
    return tree


def paper_arrange(mine: list, tree: dict, *, chip_order: bool) -> str:
    """Set rank, shown and implied on one paper's PaperTopic rows (with ``chip_order``, the
    chips in the stored chip-order model's order); returns the paper's tags_json."""
    live = {r.topic_id: r for r in mine if tree.get(r.topic_id, (0,) * 6)[5]}
    placed = chips_arrange(
        [
            ChipTag(t, tree[t][3], not tree[t][3], r.score, tree[t][4], r.chip_order if chip_order else None)
            for t, r in live.items()
        ]
    )
    out = []
    for rank, place in enumerate(placed, start=1):
        row = live[place.key]
        row.rank, row.shown, row.implied = rank, place.shown, place.implied
        slug, name, area = tree[row.topic_id][:3]
        confidence = tag_confidence(row.score, row.chip_order if chip_order else None)
        out.append(
            {"slug": slug, "name": name, "area": area, "score": row.score, "confidence": confidence,
             "rank": rank, "source": row.source, "shown": place.shown, "implied": place.implied}
        )  # fmt: skip
    for rank, row in enumerate((r for r in mine if r.topic_id not in live), len(out) + 1):
        row.rank, row.shown, row.implied = rank, False, False
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


BATCH = 2000


def papers_arrange(apps, paper_ids: list, *, chip_order: bool, fields=(), prepare=None, order_by=()):
    """Re-arrange the stored tags of these papers (``BATCH`` at a time) and save their rank, shown,
    implied (and ``fields``) and tags_json; ``prepare(rows)`` first amends one paper's rows,
    ``order_by`` orders them as read (ties keep that order)."""
    PaperTopic = apps.get_model("topics", "PaperTopic")
    Paper = apps.get_model("papers", "Paper")
    tree = topic_tree(apps.get_model("topics", "Topic")) if paper_ids else {}
    for start in range(0, len(paper_ids), BATCH):
        chunk = paper_ids[start : start + BATCH]
        by_paper = {pk: [] for pk in chunk}
        rows = PaperTopic.objects.filter(paper_id__in=chunk)
        for row in rows.order_by(*order_by) if order_by else rows:
            by_paper[row.paper_id].append(row)
        tags, papers = [], []
        for pk, mine in by_paper.items():
            if prepare is not None:
                prepare(mine)
            papers.append(Paper(pk=pk, tags_json=paper_arrange(mine, tree, chip_order=chip_order)))
            tags += mine
        PaperTopic.objects.bulk_update(tags, [*fields, "rank", "shown", "implied"], batch_size=1000)
        Paper.objects.bulk_update(papers, ["tags_json"], batch_size=1000)
