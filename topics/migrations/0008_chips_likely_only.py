"""Chips after the first are shown only when the chip-order model thinks them likely
(topics.tagger.chips.MIN_CHIP_ORDER): re-arrange the stored tags of the papers that show a chip
below it, and their tags_json. Papers without such a chip keep their order and flags."""

from django.db import migrations

from topics.migrations._chips import papers_arrange
from topics.tagger.chips import MIN_CHIP_ORDER


def arrange(apps, schema_editor):
    PaperTopic = apps.get_model("topics", "PaperTopic")
    shown_below = PaperTopic.objects.filter(shown=True, chip_order__lt=MIN_CHIP_ORDER).exclude(rank=1)
    affected = sorted(set(shown_below.values_list("paper_id", flat=True)))
    papers_arrange(apps, affected, chip_order=True, order_by=("rank",))


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0007_papertopic_chip_order"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(arrange, migrations.RunPython.noop)]
