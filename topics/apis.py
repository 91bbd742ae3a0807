"""The public topics API: the list, one topic with momentum and series, and its papers."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination

from config.api import (
    CURSOR_PARAMETERS,
    ApiAutoSchema,
    BadRequest,
    PublicApi,
    page_of,
)
from papers.apis import PAPER_PAGE, with_etag
from papers.paging import NewestFirstPagination
from papers.serializers import PaperOutput
from topics.models import Topic
from topics.selectors import topic_get, topic_list, topic_papers_page
from topics.serializers import TopicDetailOutput, TopicOutput


def reject_unknown_params(request, allowed) -> None:
    unknown = set(request.query_params) - set(allowed)
    if unknown:
        raise BadRequest(f"Unknown parameter: {', '.join(sorted(unknown))}.", code="unknown_filter")


class TopicPagination(LimitOffsetPagination):
    default_limit = 100
    max_limit = 1000


class TopicListApi(PublicApi):
    """The topics, sorted by a computed value (momentum, size) or by name, a page at a time:
    limit and offset, since a position in such an order is not a value of one column."""

    schema = ApiAutoSchema()

    class FilterInput(serializers.Serializer):
        q = serializers.CharField(required=False, max_length=200)
        area = serializers.SlugField(required=False, max_length=100)
        sort = serializers.ChoiceField(choices=["name", "size", "momentum"], required=False)
        limit = serializers.IntegerField(
            required=False, min_value=1, max_value=TopicPagination.max_limit
        )
        offset = serializers.IntegerField(required=False, min_value=0)

    @extend_schema(
        parameters=[FilterInput],
        responses=page_of(
            "TopicList",
            TopicOutput,
            previous=True,
            count=serializers.IntegerField(help_text="topics matching, over all pages"),
        ),
    )
    def get(self, request):
        reject_unknown_params(request, self.FilterInput().fields)
        filters = self.FilterInput(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        if data.get("area") and not Topic.objects.filter(slug=data["area"], parent=None).exists():
            raise BadRequest(f"Unknown area {data['area']!r}.", code="unknown_area")
        topics = topic_list(
            query=data.get("q"), area=data.get("area"), sort=data.get("sort", "name")
        )
        paginator = TopicPagination()
        page = paginator.paginate_queryset(topics, request, view=self)
        body = {
            "count": paginator.count,
            "results": TopicOutput(page, many=True).data,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
        }
        return with_etag(request, body)


class TopicDetailApi(PublicApi):
    schema = ApiAutoSchema()

    @extend_schema(responses=TopicDetailOutput)
    def get(self, request, slug: str):
        topic = topic_get(slug=slug)
        if topic is None:
            raise Http404(f"No topic {slug!r}.")
        return with_etag(request, TopicDetailOutput(topic).data)


class TopicPapersApi(PublicApi):
    schema = ApiAutoSchema()

    @extend_schema(parameters=CURSOR_PARAMETERS, responses=PAPER_PAGE)
    def get(self, request, slug: str):
        reject_unknown_params(request, {"cursor", "limit"})
        topic = Topic.objects.filter(slug=slug, active=True).first()
        if topic is None:
            raise Http404(f"No topic {slug!r}.")
        paging = NewestFirstPagination(request)
        papers = paging.page_from(
            lambda cursor, size: topic_papers_page(topic=topic, cursor=cursor, size=size)
        )
        return with_etag(request, paging.body(PaperOutput(papers, many=True).data))
