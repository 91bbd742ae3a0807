"""Chips after the first are shown only when the chip-order model thinks them likely
(topics.tagger.chips.MIN_CHIP_ORDER): re-arrange the stored tags of the papers that show a chip
below it, and their tags_json. Papers without such a chip keep their order and flags."""

from django.db import migrations

from topics.migrations._chips import paper_arrange, topic_tree
from topics.tagger.chips import MIN_CHIP_ORDER

BATCH = 2000


def arrange(apps, schema_editor):
    Topic = apps.get_model("topics", "Topic")
    PaperTopic = apps.get_model("topics", "PaperTopic")
    Paper = apps.get_model("papers", "Paper")
    shown_below = PaperTopic.objects.filter(shown=True, chip_order__lt=MIN_CHIP_ORDER).exclude(rank=1)
    affected = sorted(set(shown_below.values_list("paper_id", flat=True)))
    tree = topic_tree(Topic) if affected else {}
    for start in range(0, len(affected), BATCH):
        chunk = affected[start : start + BATCH]
        by_paper = {pk: [] for pk in chunk}
        for row in PaperTopic.objects.filter(paper_id__in=chunk).order_by("rank"):
            by_paper[row.paper_id].append(row)
        tags, papers = [], []
        for pk, mine in by_paper.items():
            papers.append(Paper(pk=pk, tags_json=paper_arrange(mine, tree, chip_order=True)))
            tags += mine
        PaperTopic.objects.bulk_update(tags, ["rank", "shown", "implied"], batch_size=1000)
        Paper.objects.bulk_update(papers, ["tags_json"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0007_papertopic_chip_order"),
        ("papers", "0005_chips"),
    ]

    operations = [migrations.RunPython(arrange, migrations.RunPython.noop)]
