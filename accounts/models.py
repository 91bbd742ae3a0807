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
    # Still in the feed, but left out of the email digest.
    digest_muted = models.BooleanField(default=False)
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
    # The paper as the person saved it (or last acknowledged it), so that a newer version, a
    # journal reference or a DOI recorded later shows as news: "v3 since you saved it".
    saved_version = models.PositiveSmallIntegerField(null=True, blank=True)
    saved_journal_ref = models.TextField(blank=True)
    saved_doi = models.CharField(max_length=255, blank=True)

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


# --- digests, alerts and private feeds -------------------------------------------------------


class DigestSettings(models.Model):
    """How and when one person gets the email digest, and how far their digests have got.

    `covered_until` is the watermark: papers that arrived after it are new for the next digest.
    It moves only when a digest has been sent (or found to have nothing to say), so a failed
    send leaves the papers for the next attempt.
    """

    class Frequency(models.TextChoices):
        DAILY = "daily", "daily, after each arXiv announcement"
        WEEKLY = "weekly", "weekly"
        OFF = "off", "off"

    class Weekday(models.IntegerChoices):  # Python's date.weekday() numbering
        MONDAY = 0, "Monday"
        TUESDAY = 1, "Tuesday"
        WEDNESDAY = 2, "Wednesday"
        THURSDAY = 3, "Thursday"
        FRIDAY = 4, "Friday"
        SATURDAY = 5, "Saturday"
        SUNDAY = 6, "Sunday"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_settings"
    )
    frequency = models.CharField(max_length=10, choices=Frequency.choices, default=Frequency.DAILY)
    weekday = models.PositiveSmallIntegerField(choices=Weekday.choices, default=Weekday.FRIDAY)
    covered_until = models.DateTimeField()
    last_sent_at = models.DateTimeField(null=True, blank=True)
    # A permanent refusal of `bounced_email` pauses digests until the address changes or the
    # person saves their digest settings again (repeated hard bounces hurt every recipient).
    bounced_email = models.CharField(max_length=254, blank=True)
    bounced_at = models.DateTimeField(null=True, blank=True)
    bounce_reason = models.TextField(blank=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "digest settings"

    def __str__(self) -> str:
        return f"{self.user_id}: {self.frequency}"

    @property
    def bouncing(self) -> bool:
        return bool(self.bounced_at) and self.bounced_email.lower() == self.user.email.lower()


class DigestRun(models.Model):
    """One planning pass: who was due, up to which moment papers count (the cut-off)."""

    trigger = models.CharField(max_length=40)  # "schedule:daily", "command", ...
    cutoff = models.DateTimeField()
    started_at = models.DateTimeField()
    planned = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.trigger} @ {self.started_at:%Y-%m-%d %H:%M}"


class DigestDelivery(models.Model):
    """One digest for one person: claimed by exactly one worker before it is sent.

    Only one row may be open per person and window start (the partial unique constraint), so
    two planners running at once cannot both schedule the same papers; a claim is a conditional
    UPDATE from `pending` (or from a `sending` whose worker died) that only one worker can win.
    """

    class State(models.TextChoices):
        PENDING = "pending", "pending"  # waiting to be sent (again, after `not_before`)
        SENDING = "sending", "sending"  # claimed by a worker
        SENT = "sent", "sent"
        EMPTY = "empty", "nothing new"  # nothing to say by the time it was built: no mail
        CANCELLED = "cancelled", "cancelled"  # digests were turned off in the meantime
        FAILED = "failed", "failed"  # a permanent error, or out of attempts

    run = models.ForeignKey(DigestRun, on_delete=models.CASCADE, related_name="deliveries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_deliveries"
    )
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    not_before = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    claim_token = models.CharField(max_length=32, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    email = models.CharField(max_length=254, blank=True)  # where it went
    last_error = models.TextField(blank=True)
    paper_count = models.PositiveIntegerField(default=0)
    alert_count = models.PositiveIntegerField(default=0)
    arxiv_ids = models.JSONField(default=list, blank=True)  # the papers it listed
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "digest deliveries"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "window_start"],
                condition=~Q(state="failed"),
                name="digestdelivery_one_open_window",
            ),
        ]
        indexes = [models.Index(fields=["state", "not_before"], name="digestdelivery_due_idx")]

    def __str__(self) -> str:
        return f"digest {self.pk} for {self.user_id}: {self.state}"


class PaperAlert(models.Model):
    """News about a paper someone saved: a new version, a journal reference, a DOI, a withdrawal.

    One row per person, paper and kind, holding the newest value; a newer value re-opens it
    (undismissed, not yet in a digest).
    """

    class Kind(models.TextChoices):
        VERSION = "version", "new version"
        JOURNAL_REF = "journal_ref", "journal reference"
        DOI = "doi", "DOI"
        WITHDRAWN = "withdrawn", "withdrawn"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="paper_alerts"
    )
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    value = models.TextField(blank=True)  # "3", the journal reference, the DOI
    previous = models.TextField(blank=True)  # what the person saved: "1", "" ...
    created_at = models.DateTimeField()
    delivery = models.ForeignKey(
        DigestDelivery, null=True, blank=True, on_delete=models.SET_NULL, related_name="alerts"
    )
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "paper", "kind"], name="paperalert_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} {self.paper_id}: {self.value[:40]}"


class PrivateFeed(models.Model):
    """A secret Atom feed URL: the person's feed (no list) or one reading list.

    The URL carries a signature of the row id and `nonce`; a new nonce (regenerate) or
    `active=False` (revoke) makes every older URL stop working. Only the nonce is stored, so a
    copy of the database alone cannot make a working URL (the signature needs SECRET_KEY).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="private_feeds"
    )
    reading_list = models.OneToOneField(
        ReadingList, null=True, blank=True, on_delete=models.CASCADE, related_name="private_feed"
    )
    nonce = models.CharField(max_length=32)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(null=True, blank=True)
    last_read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(reading_list__isnull=True),
                name="privatefeed_one_personal",
            ),
        ]

    def __str__(self) -> str:
        what = f"list {self.reading_list_id}" if self.reading_list_id else "feed"
        return f"{self.user_id} {what}"


class RateCounter(models.Model):
    """One rate-limit counter where the cache cannot increment atomically (the file cache of the
    embedded default): accounts.ratelimit updates it with `count = count + 1`."""

    key = models.CharField(max_length=64, unique=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.FloatField()  # time.time() when the window ends

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"


class ImportJob(models.Model):
    """A large import, run by a Celery task (accounts.services.import_jobs): the file waits
    here until the task has read it; the API and the page poll the status and progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE, related_name="+")
    format = models.CharField(max_length=20)
    content = models.TextField(blank=True)  # emptied once the task has imported it
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)  # entries found, once parsed
    done = models.PositiveIntegerField(default=0)  # entries saved, when finished
    result = models.JSONField(default=dict, blank=True)  # ImportReport.as_dict()
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"import {self.pk} ({self.status})"
