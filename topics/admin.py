from django.contrib import admin, messages
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from topics.models import PaperTopic, TagFeedback, Topic, TopicProposal


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


@admin.register(TopicProposal)
class TopicProposalAdmin(admin.ModelAdmin):
    """Emerging-topic proposals: edit the name and parent if needed, then accept or reject."""

    list_display = (
        "name",
        "parent",
        "status",
        "paper_count",
        "first_authors",
        "cohesion",
        "window_end",
        "created_at",
    )
    list_filter = ("status",)
    search_fields = ("name",)
    raw_id_fields = ("parent",)
    actions = ("accept_proposals", "reject_proposals")
    fields = (
        "name",
        "parent",
        "status",
        "accepted_topic_link",
        "phrase_list",
        "nearest_topics",
        "central_titles",
        "member_papers",
        "window_start",
        "window_end",
        "created_at",
        "decided_at",
        "taxonomy_entry",
    )
    readonly_fields = (
        "status",
        "accepted_topic_link",
        "phrase_list",
        "nearest_topics",
        "central_titles",
        "member_papers",
        "window_start",
        "window_end",
        "created_at",
        "decided_at",
        "taxonomy_entry",
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("parent", "accepted_topic")
            .annotate(n_papers=Count("papers"))
        )

    @admin.display(description="papers", ordering="n_papers")
    def paper_count(self, obj):
        return getattr(obj, "n_papers", None)

    @admin.display(description="first authors")
    def first_authors(self, obj):
        return obj.stats.get("first_authors")

    @admin.display(description="cohesion")
    def cohesion(self, obj):
        return obj.stats.get("cohesion")

    @admin.display(description="phrases (c-TF-IDF)")
    def phrase_list(self, obj):
        return ", ".join(obj.phrases)

    @admin.display(description="nearest topics")
    def nearest_topics(self, obj):
        return format_html_join(
            ", ",
            "{} ({})",
            ((n.get("name") or n.get("slug"), n.get("similarity")) for n in _nearest(obj)),
        )

    @admin.display(description="most central titles")
    def central_titles(self, obj):
        return format_html_join(
            mark_safe("<br>"),
            "{} — {}",
            ((c.get("arxiv_id"), c.get("title")) for c in obj.stats.get("central_titles", [])),
        )

    @admin.display(description="member papers")
    def member_papers(self, obj):
        papers = obj.papers.order_by("-announced").only("arxiv_id", "title", "authors")
        return format_html_join(
            mark_safe("<br>"),
            '<a href="https://arxiv.org/abs/{}">{}</a> {} <small>({})</small>',
            ((p.arxiv_id, p.arxiv_id, p.title, (p.authors or [""])[0]) for p in papers[:200]),
        )

    @admin.display(description="accepted as")
    def accepted_topic_link(self, obj):
        if not obj.accepted_topic_id:
            return "-"
        url = reverse("admin:topics_topic_change", args=[obj.accepted_topic_id])
        return format_html('<a href="{}">{}</a>', url, obj.accepted_topic)

    @admin.display(description="taxonomy file entry (add it to topics/taxonomy/<area>.yaml)")
    def taxonomy_entry(self, obj):
        from topics.services.proposals import proposal_taxonomy_entry

        if not obj.accepted_topic_id:
            return "-"
        return format_html("<pre>{}</pre>", proposal_taxonomy_entry(obj.accepted_topic))

    @admin.action(description="Accept: create the topic and tag its papers")
    def accept_proposals(self, request, queryset):
        from topics.services.proposals import topic_proposal_accept

        for proposal in queryset:
            try:
                topic = topic_proposal_accept(proposal)
            except ValueError as exc:
                self.message_user(request, str(exc), messages.ERROR)
                continue
            url = reverse("admin:topics_topic_change", args=[topic.id])
            self.message_user(
                request,
                format_html(
                    'Created <a href="{}">{}</a> under {} and tagged its papers. Edit its '
                    "description and keywords, and add its entry (on the proposal's page) to "
                    "the taxonomy files so that load_taxonomy keeps it.",
                    url,
                    topic.name,
                    topic.parent,
                ),
                messages.SUCCESS,
            )

    @admin.action(description="Reject: do not propose these papers as a topic again")
    def reject_proposals(self, request, queryset):
        from topics.services.proposals import topic_proposal_reject

        for proposal in queryset:
            topic_proposal_reject(proposal)
        self.message_user(request, f"Rejected {queryset.count()} proposal(s).", messages.SUCCESS)


def _nearest(obj):
    return obj.stats.get("nearest_topics", [])
