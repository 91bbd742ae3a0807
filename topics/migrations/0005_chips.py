# PaperTopic.shown and PaperTopic.implied (topics.tagger.chips). Added by hand-written SQL with
# a constant default: SQLite can ADD such a column in place, where Django's AddField of a NOT
# NULL column would rebuild the table and lose its triggers (see 0002); PostgreSQL adds it
# without rewriting the table either way.

from django.db import migrations, models

COLUMNS = ("shown", "implied")


def add_columns(apps, schema_editor):
    false = "0" if schema_editor.connection.vendor == "sqlite" else "false"
    for column in COLUMNS:
        schema_editor.execute(
            f"ALTER TABLE topics_papertopic ADD COLUMN {column} boolean NOT NULL DEFAULT {false}"
        )


def drop_columns(apps, schema_editor):
    for column in COLUMNS:
        schema_editor.execute(f"ALTER TABLE topics_papertopic DROP COLUMN {column}")


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0004_momentum_window_start"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_columns, drop_columns)],
            state_operations=[
                migrations.AddField(
                    model_name="papertopic",
                    name="implied",
                    field=models.BooleanField(default=False),
                ),
                migrations.AddField(
                    model_name="papertopic",
                    name="shown",
                    field=models.BooleanField(default=False),
                ),
            ],
        ),
    ]
