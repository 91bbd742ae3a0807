"""Stored tags in the chips' display order (topics.tagger.chips), and each paper's tags_json.

Implied ancestors written before this carried a copy of their child's score; the tagger recorded
their own score in the evidence (``own_score``), which becomes the score again. Ancestors implied
by people's tags have no such record: ``manage.py tag_papers --all`` scores them."""

from django.db import migrations

from topics.migrations._chips import papers_arrange


def own_scores(mine):
    for row in mine:
        own = (row.evidence or {}).get("own_score") if isinstance(row.evidence, dict) else None
        if isinstance(own, (int, float)) and own < row.score:
            row.score = round(float(own), 4)


def arrange(apps, schema_editor):
    Paper = apps.get_model("papers", "Paper")
    paper_ids = list(Paper.objects.order_by("id").values_list("id", flat=True))
    papers_arrange(apps, paper_ids, chip_order=False, fields=("score",), prepare=own_scores)


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0005_chips"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(arrange, migrations.RunPython.noop)]
