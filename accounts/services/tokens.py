"""API tokens: created once in the clear, kept as a SHA-256 hash, revocable at once."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from accounts.errors import InvalidInput, NotFoundError
from accounts.models import ApiToken

TOKEN_PREFIX = "ps_"  # noqa: S105 (a marker that makes leaked tokens easy to grep, not a secret)
ALL_SCOPES = tuple(ApiToken.Scope.values)
EXTENSION_SCOPES = ("read", "lists:write", "follows:write", "feedback:write")
MAX_ACTIVE_TOKENS = 50
# last_used_at is written at most this often per token: one UPDATE per request would make
# every read a write.
TOUCH_INTERVAL = timedelta(minutes=1)


def token_hash(raw: str) -> str:
    # Tokens are 256 random bits, so a fast hash is enough: nobody can brute-force the input.
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(*, user, name: str, scopes: list[str] | tuple[str, ...]) -> tuple[ApiToken, str]:
    """Create a token; return it with the only copy of its clear text."""
    name = (name or "").strip()
    if not name:
        raise InvalidInput("A token needs a name, such as the browser it is for.", code="required")
    if len(name) > 100:
        raise InvalidInput("A token name has at most 100 characters.", code="max_length")
    scopes = list(dict.fromkeys(scopes))
    unknown = [scope for scope in scopes if scope not in ALL_SCOPES]
    if unknown or not scopes:
        raise InvalidInput(
            f"Scopes must be some of {', '.join(ALL_SCOPES)}"
            + (f"; unknown: {', '.join(map(str, unknown))}." if unknown else "."),
            code="invalid_scope",
        )
    if ApiToken.objects.filter(user=user, revoked_at=None).count() >= MAX_ACTIVE_TOKENS:
        raise InvalidInput(
            f"You have {MAX_ACTIVE_TOKENS} active tokens; revoke one first.", code="too_many_tokens"
        )
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user=user,
        name=name,
        prefix=raw[: len(TOKEN_PREFIX) + 6],
        key_hash=token_hash(raw),
        scopes=[scope for scope in ALL_SCOPES if scope in scopes],
    )
    token.full_clean()
    token.save()
    return token, raw


def token_revoke(*, user, token_id: int) -> ApiToken:
    """Revoke one of the user's tokens; the next request that carries it gets a 401."""
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        raise NotFoundError("No such token.")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_touch(*, token: ApiToken) -> None:
    """Record that the token was used, at most once per TOUCH_INTERVAL (a conditional UPDATE)."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < TOUCH_INTERVAL:
        return
    ApiToken.objects.filter(pk=token.pk).filter(
        Q(last_used_at=None) | Q(last_used_at__lt=now - TOUCH_INTERVAL)
    ).update(last_used_at=now)
    token.last_used_at = now
