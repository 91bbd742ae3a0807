"""Output shapes of papers, shared by the papers, topics and accounts APIs."""

from __future__ import annotations

from rest_framework import serializers

from papers.models import Paper
from papers.rows import affiliation_names


class TagOutput(serializers.Serializer):
    slug = serializers.CharField(source="topic.slug")
    name = serializers.CharField(source="topic.name")
    area = serializers.CharField(source="topic.area.slug", default=None)
    score = serializers.FloatField(
        help_text="The scorer's calibrated probability that the topic applies: what put the tag "
        "on the paper and the paper on the topic's page."
    )
    confidence = serializers.FloatField(
        help_text="How likely the tag is right, the number to show beside it: for a chip the "
        "chip-order model ranked, its probability given the paper's other chips; else the score."
    )
    rank = serializers.IntegerField()  # display order (topics.tagger.chips)
    source = serializers.CharField()  # type: ignore[assignment]  # the tag's source
    shown = serializers.BooleanField(help_text="One of the paper's chips: render it, in order.")
    implied = serializers.BooleanField(
        help_text="An ancestor of another of the paper's tags: the paper is on its topic page, "
        "but it is not a chip."
    )


class TagWithEvidenceOutput(TagOutput):
    evidence = serializers.JSONField()


class PaperOutput(serializers.Serializer):
    arxiv_id = serializers.CharField()
    version = serializers.IntegerField()
    title = serializers.CharField()
    authors = serializers.ListField(child=serializers.CharField())
    primary_category = serializers.CharField()
    categories = serializers.ListField(child=serializers.CharField(), source="category_list")
    abstract = serializers.CharField()
    announced = serializers.DateField(allow_null=True)
    withdrawn = serializers.BooleanField()
    tags = TagOutput(many=True)
    abs_url = serializers.CharField()
    url = serializers.SerializerMethodField()
    # From OpenAlex when it knows the paper (papers.services.enrich); [] and null until then.
    institutions = serializers.SerializerMethodField()
    cited_by_count = serializers.IntegerField(allow_null=True)

    def get_url(self, paper: Paper) -> str:
        return f"/papers/{paper.arxiv_id}/"

    def get_institutions(self, paper: Paper) -> list[str]:
        """Distinct institutions of the authors, in author order."""
        return affiliation_names(paper)


class PaperDetailOutput(PaperOutput):
    versions = serializers.JSONField()
    affiliations = serializers.JSONField()
    comments = serializers.CharField()
    journal_ref = serializers.CharField()
    doi = serializers.CharField()
    license = serializers.CharField()
    pdf_url = serializers.CharField()
    html_url = serializers.CharField()
    tags = TagWithEvidenceOutput(many=True)


class LookupPaperOutput(serializers.Serializer):
    """The small shape the extension needs for every entry of a listing page."""

    arxiv_id = serializers.CharField()
    version = serializers.IntegerField()
    title = serializers.CharField()
    primary_category = serializers.CharField()
    tags = TagOutput(many=True)
