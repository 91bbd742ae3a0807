# PaperTopic.announced: a copy of the paper's announcement date, so that "the newest papers of a
# topic" is one index range scan on (topic, announced, paper) instead of a join that reads every
# paper of the topic. The database keeps the copy right, whoever writes the rows (the tagger's
# bulk_create, feedback, the admin, raw SQL): a trigger fills it when a tag is written, another
# copies a paper's new date to its tags. Nothing in the application writes it.
#
# The index is declared per database because the order differs: PostgreSQL's DESC puts NULLs
# first, so it needs NULLS LAST spelled out (pages list undated papers last); SQLite cannot say
# NULLS LAST in an index and does not need to. It is not in the model state for that reason.
#
# On a large database the backfill rewrites every tag (76 s for 3.8 million on two cores, the
# table locked): run VACUUM ANALYZE topics_papertopic afterwards; REINDEX TABLE shrinks its
# indexes back, which the rewrite left twice their size.
#
# SQLite forgets a table's triggers when Django rebuilds the table (an AlterField there copies it
# into a new one): topics/tests/test_papertopic_announced.py fails if that ever happens, and the
# fix is a migration that runs SQLITE_TRIGGERS again.

from django.db import migrations, models

POSTGRES_FORWARDS = [
    """
    UPDATE topics_papertopic AS t SET announced = p.announced
    FROM papers_paper AS p WHERE p.id = t.paper_id AND t.announced IS DISTINCT FROM p.announced
    """,
    """
    CREATE FUNCTION topics_papertopic_copy_announced() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        SELECT p.announced INTO NEW.announced FROM papers_paper AS p WHERE p.id = NEW.paper_id;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE TRIGGER topics_papertopic_copy_announced
    BEFORE INSERT OR UPDATE OF paper_id, announced ON topics_papertopic
    FOR EACH ROW EXECUTE FUNCTION topics_papertopic_copy_announced()
    """,
    """
    CREATE FUNCTION papers_paper_announced_to_tags() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE topics_papertopic SET announced = NEW.announced
        WHERE paper_id = NEW.id AND announced IS DISTINCT FROM NEW.announced;
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE TRIGGER papers_paper_announced_to_tags
    AFTER UPDATE OF announced ON papers_paper
    FOR EACH ROW WHEN (OLD.announced IS DISTINCT FROM NEW.announced)
    EXECUTE FUNCTION papers_paper_announced_to_tags()
    """,
    # Foreign keys are checked at commit, so a fixture may bring a tag before its paper.
    """
    CREATE TRIGGER papers_paper_announced_to_new_tags
    AFTER INSERT ON papers_paper
    FOR EACH ROW EXECUTE FUNCTION papers_paper_announced_to_tags()
    """,
    """
    CREATE INDEX papertopic_topic_newest_idx
    ON topics_papertopic (topic_id, announced DESC NULLS LAST, paper_id DESC)
    """,
    # A paper has about four tags. ANALYZE's sample sees a paper's tags side by side and guesses
    # seven times too few distinct papers, so "the tags of these 2,000 papers" is planned for
    # 50,000 rows: a needlessly costly plan, and one over the JIT threshold (+12 ms a query).
    "ALTER TABLE topics_papertopic ALTER COLUMN paper_id SET (n_distinct = -0.25)",
]
POSTGRES_BACKWARDS = [
    "ALTER TABLE topics_papertopic ALTER COLUMN paper_id RESET (n_distinct)",
    "DROP INDEX IF EXISTS papertopic_topic_newest_idx",
    "DROP TRIGGER IF EXISTS papers_paper_announced_to_new_tags ON papers_paper",
    "DROP TRIGGER IF EXISTS papers_paper_announced_to_tags ON papers_paper",
    "DROP FUNCTION IF EXISTS papers_paper_announced_to_tags()",
    "DROP TRIGGER IF EXISTS topics_papertopic_copy_announced ON topics_papertopic",
    "DROP FUNCTION IF EXISTS topics_papertopic_copy_announced()",
]

SQLITE_TRIGGERS = [
    """
    CREATE TRIGGER IF NOT EXISTS topics_papertopic_copy_announced_insert
    AFTER INSERT ON topics_papertopic
    BEGIN
        UPDATE topics_papertopic
        SET announced = (SELECT announced FROM papers_paper WHERE id = NEW.paper_id)
        WHERE id = NEW.id;
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS topics_papertopic_copy_announced_update
    AFTER UPDATE OF paper_id, announced ON topics_papertopic
    WHEN NEW.announced IS NOT (SELECT announced FROM papers_paper WHERE id = NEW.paper_id)
    BEGIN
        UPDATE topics_papertopic
        SET announced = (SELECT announced FROM papers_paper WHERE id = NEW.paper_id)
        WHERE id = NEW.id;
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS papers_paper_announced_to_tags
    AFTER UPDATE OF announced ON papers_paper
    WHEN OLD.announced IS NOT NEW.announced
    BEGIN
        UPDATE topics_papertopic SET announced = NEW.announced WHERE paper_id = NEW.id;
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS papers_paper_announced_to_new_tags
    AFTER INSERT ON papers_paper
    BEGIN
        UPDATE topics_papertopic SET announced = NEW.announced
        WHERE paper_id = NEW.id AND announced IS NOT NEW.announced;
    END
    """,
]
SQLITE_FORWARDS = [
    """
    UPDATE topics_papertopic
    SET announced = (SELECT announced FROM papers_paper WHERE id = topics_papertopic.paper_id)
    """,
    *SQLITE_TRIGGERS,
    """
    CREATE INDEX papertopic_topic_newest_idx
    ON topics_papertopic (topic_id, announced DESC, paper_id DESC)
    """,
]
SQLITE_BACKWARDS = [
    "DROP INDEX IF EXISTS papertopic_topic_newest_idx",
    "DROP TRIGGER IF EXISTS papers_paper_announced_to_new_tags",
    "DROP TRIGGER IF EXISTS papers_paper_announced_to_tags",
    "DROP TRIGGER IF EXISTS topics_papertopic_copy_announced_update",
    "DROP TRIGGER IF EXISTS topics_papertopic_copy_announced_insert",
]


def run(statements: dict[str, list[str]]):
    def operation(apps, schema_editor):
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return operation


class Migration(migrations.Migration):
    dependencies = [
        ("topics", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="papertopic",
            name="announced",
            field=models.DateField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(
            run({"postgresql": POSTGRES_FORWARDS, "sqlite": SQLITE_FORWARDS}),
            run({"postgresql": POSTGRES_BACKWARDS, "sqlite": SQLITE_BACKWARDS}),
            elidable=False,
        ),
    ]
