"""Accounts made before this app existed get what new ones get from the post_save signal: a
library and a default "Reading list"."""

from django.conf import settings
from django.db import migrations


def setup_existing_users(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Library = apps.get_model("accounts", "Library")
    ReadingList = apps.get_model("accounts", "ReadingList")
    for user in User.objects.filter(library__isnull=True).iterator():
        Library.objects.create(user=user, version=1)
        if not ReadingList.objects.filter(user=user, is_default=True).exists():
            ReadingList.objects.create(user=user, name="Reading list", is_default=True, version=1)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(setup_existing_users, migrations.RunPython.noop)]
