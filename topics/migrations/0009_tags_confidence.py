"""Each tag in a paper's tags_json gains ``confidence``, the number shown beside it
(topics.tagger.chips.tag_confidence): rebuild the tags_json of every tagged paper. The stored
chip-order probabilities are rounded to 4 places first, as scores are and as tagging now stores
them. Order and flags come out as they were: the display rule is the same."""

from django.db import migrations

from topics.migrations._chips import papers_arrange


def round_chip_orders(rows):
    for row in rows:
        if row.chip_order is not None:
            row.chip_order = round(float(row.chip_order), 4)


def rebuild(apps, schema_editor):
    PaperTopic = apps.get_model("topics", "PaperTopic")
    tagged = sorted(set(PaperTopic.objects.values_list("paper_id", flat=True)))
    papers_arrange(
        apps, tagged, chip_order=True, fields=("chip_order",), prepare=round_chip_orders, order_by=("rank",)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0008_chips_likely_only"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(rebuild, migrations.RunPython.noop)]
