"""The public papers API: one paper, a filtered list, and the batch lookup the extension uses."""

from __future__ import annotations

import hashlib
import json

from django.http import Http404, HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from accounts.throttling import client_address
from config.api import ApiAutoSchema, BadRequest, PublicApi, page_of
from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id, split_valid_ids
from papers.paging import NewestFirstPagination
from papers.selectors import paper_get, paper_list, paper_lookup_json
from papers.serializers import LookupPaperOutput, PaperDetailOutput, PaperOutput
from papers.services.lookup import pending_register

MAX_LOOKUP_IDS = 2000
MAX_QUERY_LENGTH = 500
# The answer of every newest-first list of papers (here and in the topics API).
PAPER_PAGE = page_of("PaperPage", PaperOutput)


def with_etag(request, body) -> Response:
    """A response with a strong ETag of its JSON body; 304 when the client already has it."""
    etag = (
        '"'
        + hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:32]
        + '"'
    )
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = Response(status=304)
    else:
        response = Response(body)
    response["ETag"] = etag
    return response


class PaperDetailApi(PublicApi):
    schema = ApiAutoSchema()

    @extend_schema(responses=PaperDetailOutput, summary="One paper by any form of its arXiv id")
    def get(self, request, raw_id: str):
        try:
            arxiv_id = parse_arxiv_id(raw_id).canonical
        except InvalidArxivId as exc:
            raise BadRequest(str(exc), code="invalid_arxiv_id") from None
        paper = paper_get(arxiv_id=arxiv_id)
        if paper is None:
            raise Http404(f"No paper {arxiv_id} here yet.")
        return with_etag(request, PaperDetailOutput(paper).data)


class PaperListApi(PublicApi):
    schema = ApiAutoSchema()

    class FilterInput(serializers.Serializer):
        topic = serializers.SlugField(required=False, max_length=100)
        q = serializers.CharField(required=False, max_length=MAX_QUERY_LENGTH)
        since = serializers.DateField(required=False)
        category = serializers.RegexField(
            r"^[a-z\-]+(\.[A-Za-z\-]+)?$", required=False, max_length=32
        )
        cursor = serializers.CharField(required=False)
        limit = serializers.IntegerField(required=False, min_value=1, max_value=100)

    @extend_schema(parameters=[FilterInput], responses=PAPER_PAGE)
    def get(self, request):
        unknown = set(request.query_params) - set(self.FilterInput().fields)
        if unknown:
            raise BadRequest(
                f"Unknown filter: {', '.join(sorted(unknown))}.", code="unknown_filter"
            )
        filters = self.FilterInput(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        if data.get("topic"):
            from topics.models import Topic

            if not Topic.objects.filter(slug=data["topic"]).exists():
                raise BadRequest(f"Unknown topic {data['topic']!r}.", code="unknown_topic")
        papers = paper_list(
            topic_slug=data.get("topic"),
            query=data.get("q"),
            since=data.get("since"),
            category=data.get("category"),
        )
        paging = NewestFirstPagination(request)
        page = paging.page(papers)
        return with_etag(request, paging.body(PaperOutput(page, many=True).data))


def _plain_strings(ids) -> bool:
    """True when LookupInput would accept ``ids`` unchanged: a non-empty list of non-blank
    strings of at most 200 characters without surrounding whitespace. Validating 2,000 ids
    field by field cost the lookup more than its query."""
    return (
        isinstance(ids, list)
        and bool(ids)
        and all(type(i) is str and 0 < len(i) <= 200 and i == i.strip() for i in ids)
    )


class PaperLookupApi(PublicApi):
    """What the extension calls once per arXiv listing page: known papers with their tags, and
    the ids we do not have yet, which are queued for an on-demand fetch."""

    schema = ApiAutoSchema()

    class LookupInput(serializers.Serializer):
        ids = serializers.ListField(child=serializers.CharField(max_length=200), allow_empty=False)

    @extend_schema(
        request=LookupInput,
        responses=inline_serializer(
            "LookupOutput",
            {
                "papers": LookupPaperOutput(many=True),
                "pending": serializers.ListField(child=serializers.CharField()),
                "not_found": serializers.ListField(child=serializers.CharField()),
                "unavailable": serializers.ListField(
                    child=serializers.CharField(),
                    help_text="ids we cannot fetch now (arXiv kept failing, or this client or "
                    "the queue is at its bound): ask again later",
                ),
            },
        ),
    )
    def post(self, request):
        ids = request.data.get("ids") if isinstance(request.data, dict) else None
        if isinstance(ids, list) and len(ids) > MAX_LOOKUP_IDS:
            raise BadRequest(
                f"At most {MAX_LOOKUP_IDS} ids per lookup, got {len(ids)}.", code="too_many_ids"
            )
        if not _plain_strings(ids):  # the serializer only for input it may reject or change
            body = self.LookupInput(data=request.data)
            body.is_valid(raise_exception=True)
            ids = body.validated_data["ids"]
        good, bad = split_valid_ids(ids)
        if bad:
            raise BadRequest(
                f"Not arXiv ids: {', '.join(bad[:20])}" + (" …" if len(bad) > 20 else ""),
                code="invalid_arxiv_id",
                invalid_ids=bad,
            )
        wanted = list(dict.fromkeys(i.canonical for i in good))
        known = paper_lookup_json(arxiv_ids=wanted)
        missing = [arxiv_id for arxiv_id in wanted if arxiv_id not in known]
        outcome = pending_register(arxiv_ids=missing, client=client_address(request))
        # The entries come encoded (papers.selectors.paper_lookup_json): joined, not re-encoded.
        body = (
            '{"papers":['
            + ",".join(known[i] for i in wanted if i in known)
            + f'],"pending":{json.dumps(outcome.pending)}'
            + f',"not_found":{json.dumps(sorted(outcome.not_found))}'
            + f',"unavailable":{json.dumps(outcome.unavailable)}}}'
        )
        return HttpResponse(body, content_type="application/json")
