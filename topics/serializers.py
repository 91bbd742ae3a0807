"""Output shapes of topics."""

from __future__ import annotations

from rest_framework import serializers


class TopicRefOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class MomentumOutput(serializers.Serializer):
    window_start = serializers.DateField(
        allow_null=True, help_text="first announcement day counted in recent_count"
    )
    window_end = serializers.DateField(help_text="the newest announcement in the database")
    window_days = serializers.IntegerField(help_text="announcement days in each window")
    recent_count = serializers.IntegerField()
    previous_count = serializers.IntegerField()
    change = serializers.FloatField(allow_null=True)
    share = serializers.FloatField()
    low_count = serializers.BooleanField()
    sentence = serializers.CharField()


class TopicOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    area = TopicRefOutput(allow_null=True)
    area_label = serializers.CharField()
    parent = TopicRefOutput(allow_null=True)
    is_area = serializers.BooleanField()
    momentum = MomentumOutput(allow_null=True, source="momentum_summary")
    url = serializers.SerializerMethodField()

    def get_url(self, topic) -> str:
        return f"/topics/{topic.slug}/"


class WeekOutput(serializers.Serializer):
    week = serializers.DateField()
    count = serializers.IntegerField()


class TopicDetailOutput(TopicOutput):
    description = serializers.CharField()
    followers = serializers.SerializerMethodField(help_text="people following it")
    aliases = serializers.ListField(child=serializers.CharField())
    keywords = serializers.ListField(child=serializers.CharField())
    categories = serializers.ListField(child=serializers.CharField())
    ancestors = TopicRefOutput(many=True)
    children = TopicRefOutput(many=True, source="active_children")
    related = TopicRefOutput(many=True)
    weekly = WeekOutput(many=True)

    def get_followers(self, topic) -> int:
        # Counted here, for the API, rather than in topic_get: the topic page does not show it.
        return topic.followers.count()
