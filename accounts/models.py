"""What a person keeps here: API tokens, follows, hidden papers, reading lists and their sync state.

Reading lists sync the way Zotero's API does: every change to a user's lists or items takes the
next number of that user's `Library.version` and stamps it on what changed; deletions leave a
`Deletion` tombstone with the version that removed them. A client that remembers the version it
last saw asks for everything newer and gets changes and deletions in one answer.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

NOTE_MAX_LENGTH = 5000
LIST_NAME_MAX_LENGTH = 200
DEFAULT_LIST_NAME = "Reading list"


class ApiToken(models.Model):
    """A named, scoped credential for the browser extension or a script. Only its hash is kept."""

    class Scope(models.TextChoices):
        READ = "read", "read your follows, lists and feed"
        LISTS_WRITE = "lists:write", "save papers and edit your lists"
        FOLLOWS_WRITE = "follows:write", "follow topics and hide papers from your feed"
        FEEDBACK_WRITE = "feedback:write", "confirm, reject or add topic tags"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12)  # the first characters, to tell tokens apart
    key_hash = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole token
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class Library(models.Model):
    """Per-user sync state: the version every change to lists and items takes the next value of.

    Its row is also the lock that serialises one user's list writes (SELECT ... FOR UPDATE), so
    versions are handed out and committed in order and `?since=` never skips a change.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="library"
    )
    version = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "libraries"

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.version}"


class Follow(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    topic = models.ForeignKey("topics.Topic", on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "topic"], name="follow_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.topic_id}"


class Hidden(models.Model):
    """ "Not interested": the paper never shows in this user's feed again."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hidden_papers"
    )
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="hidden_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} hides {self.paper_id}"


class ReadingList(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reading_lists"
    )
    name = models.CharField(max_length=LIST_NAME_MAX_LENGTH)
    is_default = models.BooleanField(default=False)
    position = models.PositiveIntegerField(default=0)
    version = models.PositiveBigIntegerField(default=0)  # library version of the last change
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="readinglist_name_unique"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(is_default=True), name="readinglist_one_default"
            ),
        ]
        indexes = [models.Index(fields=["user", "version"], name="readinglist_sync_idx")]

    def __str__(self) -> str:
        return self.name


class ListItem(models.Model):
    """A paper saved in a list. Keyed by arXiv id, so a paper can be saved before we harvested
    it; `paper` is filled in when it arrives (services.lists.list_items_link_papers)."""

    class ReadState(models.TextChoices):
        UNREAD = "unread", "unread"
        READING = "reading", "reading"
        READ = "read", "read"

    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE, related_name="items")
    arxiv_id = models.CharField(max_length=40)  # canonical, no version
    paper = models.ForeignKey(
        "papers.Paper", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True, max_length=NOTE_MAX_LENGTH)
    read_state = models.CharField(
        max_length=10, choices=ReadState.choices, default=ReadState.UNREAD
    )
    position = models.PositiveIntegerField(default=0)
    version = models.PositiveBigIntegerField(default=0)  # library version of the last change
    added_at = models.DateTimeField()
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["reading_list", "arxiv_id"], name="listitem_unique"),
        ]
        indexes = [
            models.Index(fields=["reading_list", "version"], name="listitem_sync_idx"),
            models.Index(fields=["arxiv_id"], name="listitem_arxiv_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.arxiv_id} in {self.reading_list_id}"


class Deletion(models.Model):
    """A tombstone: what a sync client must delete, and at which library version it went."""

    class Kind(models.TextChoices):
        LIST = "list", "list"
        ITEM = "item", "item"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    list_id = models.BigIntegerField()  # the list's id; kept after the list itself is gone
    arxiv_id = models.CharField(max_length=40, blank=True)  # items only
    version = models.PositiveBigIntegerField()
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "version"], name="deletion_sync_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.list_id}:{self.arxiv_id} @ {self.version}"
