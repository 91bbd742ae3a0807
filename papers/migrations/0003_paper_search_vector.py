# Search and newest-first indexes that only PostgreSQL gets (see papers/search.py).
#
# - papers_paper.search_vector: the weighted title (A) + abstract (B) tsvector as a stored
#   generated column, with a GIN index. Stored rather than an expression index so that a query
#   for a common word can walk the newest-first index and test each row's ready-made vector,
#   instead of re-parsing the abstract of every row it looks at.
# - paper_newest_nl_idx: (announced DESC NULLS LAST, id DESC), the order of the pages (home,
#   search, feeds). PostgreSQL's DESC defaults to NULLS FIRST, so paper_newest_idx, which the
#   API's cursor pagination uses, cannot serve it; on SQLite NULLs already sort last under DESC
#   and paper_newest_idx serves both.
#
# Neither is in the model state: the column is not a model field (the ORM never writes it) and
# the index cannot be declared portably. On a large table the column is a table rewrite under
# an exclusive lock (about a minute per million papers).

from django.db import migrations

SEARCH_VECTOR = (
    "setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || "
    "setweight(to_tsvector('english'::regconfig, coalesce(abstract, '')), 'B')"
)

FORWARDS = [
    f"ALTER TABLE papers_paper ADD COLUMN search_vector tsvector "
    f"GENERATED ALWAYS AS ({SEARCH_VECTOR}) STORED",
    "CREATE INDEX paper_search_idx ON papers_paper USING gin (search_vector)",
    "CREATE INDEX paper_newest_nl_idx ON papers_paper (announced DESC NULLS LAST, id DESC)",
]
BACKWARDS = [
    "DROP INDEX IF EXISTS paper_newest_nl_idx",
    "DROP INDEX IF EXISTS paper_search_idx",
    "ALTER TABLE papers_paper DROP COLUMN IF EXISTS search_vector",
]


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in FORWARDS:
            schema_editor.execute(statement)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARDS:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0002_paper_tagged_at"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
