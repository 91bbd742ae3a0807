"""The account as a whole: sign-up, everything about a person as JSON, and deletion."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.errors import InvalidInput
from accounts.models import ApiToken, Follow, Hidden, ListItem, ReadingList
from accounts.services.lists import account_setup
from topics.models import TagFeedback


@transaction.atomic
def account_create(*, username: str, password: str, email: str = ""):
    """A new user with their library and default list. The form has validated the input."""
    user = get_user_model().objects.create_user(username=username, email=email, password=password)
    account_setup(user=user)
    return user


@transaction.atomic
def account_password_changed(*, user, revoke_tokens: bool) -> int:
    """After a new password: lift the sign-in brake on the account (every address), and revoke
    its API tokens when asked (a reset always asks: whoever had the old password may have made
    one). Returns how many tokens were revoked."""
    from accounts.services.brakes import login_brake_lift

    revoked = 0
    if revoke_tokens:
        revoked = ApiToken.objects.filter(user=user, revoked_at=None).update(
            revoked_at=timezone.now()
        )
    login_brake_lift(username=user.get_username())
    return revoked


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def account_export(*, user) -> dict:
    """Everything Paperscope keeps about the person, as one JSON document (no token secrets:
    only their hashes are stored, and those are left out too)."""
    lists = []
    for reading_list in ReadingList.objects.filter(user=user).order_by("position", "id"):
        items = ListItem.objects.filter(reading_list=reading_list).select_related("paper")
        lists.append(
            {
                "id": reading_list.pk,
                "name": reading_list.name,
                "is_default": reading_list.is_default,
                "position": reading_list.position,
                "created": _iso(reading_list.created_at),
                "items": [
                    {
                        "arxiv_id": item.arxiv_id,
                        "title": item.paper.title if item.paper else None,
                        "note": item.note,
                        "read_state": item.read_state,
                        "position": item.position,
                        "added": _iso(item.added_at),
                        "modified": _iso(item.modified_at),
                    }
                    for item in items.order_by("position", "id")
                ],
            }
        )
    return {
        "format": "paperscope-account-export",
        "format_version": 1,
        "exported_at": _iso(timezone.now()),
        "user": {
            "username": user.get_username(),
            "email": user.email,
            "date_joined": _iso(user.date_joined),
            "last_login": _iso(user.last_login),
        },
        "follows": [
            {"topic": f.topic.slug, "name": f.topic.name, "followed": _iso(f.created_at)}
            for f in Follow.objects.filter(user=user).select_related("topic").order_by("id")
        ],
        "digest": _digest_export(user),
        "hidden": [
            {"arxiv_id": h.paper.arxiv_id, "hidden": _iso(h.created_at)}
            for h in Hidden.objects.filter(user=user).select_related("paper").order_by("id")
        ],
        "lists": lists,
        "tag_feedback": [
            {
                "arxiv_id": fb.paper.arxiv_id,
                "topic": fb.topic.slug,
                "vote": fb.vote,
                "created": _iso(fb.created_at),
            }
            for fb in TagFeedback.objects.filter(user=user)
            .select_related("paper", "topic")
            .order_by("id")
        ],
        "tokens": [
            {
                "name": t.name,
                "prefix": t.prefix,
                "scopes": t.scopes,
                "created": _iso(t.created_at),
                "last_used": _iso(t.last_used_at),
                "revoked": _iso(t.revoked_at),
            }
            for t in ApiToken.objects.filter(user=user).order_by("id")
        ],
    }


def _digest_export(user) -> dict:
    from accounts.services.digest_settings import digest_settings_get

    prefs = digest_settings_get(user=user)
    return {
        "frequency": prefs.frequency,
        "weekday": prefs.get_weekday_display().lower(),
        "muted": sorted(
            Follow.objects.filter(user=user, digest_muted=True).values_list(
                "topic__slug", flat=True
            )
        ),
        "last_sent": _iso(prefs.last_sent_at),
    }


@transaction.atomic
def account_delete(*, user, password: str) -> None:
    """Delete the account and everything it owns (tokens stop working at once: their rows go)."""
    if not isinstance(password, str) or not user.check_password(password):
        raise InvalidInput(
            "The password is not right; the account was not deleted.", code="wrong_password"
        )
    ApiToken.objects.filter(user=user).update(revoked_at=timezone.now())
    user.delete()
