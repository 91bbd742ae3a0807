from functools import cached_property

from django.db import models
from django.utils import timezone


class Paper(models.Model):
    """One arXiv paper, keyed by its canonical id (no version). Title and abstract keep TeX."""

    arxiv_id = models.CharField(max_length=40, unique=True)
    version = models.PositiveSmallIntegerField(default=1)
    # [{"version": 1, "date": "2025-01-02T10:00:00Z", "size": "120kb"}, ...] oldest first
    versions = models.JSONField(default=list, blank=True)
    title = models.TextField()
    abstract = models.TextField(blank=True)
    authors = models.JSONField(default=list, blank=True)  # ordered display names
    affiliations = models.JSONField(default=list, blank=True)  # parallel to authors when known
    primary_category = models.CharField(max_length=32, blank=True)
    # Space-separated like arXiv's own <categories>, so a word-bounded filter works on any database.
    categories = models.CharField(max_length=255, blank=True)
    announced = models.DateField(null=True, blank=True, db_index=True)
    submitted = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(null=True, blank=True)
    comments = models.TextField(blank=True)
    journal_ref = models.TextField(blank=True)
    doi = models.CharField(max_length=255, blank=True)
    license = models.CharField(max_length=255, blank=True)
    withdrawn = models.BooleanField(default=False)
    # When the tagger last ran on this paper (None: never); a paper may rightly get no tags.
    tagged_at = models.DateTimeField(null=True, blank=True)
    # When the refined stage (contextual encoder) last tagged it; None: only the fast path has,
    # and the refine sweep (topics.refine_tags) will, newest first.
    refined_at = models.DateTimeField(null=True, blank=True)
    # Enrichment from OpenAlex (papers.services.enrich): its work id ("W4392…", "" while it does
    # not know the paper), how often it is cited, and when we last asked (None: never).
    openalex_id = models.CharField(max_length=40, blank=True)
    cited_by_count = models.PositiveIntegerField(null=True, blank=True)
    enriched_at = models.DateTimeField(null=True, blank=True)

    # The paper's tags in display order as the API writes them (a JSON array of {slug, name,
    # area, score, rank, source, shown, implied}), rebuilt by topics.services.chips whenever
    # the tags change. The batch lookup pastes it into its answer as is: reading and encoding
    # ~8 tag rows per paper for 2,000 papers was most of that request. NULL: not built yet.
    tags_json = models.TextField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["-announced", "-id"], name="paper_newest_idx"),
            # The few papers not tagged yet, for the straggler sweep (topics.tag_stragglers).
            models.Index(
                fields=["id"], condition=models.Q(tagged_at__isnull=True), name="paper_untagged_idx"
            ),
            # Tagged papers the refined stage has not reached, for its sweep (newest first).
            models.Index(
                fields=["-announced", "-id"],
                condition=models.Q(refined_at__isnull=True, tagged_at__isnull=False),
                name="paper_unrefined_idx",
            ),
            # Papers OpenAlex was never asked about, for the enrichment sweep.
            models.Index(
                fields=["id"],
                condition=models.Q(enriched_at__isnull=True),
                name="paper_unenriched_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.arxiv_id}v{self.version}: {self.title[:60]}"

    # What papers.rows.decorate_rows adds for a list row and the reading view's pane (never
    # stored); the feed adds `matched` and `saved`.
    all_tags: list
    shown_tags: list
    more_tags: int
    shown_authors: list[str]
    more_authors: int
    detail_authors: list[str]
    more_detail_authors: int
    shown_affiliations: list[str]
    more_affiliations: int
    detail_affiliations: list[str]
    more_detail_affiliations: int
    matched: list
    saved: bool

    @cached_property
    def chips(self) -> list:
        """The paper's chips, the tags a reader sees, in display order (topics.tagger.chips has
        the rule). From the prefetched tags (papers.selectors.tags_prefetch) when there are."""
        if "tags" in getattr(self, "_prefetched_objects_cache", {}):
            return [tag for tag in self.tags.all() if tag.shown]
        shown = self.tags.filter(shown=True, topic__active=True).select_related("topic")
        return list(shown.order_by("rank"))

    @property
    def category_list(self) -> list[str]:
        return self.categories.split()

    @property
    def abs_url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv_id}"

    @property
    def pdf_url(self) -> str:
        return f"https://arxiv.org/pdf/{self.arxiv_id}v{self.version}"

    @property
    def html_url(self) -> str:
        return f"https://arxiv.org/html/{self.arxiv_id}v{self.version}"


class HarvestWatermark(models.Model):
    """How far one harvest source has got; moved only after the page it covers is committed."""

    source = models.CharField(max_length=100, unique=True)  # e.g. "oai:arXivRaw:cs", "rss:cs.LG"
    value = models.CharField(max_length=255, blank=True)  # a date or a resumption point
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.source} @ {self.value}"


class ArxivRequestSlot(models.Model):
    """The database's side of the one-request-at-a-time rule when there is no Redis: one row per
    remote host, leased by a conditional UPDATE (no transaction is held open during a request)."""

    name = models.CharField(max_length=50, unique=True)
    holder = models.CharField(max_length=100, blank=True)  # who holds the lease, "" when free
    lease_until = models.FloatField(default=0.0)  # time.time() after which a stuck lease expires
    last_request_at = models.FloatField(default=0.0)  # time.time() when the last request ended

    def __str__(self) -> str:
        return self.name


class PendingLookup(models.Model):
    """An id someone asked about that we do not have yet; fetched in coalesced batches, the
    real-looking and most recently asked first, with back-off after failures
    (papers.services.lookup)."""

    arxiv_id = models.CharField(max_length=40, unique=True)
    requested_at = models.DateTimeField(auto_now_add=True)  # first asked
    asked_at = models.DateTimeField(default=timezone.now)  # last asked
    attempts = models.PositiveSmallIntegerField(default=0)
    # Not before then: a claimed batch's lease, or the back-off after a failed attempt.
    next_attempt_at = models.DateTimeField(default=timezone.now)
    # False for ids far beyond the highest number we know of their month: likely junk.
    plausible = models.BooleanField(default=True)
    not_found = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(
                fields=["-plausible", "-asked_at"],
                condition=models.Q(not_found=False),
                name="pending_fetch_order_idx",
            ),
            models.Index(fields=["asked_at"], name="pending_asked_idx"),
        ]

    def __str__(self) -> str:
        return self.arxiv_id
