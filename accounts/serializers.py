"""Output shapes of the personal API. The extension relies on the field names here."""

from __future__ import annotations

from rest_framework import serializers

from papers.serializers import PaperOutput, TagOutput


class FollowOutput(serializers.Serializer):
    slug = serializers.CharField(source="topic.slug")
    name = serializers.CharField(source="topic.name")
    area = serializers.SerializerMethodField()
    followed = serializers.DateTimeField(source="created_at")

    def get_area(self, follow) -> str | None:
        topic = follow.topic
        return topic.area.slug if topic.area_id else None


class ReadingListOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_default = serializers.BooleanField()
    item_count = serializers.IntegerField()
    version = serializers.IntegerField()
    position = serializers.IntegerField()
    created = serializers.DateTimeField(source="created_at")
    modified = serializers.DateTimeField(source="modified_at")


class ItemPaperOutput(serializers.Serializer):
    """The paper behind a saved item; null while it is still being fetched."""

    arxiv_id = serializers.CharField()
    version = serializers.IntegerField()
    title = serializers.CharField()
    authors = serializers.ListField(child=serializers.CharField())
    primary_category = serializers.CharField()
    announced = serializers.DateField(allow_null=True)
    tags = TagOutput(many=True)
    url = serializers.SerializerMethodField()

    def get_url(self, paper) -> str:
        return f"/papers/{paper.arxiv_id}/"


class ListItemOutput(serializers.Serializer):
    arxiv_id = serializers.CharField()
    list = serializers.IntegerField(source="reading_list_id")
    note = serializers.CharField()
    read_state = serializers.CharField()
    position = serializers.IntegerField()
    added = serializers.DateTimeField(source="added_at")
    modified = serializers.DateTimeField(source="modified_at")
    version = serializers.IntegerField()
    paper = ItemPaperOutput(allow_null=True)


class MatchedTagOutput(serializers.Serializer):
    slug = serializers.CharField(source="topic.slug")
    name = serializers.CharField(source="topic.name")
    score = serializers.FloatField()


class FeedPaperOutput(PaperOutput):
    matched = MatchedTagOutput(many=True)
    saved = serializers.BooleanField()


class HiddenOutput(serializers.Serializer):
    arxiv_id = serializers.CharField(source="paper.arxiv_id")
    hidden = serializers.DateTimeField(source="created_at")


class TokenOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    created = serializers.DateTimeField(source="created_at")
    last_used = serializers.DateTimeField(source="last_used_at", allow_null=True)
    revoked = serializers.DateTimeField(source="revoked_at", allow_null=True)
    active = serializers.BooleanField(source="is_active")


class FeedbackOutput(serializers.Serializer):
    arxiv_id = serializers.CharField(source="paper.arxiv_id")
    topic = serializers.CharField(source="topic.slug")
    vote = serializers.CharField()
    created = serializers.DateTimeField(source="created_at")


class DigestTopicOutput(serializers.Serializer):
    slug = serializers.CharField(source="topic.slug")
    name = serializers.CharField(source="topic.name")
    muted = serializers.BooleanField(source="digest_muted")


class DigestSettingsOutput(serializers.Serializer):
    frequency = serializers.CharField()
    weekday = serializers.SerializerMethodField()
    muted = serializers.SerializerMethodField()
    topics = serializers.SerializerMethodField()
    email = serializers.CharField(source="user.email")
    paused = serializers.BooleanField(source="bouncing")
    bounce_reason = serializers.SerializerMethodField()
    last_sent = serializers.DateTimeField(source="last_sent_at", allow_null=True)

    def get_weekday(self, prefs) -> str:
        return prefs.get_weekday_display().lower()

    def get_muted(self, prefs) -> list[str]:
        return [f.topic.slug for f in self.context["follows"] if f.digest_muted]

    def get_topics(self, prefs) -> list[dict]:
        return DigestTopicOutput(self.context["follows"], many=True).data

    def get_bounce_reason(self, prefs) -> str | None:
        return prefs.bounce_reason if prefs.bouncing else None


class DigestGroupOutput(serializers.Serializer):
    topic = serializers.SerializerMethodField()
    papers = serializers.SerializerMethodField()
    more = serializers.IntegerField()

    def get_topic(self, group) -> dict:
        return {"slug": group.topic.slug, "name": group.topic.name}

    def get_papers(self, group) -> list[dict]:
        return PaperOutput([item.paper for item in group.papers], many=True).data


class DigestPreviewOutput(serializers.Serializer):
    subject = serializers.CharField()
    empty = serializers.BooleanField(source="is_empty")
    paper_count = serializers.IntegerField()
    since = serializers.DateTimeField(source="window_start")
    until = serializers.DateTimeField(source="window_end")
    groups = DigestGroupOutput(many=True)
    alerts = serializers.SerializerMethodField()

    def get_alerts(self, digest) -> list[dict]:
        return [
            {"arxiv_id": alert.paper.arxiv_id, "title": alert.title, "news": alert.lines}
            for alert in digest.alerts
        ]


class AlertOutput(serializers.Serializer):
    id = serializers.IntegerField()
    arxiv_id = serializers.CharField(source="paper.arxiv_id")
    kind = serializers.CharField()
    text = serializers.SerializerMethodField()
    value = serializers.CharField()
    previous = serializers.CharField()
    created = serializers.DateTimeField(source="created_at")
    in_digest = serializers.SerializerMethodField()
    lists = serializers.SerializerMethodField()
    paper = ItemPaperOutput()

    def get_text(self, alert) -> str:
        from accounts.services.alerts import alert_text

        return alert_text(alert)

    def get_in_digest(self, alert) -> bool:
        return alert.delivery_id is not None

    def get_lists(self, alert) -> list[int]:
        return sorted(self.context["lists"].get(alert.paper.arxiv_id, ()))
