"""Ask's storage: the passages retrieval searches, each paper's full text once fetched, and a
log of every question answered (who asked, which model, how long) for operators."""

from django.conf import settings
from django.db import models


class Passage(models.Model):
    """One retrievable piece of a paper: its title, one abstract sentence, or a stretch of its
    full text. ``vector`` is the passage's embedding (float32 bytes) from the tagger's static
    model; the full-text index (SQLite FTS5 or a PostgreSQL tsvector, migration 0002) mirrors
    ``text`` and ``title`` and is kept in step by the database, never by the application."""

    class Kind(models.TextChoices):
        TITLE = "title", "title"
        ABSTRACT = "abstract", "abstract"
        FULLTEXT = "fulltext", "full text"

    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="passages")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    section = models.CharField(max_length=300, blank=True)  # "3 Method" for full text
    position = models.PositiveIntegerField()  # order within the paper, title first
    text = models.TextField()
    title = models.TextField(blank=True)  # the paper's title, context for search
    vector = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["paper", "position"], name="passage_paper_position"),
        ]

    def __str__(self) -> str:
        return f"{self.paper_id}#{self.position}: {self.text[:60]}"


class PaperText(models.Model):
    """A paper's full text as fetched once from arXiv (HTML rendering, else PDF), split into
    sections; its passages are Passage rows of kind FULLTEXT."""

    class Source(models.TextChoices):
        HTML = "html", "arXiv HTML"
        PDF = "pdf", "PDF"
        NONE = "none", "not available"

    paper = models.OneToOneField("papers.Paper", on_delete=models.CASCADE, related_name="text")
    source = models.CharField(max_length=10, choices=Source.choices)
    version = models.PositiveSmallIntegerField(default=1)
    sections = models.JSONField(default=list, blank=True)  # [{"title": ..., "chars": n}, ...]
    chars = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)  # why there is no text, when source is NONE
    fetched_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.paper_id} ({self.source})"


class AskLog(models.Model):
    """One answered question: what operators need to see model use per user and per address."""

    class Scope(models.TextChoices):
        TOPIC = "topic", "topic"
        PAPER = "paper", "paper"

    class Mode(models.TextChoices):
        MODEL = "model", "model"
        EXTRACTIVE = "extractive", "extractive (no model configured)"
        FALLBACK = "fallback", "extractive (model failed)"
        CACHED = "cached", "cached model answer"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    address = models.CharField(max_length=64, blank=True)  # the client address the quota counts
    scope = models.CharField(max_length=10, choices=Scope.choices)
    target = models.CharField(max_length=200)  # topic slug or arXiv id
    question = models.TextField()
    mode = models.CharField(max_length=12, choices=Mode.choices)
    model = models.CharField(max_length=200, blank=True)
    passages = models.PositiveSmallIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="asklog_user_idx")]

    def __str__(self) -> str:
        return f"{self.scope}:{self.target} {self.mode} {self.created_at:%Y-%m-%d %H:%M}"
