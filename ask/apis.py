"""Ask's API: POST a question about a topic or a paper; the answer as JSON, or streamed as
server-sent events when the request accepts text/event-stream."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import renderers, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import BearerTokenAuthentication
from ask.limits import AskAddressThrottle, AskUserThrottle
from ask.selectors import passages_search, topic_paper_ids
from ask.services.answers import Asker, answer_events
from ask.services.fulltext import paper_text_status
from ask.services.passages import passages_index_for_question, passages_index_papers
from config.api import ApiAutoSchema, BadRequest
from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id
from papers.models import Paper
from topics.models import Topic


class EventStreamRenderer(renderers.BaseRenderer):
    """Lets a request that accepts only text/event-stream through content negotiation; the
    stream itself is a StreamingHttpResponse."""

    media_type = "text/event-stream"
    format = "sse"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data).encode()


class AskInput(serializers.Serializer):
    question = serializers.CharField(trim_whitespace=True, allow_blank=True)


class AskOutput(serializers.Serializer):
    question = serializers.CharField()
    mode = serializers.ChoiceField(choices=["model", "extractive", "fallback", "cached"])
    notice = serializers.CharField(help_text="why there is no model answer, when there is not")
    answer = serializers.CharField(help_text="the model's answer with [n] citations, or empty")
    citations = serializers.ListField(child=serializers.DictField())
    passages = serializers.ListField(child=serializers.DictField())
    papers = serializers.ListField(child=serializers.DictField())


def _sse(events) -> Iterator[bytes]:
    for name, data in events:
        yield f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class _AskApi(APIView):
    authentication_classes = [BearerTokenAuthentication, SessionAuthentication]
    throttle_classes = [AskUserThrottle, AskAddressThrottle]
    renderer_classes = [renderers.JSONRenderer, EventStreamRenderer]
    schema = ApiAutoSchema()
    scope = ""

    def question(self, request) -> str:
        data = AskInput(data=request.data)
        data.is_valid(raise_exception=True)
        question = data.validated_data["question"]
        if not question:
            raise BadRequest("Ask a question.", code="question_missing")
        if len(question) > settings.ASK_QUESTION_MAX_CHARS:
            raise BadRequest(
                f"Questions are at most {settings.ASK_QUESTION_MAX_CHARS} characters.",
                code="question_too_long",
            )
        return question

    def respond(self, request, *, question, hits, target, extra=None):
        user = request.user if request.user.is_authenticated else None
        asker = Asker(user_id=user.pk if user else None,
                      address=AskAddressThrottle().get_ident(request) or "")  # fmt: skip
        events = answer_events(question=question, hits=hits, asker=asker, scope=self.scope,
                               target=target, extra=extra)  # fmt: skip
        if "text/event-stream" in request.headers.get("Accept", ""):
            response = StreamingHttpResponse(_sse(events), content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
            return response
        done = {}
        for name, data in events:
            if name == "done":
                done = data
        return Response(done)


class TopicAskApi(_AskApi):
    """Ask about a topic: passages from the topic's papers (their abstracts, and full
    text where fetched), the answer citing them."""

    scope = "topic"

    @extend_schema(request=AskInput, responses=AskOutput)
    def post(self, request, slug: str):
        topic = Topic.objects.filter(slug=slug).first()
        if topic is None:
            raise Http404("No such topic.")
        question = self.question(request)
        paper_ids = topic_paper_ids(topic_id=topic.id)
        passages_index_for_question(paper_ids=paper_ids)
        hits = passages_search(question=question, paper_ids=paper_ids)
        return self.respond(request, question=question, hits=hits, target=topic.slug,
                            extra={"topic": {"slug": topic.slug, "name": topic.name}})  # fmt: skip


class PaperAskApi(_AskApi):
    """Ask about one paper: its full text is fetched once (arXiv's HTML, else the PDF) through
    the arXiv gate; until it is in, the answer comes from the title and abstract."""

    scope = "paper"

    @extend_schema(request=AskInput, responses=AskOutput)
    def post(self, request, raw_id: str):
        try:
            arxiv_id = parse_arxiv_id(raw_id).canonical
        except InvalidArxivId:
            raise BadRequest("Not an arXiv identifier.", code="invalid_id") from None
        paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
        if paper is None:
            raise Http404("No such paper here.")
        question = self.question(request)
        passages_index_papers(papers=[paper])
        fulltext = paper_text_status(paper=paper)
        hits = passages_search(question=question, paper_ids=[paper.id], distinct_first=0)
        return self.respond(request, question=question, hits=hits, target=paper.arxiv_id,
                            extra={"paper": {"arxiv_id": paper.arxiv_id, "title": paper.title},
                                   "fulltext": fulltext})  # fmt: skip
