"""What the hostile-input and stranger tests share: the leak check, the API error check, a
snapshot of everything a request could have written, and the owner's script and papers."""

from __future__ import annotations

import json
import re

from accounts.models import (
    ApiToken,
    Follow,
    Hidden,
    ListItem,
    ReadingList,
)
from papers.models import PendingLookup

FIVE_MB = 5 * 1024 * 1024
# What an error body must never show: a traceback, a file of ours, SQL, the database, settings.
LEAKS = re.compile(
    r"Traceback|File \"|site-packages|/work/|\bSELECT\b|\bINSERT\b|\bUPDATE\b|\bFROM \"|psycopg|"
    r"sqlite|OperationalError|IntegrityError|SECRET_KEY|DATABASES|DJANGO_SETTINGS|settings\.py",
)


def assert_api_error(response, status: int | tuple[int, ...], code: str | None = None) -> dict:
    """A JSON error with a stable code and a human detail, and nothing that should stay inside."""
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, response.content[:500]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert isinstance(body.get("code"), str), body
    assert isinstance(body.get("detail"), str), body
    assert body["detail"], body
    if code is not None:
        assert body["code"] == code, body
    assert not LEAKS.search(response.content.decode()), response.content[:500]
    return body


def assert_no_leak(response) -> None:
    assert response.status_code < 500, response.status_code
    assert not LEAKS.search(response.content.decode(errors="replace")), response.content[:500]


def stored() -> tuple:
    """Everything a request could have written."""
    return (
        sorted(ReadingList.objects.values_list("id", "name", "version")),
        sorted(ListItem.objects.values_list("reading_list_id", "arxiv_id", "note")),
        sorted(PendingLookup.objects.values_list("arxiv_id", flat=True)),
        sorted(Follow.objects.values_list("user_id", "topic_id")),
        sorted(Hidden.objects.values_list("user_id", "paper_id")),
        sorted(ApiToken.objects.values_list("id", "revoked_at")),
    )


def default_list(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk
