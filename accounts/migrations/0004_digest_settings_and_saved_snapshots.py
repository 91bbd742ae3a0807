"""Existing accounts get what new ones get: digest settings whose watermark is now (so their
first digest holds only papers that arrive from here on), and each saved item remembers the
paper as it is today, so that only later changes show as alerts."""

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def forwards(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    DigestSettings = apps.get_model("accounts", "DigestSettings")
    ListItem = apps.get_model("accounts", "ListItem")
    now = timezone.now()
    DigestSettings.objects.bulk_create(
        [
            DigestSettings(user_id=user_id, covered_until=now)
            for user_id in User.objects.filter(digest_settings__isnull=True).values_list(
                "id", flat=True
            )
        ],
        batch_size=500,
    )
    items = ListItem.objects.filter(paper__isnull=False, saved_version__isnull=True)
    for item in items.select_related("paper").iterator(chunk_size=500):
        item.saved_version = item.paper.version
        item.saved_journal_ref = item.paper.journal_ref
        item.saved_doi = item.paper.doi
        item.save(update_fields=["saved_version", "saved_journal_ref", "saved_doi"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_digests_alerts_private_feeds")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
