"""The account itself: who am I, everything as JSON, deletion; and API tokens."""

from __future__ import annotations

import json

from django.contrib.auth import logout
from django.http import HttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts import selectors
from accounts.apis.base import (
    PersonalApi,
    validated,
)
from accounts.models import ApiToken
from accounts.serializers import (
    TokenOutput,
)
from accounts.services import account as account_services
from accounts.services import lists as list_services
from accounts.services import tokens as token_services
from config.api import ErrorOutput, page_of

# --- me --------------------------------------------------------------------------------------


class MeApi(PersonalApi):
    session_only_methods = ("DELETE",)

    class AccountDeleteInput(serializers.Serializer):
        password = serializers.CharField(max_length=4096, trim_whitespace=False)

    @extend_schema(
        summary="Who the caller is and their default list",
        responses=inline_serializer(
            "Me",
            {
                "username": serializers.CharField(),
                "default_list": serializers.IntegerField(),
                "library_version": serializers.IntegerField(),
                "scopes": serializers.ListField(child=serializers.CharField(), allow_null=True),
            },
        ),
    )
    def get(self, request):
        default = list_services.reading_list_default(user=request.user)
        token = request.auth if isinstance(request.auth, ApiToken) else None
        return self.with_version(
            Response(
                {
                    "username": request.user.get_username(),
                    "default_list": default.pk,
                    "library_version": selectors.library_version(user=request.user),
                    "scopes": token.scopes if token else None,
                }
            )
        )

    @extend_schema(
        summary="Delete the account (session only, password required)",
        request=AccountDeleteInput,
        responses={204: None},
    )
    def delete(self, request):
        data = validated(self.AccountDeleteInput, request.data)
        account_services.account_delete(user=request.user, password=data["password"])
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeExportApi(PersonalApi):
    @extend_schema(
        summary="Everything about the caller as one JSON document", responses=OpenApiTypes.OBJECT
    )
    def get(self, request):
        return account_export_response(user=request.user)


def account_export_response(*, user) -> HttpResponse:
    body = account_services.account_export(user=user)
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    name = slugify(user.get_username()) or "account"
    response["Content-Disposition"] = f'attachment; filename="paperscope-{name}.json"'
    return response


# --- tokens (session only) -------------------------------------------------------------------


class TokenCreatedOutput(TokenOutput):
    token = serializers.CharField(help_text="the secret, shown in this answer only")


class TokenListApi(PersonalApi):
    session_only = True

    class TokenCreateInput(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        scopes = serializers.ListField(
            child=serializers.CharField(max_length=40), required=False, default=["read"]
        )

    @extend_schema(
        summary="The caller's API tokens (never their secrets)",
        responses=page_of("TokenList", TokenOutput),
    )
    def get(self, request):
        tokens = selectors.tokens_for_user(user=request.user)
        return Response({"results": TokenOutput(tokens, many=True).data, "next": None})

    @extend_schema(
        summary="Create a token; its secret is in this answer only", request=TokenCreateInput,
        responses={201: TokenCreatedOutput},
    )  # fmt: skip
    def post(self, request):
        data = validated(self.TokenCreateInput, request.data)
        token, raw = token_services.token_create(
            user=request.user, name=data["name"], scopes=data["scopes"]
        )
        return Response({**TokenOutput(token).data, "token": raw}, status=status.HTTP_201_CREATED)


class TokenDetailApi(PersonalApi):
    """One token. Signed in: any of the person's tokens. With a token: only that token itself,
    so the extension can disconnect by revoking its own token; any other id is a 404."""

    permission_classes = [IsAuthenticated]

    def _token(self, request, token_id: int) -> ApiToken:
        own = request.auth if isinstance(request.auth, ApiToken) else None
        token = selectors.tokens_for_user(user=request.user).filter(pk=token_id).first()
        if token is None or (own is not None and own.pk != token.pk):
            raise exceptions.NotFound("No such token.")
        return token

    @extend_schema(summary="One token", responses=TokenOutput)
    def get(self, request, token_id: int):
        return Response(TokenOutput(self._token(request, token_id)).data)

    @extend_schema(summary="Revoke a token; it stops working at once", responses={204: None})
    def delete(self, request, token_id: int):
        token = self._token(request, token_id)
        token_services.token_revoke(user=request.user, token_id=token.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenCurrentApi(PersonalApi):
    """The token making the request: what it is, and DELETE to revoke it (the extension's
    "disconnect", which does not know its token's id)."""

    permission_classes = [IsAuthenticated]

    def _token(self, request) -> ApiToken:
        if not isinstance(request.auth, ApiToken):
            raise exceptions.NotFound("This request is not made with an API token.")
        return request.auth

    @extend_schema(
        summary="The token making this request", responses={200: TokenOutput, 404: ErrorOutput}
    )
    def get(self, request):
        return Response(TokenOutput(self._token(request)).data)

    @extend_schema(
        summary="Revoke the token making this request", responses={204: None, 404: ErrorOutput}
    )
    def delete(self, request):
        token_services.token_revoke(user=request.user, token_id=self._token(request).pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
