"""Follows, the feed, hidden papers and tag feedback."""

from __future__ import annotations

from django.core.validators import slug_re
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from accounts import selectors
from accounts.apis.base import (
    PersonalApi,
    created_or_ok,
    validated,
)
from accounts.serializers import (
    FeedbackOutput,
    FeedPaperOutput,
    FollowOutput,
    HiddenOutput,
)
from accounts.services import feedback as feedback_services
from accounts.services import follows as follow_services
from config.api import CURSOR_PARAMETERS, BadRequest, page_of
from papers.paging import NewestFirstPagination
from topics.models import TagFeedback, Topic

# --- follows, feed, hidden ------------------------------------------------------------------


class FollowListApi(PersonalApi):
    write_scope = "follows:write"

    class FollowInput(serializers.Serializer):
        topic = serializers.CharField(max_length=100)

    @extend_schema(
        summary="Topics the caller follows", responses=page_of("FollowList", FollowOutput)
    )
    def get(self, request):
        follows = selectors.follows_for_user(user=request.user)
        return Response({"results": FollowOutput(follows, many=True).data, "next": None})

    @extend_schema(
        summary="Follow a topic (idempotent)",
        request=FollowInput,
        responses=created_or_ok(FollowOutput),
    )
    def post(self, request):
        data = validated(self.FollowInput, request.data)
        follow, created = follow_services.follow_create(user=request.user, topic_slug=data["topic"])
        return Response(
            FollowOutput(follow).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class FollowDetailApi(PersonalApi):
    write_scope = "follows:write"

    @extend_schema(summary="Unfollow a topic", responses={204: None})
    def delete(self, request, slug: str):
        follow_services.follow_delete(user=request.user, topic_slug=slug)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FeedApi(PersonalApi):
    allowed_params = ("topic", "cursor", "limit")

    @extend_schema(
        summary="Papers in followed topics, newest first, minus the hidden ones",
        parameters=[
            OpenApiParameter("topic", str, description="only this topic (a slug)"),
            *CURSOR_PARAMETERS,
        ],
        responses=page_of("FeedPage", FeedPaperOutput),
    )
    def get(self, request):
        topic_ids = selectors.followed_topic_ids(user=request.user)
        slug = request.query_params.get("topic")
        if slug:
            # Not a slug (a NUL byte ...) is unknown without asking the database, which may refuse.
            topics = Topic.objects.filter(slug=slug[:100], active=True)
            topic = topics.first() if slug_re.match(slug) else None
            if topic is None:
                raise BadRequest(f"Unknown topic {slug[:100]!r}.", code="unknown_topic")
            topic_ids = {topic.pk}
        papers = selectors.feed_for_user(user=request.user, topic_ids=topic_ids)
        paging = NewestFirstPagination(request)
        page = paging.page(papers)
        selectors.feed_decorate(user=request.user, papers=page, topic_ids=topic_ids)
        return Response(paging.body(FeedPaperOutput(page, many=True).data))


class HiddenListApi(PersonalApi):
    write_scope = "follows:write"

    class HideInput(serializers.Serializer):
        arxiv_id = serializers.CharField(max_length=300)

    @extend_schema(
        summary="Papers the caller is not interested in",
        responses=page_of("HiddenList", HiddenOutput),
    )
    def get(self, request):
        hidden = selectors.hidden_for_user(user=request.user)[:5000]
        return Response({"results": HiddenOutput(hidden, many=True).data, "next": None})

    @extend_schema(
        summary="Hide a paper from the feed for good",
        request=HideInput,
        responses=created_or_ok(HiddenOutput),
    )
    def post(self, request):
        data = validated(self.HideInput, request.data)
        hidden, created = follow_services.hidden_create(
            user=request.user, arxiv_id=data["arxiv_id"]
        )
        return Response(
            HiddenOutput(hidden).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class HiddenDetailApi(PersonalApi):
    write_scope = "follows:write"

    @extend_schema(summary="Show a hidden paper in the feed again", responses={204: None})
    def delete(self, request, arxiv_id: str):
        follow_services.hidden_delete(user=request.user, arxiv_id=arxiv_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- tag feedback ----------------------------------------------------------------------------


class FeedbackApi(PersonalApi):
    write_scope = "feedback:write"

    class FeedbackInput(serializers.Serializer):
        arxiv_id = serializers.CharField(max_length=300)
        topic = serializers.CharField(max_length=100)
        vote = serializers.ChoiceField(choices=TagFeedback.Vote.values)

    @extend_schema(
        summary="The caller's tag feedback", responses=page_of("FeedbackList", FeedbackOutput)
    )
    def get(self, request):
        feedback = (
            TagFeedback.objects.filter(user=request.user)
            .select_related("paper", "topic")
            .order_by("-created_at", "-id")[:5000]
        )
        return Response({"results": FeedbackOutput(feedback, many=True).data, "next": None})

    @extend_schema(
        summary="Confirm, reject or add a topic tag on a paper", request=FeedbackInput,
        responses=created_or_ok(FeedbackOutput),
    )  # fmt: skip
    def post(self, request):
        data = validated(self.FeedbackInput, request.data)
        feedback, created = feedback_services.tag_feedback_submit(
            user=request.user,
            arxiv_id=data["arxiv_id"],
            topic_slug=data["topic"],
            vote=data["vote"],
        )
        return Response(
            FeedbackOutput(feedback).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )
