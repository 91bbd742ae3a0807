# The full-text index of ask_passage, per database (ask/selectors.py reads it):
#
# - SQLite: an FTS5 table with external content (the rows stay in ask_passage; the index holds only
#   the terms), porter-stemmed, kept in step by triggers whoever writes the rows.
#   https://www.sqlite.org/fts5.html#external_content_tables
# - PostgreSQL: a stored generated tsvector column (text weighted A, the paper's title C) with a
#   GIN index, like papers_paper.search_vector (papers migration 0003).
#
# Neither is in the model state: the ORM never writes them.

from django.db import migrations

SQLITE_FORWARDS = [
    "CREATE VIRTUAL TABLE ask_passage_fts USING fts5(text, title, content='ask_passage', "
    "content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER ask_passage_fts_ai AFTER INSERT ON ask_passage BEGIN "
    "INSERT INTO ask_passage_fts(rowid, text, title) VALUES (new.id, new.text, new.title); END",
    "CREATE TRIGGER ask_passage_fts_ad AFTER DELETE ON ask_passage BEGIN "
    "INSERT INTO ask_passage_fts(ask_passage_fts, rowid, text, title) "
    "VALUES ('delete', old.id, old.text, old.title); END",
    "CREATE TRIGGER ask_passage_fts_au AFTER UPDATE ON ask_passage BEGIN "
    "INSERT INTO ask_passage_fts(ask_passage_fts, rowid, text, title) "
    "VALUES ('delete', old.id, old.text, old.title); "
    "INSERT INTO ask_passage_fts(rowid, text, title) VALUES (new.id, new.text, new.title); END",
]
SQLITE_BACKWARDS = [
    "DROP TRIGGER IF EXISTS ask_passage_fts_au",
    "DROP TRIGGER IF EXISTS ask_passage_fts_ad",
    "DROP TRIGGER IF EXISTS ask_passage_fts_ai",
    "DROP TABLE IF EXISTS ask_passage_fts",
]
POSTGRES_VECTOR = (
    "setweight(to_tsvector('english'::regconfig, coalesce(text, '')), 'A') || "
    "setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'C')"
)
POSTGRES_FORWARDS = [
    f"ALTER TABLE ask_passage ADD COLUMN search_vector tsvector "
    f"GENERATED ALWAYS AS ({POSTGRES_VECTOR}) STORED",
    "CREATE INDEX ask_passage_search_idx ON ask_passage USING gin (search_vector)",
]
POSTGRES_BACKWARDS = [
    "DROP INDEX IF EXISTS ask_passage_search_idx",
    "ALTER TABLE ask_passage DROP COLUMN IF EXISTS search_vector",
]


def _run(schema_editor, statements: dict[str, list[str]]) -> None:
    for statement in statements.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


def forwards(apps, schema_editor):
    _run(schema_editor, {"sqlite": SQLITE_FORWARDS, "postgresql": POSTGRES_FORWARDS})


def backwards(apps, schema_editor):
    _run(schema_editor, {"sqlite": SQLITE_BACKWARDS, "postgresql": POSTGRES_BACKWARDS})


class Migration(migrations.Migration):
    dependencies = [("ask", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
