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
