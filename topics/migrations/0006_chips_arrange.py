"""Stored tags in the chips' display order (topics.tagger.chips), and each paper's tags_json.

Implied ancestors written before this carried a copy of their child's score; the tagger recorded
their own score in the evidence (``own_score``), which becomes the score again. Ancestors implied
by people's tags have no such record: ``manage.py tag_papers --all`` scores them."""

from django.db import migrations

from topics.migrations._chips import paper_arrange, topic_tree

BATCH = 2000


def arrange(apps, schema_editor):
    Topic = apps.get_model("topics", "Topic")
    PaperTopic = apps.get_model("topics", "PaperTopic")
    Paper = apps.get_model("papers", "Paper")
    tree = topic_tree(Topic)
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
            papers.append(Paper(pk=pk, tags_json=paper_arrange(mine, tree, chip_order=False)))
            tags += mine
        PaperTopic.objects.bulk_update(tags, ["score", "rank", "shown", "implied"], batch_size=1000)
        Paper.objects.bulk_update(papers, ["tags_json"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0005_chips"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(arrange, migrations.RunPython.noop)]
