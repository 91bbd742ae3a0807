"""Links in a digest that act without a password: one-click save (signed, expiring) and
unsubscribe (signed, not expiring: RFC 8058 asks that it keep working).

Both are HMAC-signed with SECRET_KEY by django.core.signing, each with its own salt, so a save
link cannot be replayed as an unsubscribe link or the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.urls import reverse

from accounts.errors import InvalidInput

SAVE_SALT = "accounts.digest.save"
UNSUBSCRIBE_SALT = "accounts.digest.unsubscribe"


class LinkExpired(InvalidInput):
    code = "link_expired"


@dataclass(frozen=True)
class SaveLink:
    user_id: int
    arxiv_id: str


def absolute(path: str) -> str:
    return str(settings.DIGEST_BASE_URL).rstrip("/") + path


def save_link_token(*, user_id: int, arxiv_id: str) -> str:
    return signing.TimestampSigner(salt=SAVE_SALT).sign_object({"u": user_id, "a": arxiv_id})


def save_link_url(*, user_id: int, arxiv_id: str) -> str:
    token = save_link_token(user_id=user_id, arxiv_id=arxiv_id)
    return absolute(reverse("accounts-digest-save", args=[token]))


def save_link_read(token: str) -> SaveLink:
    """The person and paper a save link names; LinkExpired after DIGEST_SAVE_LINK_DAYS,
    InvalidInput when it was not made here (or was changed)."""
    max_age = settings.DIGEST_SAVE_LINK_DAYS * 24 * 60 * 60
    try:
        value = signing.TimestampSigner(salt=SAVE_SALT).unsign_object(token, max_age=max_age)
    except signing.SignatureExpired:
        raise LinkExpired(
            f"This save link has expired: links in a digest work for "
            f"{settings.DIGEST_SAVE_LINK_DAYS} days."
        ) from None
    except (signing.BadSignature, ValueError, TypeError):
        raise InvalidInput("This link is not one Paperscope made.", code="bad_link") from None
    if not isinstance(value, dict) or not isinstance(value.get("u"), int):
        raise InvalidInput("This link is not one Paperscope made.", code="bad_link")
    return SaveLink(user_id=value["u"], arxiv_id=str(value.get("a", "")))


def unsubscribe_token(*, user_id: int) -> str:
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(user_id))


def unsubscribe_url(*, user_id: int) -> str:
    return absolute(
        reverse("accounts-digest-unsubscribe", args=[unsubscribe_token(user_id=user_id)])
    )


def unsubscribe_read(token: str) -> int:
    """The user id an unsubscribe link names; InvalidInput when it was not made here."""
    try:
        value = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token)
    except signing.BadSignature:
        raise InvalidInput("This link is not one Paperscope made.", code="bad_link") from None
    if not value.isdigit():
        raise InvalidInput("This link is not one Paperscope made.", code="bad_link")
    return int(value)
