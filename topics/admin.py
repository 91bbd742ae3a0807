from django.contrib import admin

from topics.models import PaperTopic, TagFeedback, Topic


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "parent", "area", "active", "taxonomy_version")
    list_filter = ("active", "area")
    search_fields = ("name", "slug", "description")
    raw_id_fields = ("parent", "area")


@admin.register(PaperTopic)
class PaperTopicAdmin(admin.ModelAdmin):
    list_display = ("paper", "topic", "score", "rank", "source", "model_version")
    list_filter = ("source",)
    raw_id_fields = ("paper", "topic")


@admin.register(TagFeedback)
class TagFeedbackAdmin(admin.ModelAdmin):
    list_display = ("user", "paper", "topic", "vote", "created_at")
    list_filter = ("vote",)
    raw_id_fields = ("paper", "topic", "user")
