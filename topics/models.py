from __future__ import annotations

from django.conf import settings
from django.db import models


class Topic(models.Model):
    """A node of the curated topic tree. Areas are the roots (parent is None, code set)."""

    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    code = models.CharField(max_length=10, blank=True)  # areas only, e.g. "RL"
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    area = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )  # the root of the tree this topic is in (itself for an area)
    depth = models.PositiveSmallIntegerField(default=0)
    position = models.PositiveIntegerField(default=0)
    description = models.TextField(blank=True)
    aliases = models.JSONField(default=list, blank=True)
    keywords = models.JSONField(default=list, blank=True)
    categories = models.JSONField(default=list, blank=True)
    active = models.BooleanField(default=True)
    taxonomy_version = models.CharField(max_length=20, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_area(self) -> bool:
        return self.parent_id is None

    @property
    def area_label(self) -> str:
        area = self.area or self
        return f"{area.code}: {area.name}" if area.code else area.name

    # What topics.selectors adds for the pages (never stored).
    momentum_summary: dict | None
    ancestors: list[Topic]
    active_children: list[Topic]
    weekly: list[dict]
    related: list[Topic]


class PaperTopic(models.Model):
    """A tag: one topic on one paper, with a calibrated score and the evidence behind it."""

    class Source(models.TextChoices):
        MODEL = "model", "model"
        CURATED = "curated", "curated"
        USER = "user", "user"

    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="tags")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="paper_tags")
    score = models.FloatField()  # the topic's own score, never copied from a child
    rank = models.PositiveSmallIntegerField()  # display order (topics.tagger.chips), 1 first
    # One of the paper's chips (topics.tagger.chips: most specific, not an area, at most 7).
    shown = models.BooleanField(default=False)
    # An ancestor of another of the paper's tags: on the topic's page, not a chip.
    implied = models.BooleanField(default=False)
    # For a model chip (the paper's best specific tags): how likely it is right beside its other
    # chips (topics.tagger.chip_order); the chips are shown in this order, by score without it.
    chip_order = models.FloatField(null=True, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.MODEL)
    evidence = models.JSONField(default=dict, blank=True)
    model_version = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The paper's announcement date, copied by database triggers whoever writes the row (never
    # by the application): "newest papers of a topic" is then one range of the index
    # papertopic_topic_newest_idx on (topic, announced, paper). Migration 0002 has the triggers
    # and that index (declared per database, so it is not in Meta.indexes).
    announced = models.DateField(null=True, blank=True, editable=False)

    # The one-line reason a page shows beside the chip (papers.reasons), and on the paper page
    # the evidence items and the confidence as a percentage (papers.views); never stored.
    reason: str
    why: list
    percent: int

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["paper", "topic"], name="papertopic_unique"),
        ]
        indexes = [models.Index(fields=["topic", "paper"], name="papertopic_topic_idx")]

    def __str__(self) -> str:
        return f"{self.paper_id} -> {self.topic_id} ({self.score:.2f})"

    @property
    def confidence(self) -> float:
        """How likely the tag is right, as a reader sees it (topics.tagger.chips.tag_confidence)."""
        from topics.tagger.chips import tag_confidence  # the tagger package loads numpy: not here

        return tag_confidence(self.score, self.chip_order)


class TagFeedback(models.Model):
    class Vote(models.TextChoices):
        CONFIRM = "confirm", "confirm"
        REJECT = "reject", "reject"
        ADD = "add", "add"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE)
    vote = models.CharField(max_length=10, choices=Vote.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "paper", "topic"], name="tagfeedback_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.vote} {self.topic_id} on {self.paper_id}"


class TopicWeek(models.Model):
    """Papers first announced in one week (Monday start) carrying one topic. Precomputed."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="weeks")
    week = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "week"], name="topicweek_unique")]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.week}: {self.count}"


class TopicMomentum(models.Model):
    """Cached momentum of one topic: the last 28 announcement days up to the newest announcement
    in the database against the 28 before, and the topic's share of everything announced."""

    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="momentum")
    window_start = models.DateField(null=True)  # the recent window: window_start..window_end
    window_end = models.DateField()
    recent_count = models.PositiveIntegerField(default=0)
    previous_count = models.PositiveIntegerField(default=0)
    total_recent = models.PositiveIntegerField(default=0)  # all papers in the recent window
    total_count = models.PositiveIntegerField(default=0)  # all papers ever tagged with the topic
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.topic_id}: {self.recent_count} vs {self.previous_count}"

    @property
    def change(self) -> float | None:
        """Relative change, or None when the earlier window is empty."""
        if self.previous_count == 0:
            return None
        return (self.recent_count - self.previous_count) / self.previous_count

    @property
    def share(self) -> float:
        return self.recent_count / self.total_recent if self.total_recent else 0.0


class TopicProposal(models.Model):
    """A candidate new topic found by clustering recent papers the taxonomy covers poorly
    (issue 4, item 6). A person accepts it in the admin (which creates the Topic and tags the
    member papers) or rejects it (it is then not proposed again for the same papers)."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", "proposed"
        ACCEPTED = "accepted", "accepted"
        REJECTED = "rejected", "rejected"

    name = models.CharField(max_length=200)
    parent = models.ForeignKey(
        Topic,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="child_proposals",
        help_text="Suggested parent: the existing topic nearest to the cluster's centre.",
    )
    phrases = models.JSONField(default=list, blank=True)  # c-TF-IDF 1-3-grams, best first
    papers = models.ManyToManyField("papers.Paper", related_name="topic_proposals", blank=True)
    # cohesion, distinct first authors, nearest topics, central titles, categories
    stats = models.JSONField(default=dict, blank=True)
    window_start = models.DateField(null=True, blank=True)
    window_end = models.DateField(null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PROPOSED, db_index=True
    )
    accepted_topic = models.ForeignKey(
        Topic, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"
