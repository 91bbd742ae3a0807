"""The email digest's settings and preview, and saved-paper alerts."""

from __future__ import annotations

from collections import defaultdict

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from accounts import selectors
from accounts.apis.base import PersonalApi, validated
from accounts.models import ListItem
from accounts.serializers import AlertOutput, DigestPreviewOutput, DigestSettingsOutput
from accounts.services import alerts as alert_services
from accounts.services.delivery import digest_preview
from accounts.services.digest_settings import (
    FREQUENCIES,
    digest_settings_get,
    digest_settings_update,
)
from config.api import page_of

MAX_ALERTS = 1000


class DigestApi(PersonalApi):
    write_scope = "follows:write"

    class DigestInput(serializers.Serializer):
        frequency = serializers.ChoiceField(choices=FREQUENCIES, required=False)
        weekday = serializers.CharField(
            required=False, max_length=20, help_text="monday … sunday (or 0 = Monday … 6)"
        )
        muted = serializers.ListField(
            child=serializers.CharField(max_length=100), required=False, max_length=500
        )

    def _answer(self, request, prefs=None) -> Response:
        prefs = prefs or digest_settings_get(user=request.user)
        follows = selectors.follows_for_user(user=request.user)
        return Response(DigestSettingsOutput(prefs, context={"follows": follows}).data)

    @extend_schema(summary="The caller's email digest settings", responses=DigestSettingsOutput)
    def get(self, request):
        return self._answer(request)

    @extend_schema(
        summary="Change the digest: frequency (daily, weekly, off), weekday, muted topics",
        request=DigestInput,
        responses=DigestSettingsOutput,
    )
    def patch(self, request):
        data = validated(self.DigestInput, request.data)
        prefs = digest_settings_update(
            user=request.user,
            frequency=data.get("frequency"),
            weekday=data.get("weekday"),
            muted=data.get("muted"),
        )
        return self._answer(request, prefs)

    @extend_schema(
        summary="Replace the digest settings (fields left out keep their value)",
        request=DigestInput,
        responses=DigestSettingsOutput,
    )
    def put(self, request):
        return self.patch(request)


class DigestPreviewApi(PersonalApi):
    @extend_schema(
        summary="The next digest as it stands now (nothing is sent)",
        responses=DigestPreviewOutput,
    )
    def get(self, request):
        return Response(DigestPreviewOutput(digest_preview(user=request.user)).data)


class AlertListApi(PersonalApi):
    @extend_schema(
        summary="News about saved papers: new versions, journal references, DOIs, withdrawals",
        responses=page_of("AlertList", AlertOutput, count=serializers.IntegerField()),
    )
    def get(self, request):
        alerts = list(alert_services.alerts_for_user(user=request.user)[:MAX_ALERTS])
        lists: dict[str, set[int]] = defaultdict(set)
        for arxiv_id, list_id in ListItem.objects.filter(
            reading_list__user=request.user,
            arxiv_id__in=[alert.paper.arxiv_id for alert in alerts],
        ).values_list("arxiv_id", "reading_list_id"):
            lists[arxiv_id].add(list_id)
        data = AlertOutput(alerts, many=True, context={"lists": lists}).data
        return Response({"results": data, "next": None, "count": len(data)})


class AlertDetailApi(PersonalApi):
    write_scope = "lists:write"

    @extend_schema(
        summary="Mark an alert as seen: it leaves the list, the API and the digest",
        responses={204: None},
    )
    def delete(self, request, alert_id: int):
        alert_services.alert_dismiss(user=request.user, alert_id=alert_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
