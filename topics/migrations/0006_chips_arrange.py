"""Stored tags in the chips' display order (topics.tagger.chips), and each paper's tags_json.

Implied ancestors written before this carried a copy of their child's score; the tagger recorded
their own score in the evidence (``own_score``), which becomes the score again. Ancestors implied
by people's tags have no such record: ``manage.py tag_papers --all`` scores them."""

import json

from django.db import migrations

from topics.tagger.chips import ChipTag, chips_arrange

BATCH = 2000


def arrange(apps, schema_editor):
    Topic = apps.get_model("topics", "Topic")
    PaperTopic = apps.get_model("topics", "PaperTopic")
    Paper = apps.get_model("papers", "Paper")
    rows = list(Topic.objects.values_list("id", "slug", "name", "parent_id", "area__slug", "depth", "active"))
    parent_of = {pk: parent for pk, _, _, parent, *_ in rows}
    tree = {}
    for pk, slug, name, _, area, depth, active in rows:
        chain, node = [], parent_of.get(pk)
        while node is not None and len(chain) < 64:
            chain.append(node)
            node = parent_of.get(node)
        tree[pk] = (slug, name, area, tuple(chain), depth, active)
    paper_ids = list(Paper.objects.order_by("id").values_list("id", flat=True))
    for start in range(0, len(paper_ids), BATCH):
        chunk = paper_ids[start : start + BATCH]
        by_paper = {pk: [] for pk in chunk}
        for row in PaperTopic.objects.filter(paper_id__in=chunk):
            by_paper[row.paper_id].append(row)
        tags, papers = [], []
        for pk, mine in by_paper.items():
            for row in mine:
                own = (row.evidence or {}).get("own_score") if isinstance(row.evidence, dict) else None
                if isinstance(own, (int, float)) and own < row.score:
                    row.score = round(float(own), 4)
            live = {r.topic_id: r for r in mine if tree.get(r.topic_id, (0,) * 6)[5]}
            placed = chips_arrange(
                [
                    ChipTag(t, tree[t][3], not tree[t][3], r.score, tree[t][4])
                    for t, r in live.items()
                ]
            )
            out = []
            for rank, place in enumerate(placed, start=1):
                row = live[place.key]
                row.rank, row.shown, row.implied = rank, place.shown, place.implied
                slug, name, area = tree[row.topic_id][:3]
                out.append(
                    {"slug": slug, "name": name, "area": area, "score": row.score, "rank": rank,
                     "source": row.source, "shown": place.shown, "implied": place.implied}
                )  # fmt: skip
            for rank, row in enumerate((r for r in mine if r.topic_id not in live), len(out) + 1):
                row.rank, row.shown, row.implied = rank, False, False
            tags += mine
            text = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
            papers.append(Paper(pk=pk, tags_json=text))
        PaperTopic.objects.bulk_update(tags, ["score", "rank", "shown", "implied"], batch_size=1000)
        Paper.objects.bulk_update(papers, ["tags_json"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0005_chips"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(arrange, migrations.RunPython.noop)]
