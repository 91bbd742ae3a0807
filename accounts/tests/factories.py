"""The test builders of the accounts app: users and API tokens (papers, topics and tags come
from their own apps' factories)."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model

from accounts.services.tokens import ALL_SCOPES, token_create

PASSWORD = "correct horse battery staple"
_numbers = itertools.count(1)


def user_create(username: str | None = None, *, email: str | None = None):
    username = username or f"user{next(_numbers)}"
    return get_user_model().objects.create_user(
        username=username, email=email if email is not None else f"{username}@example.org",
        password=PASSWORD,
    )  # fmt: skip


def api_token(user, *, scopes=ALL_SCOPES, name: str = "test token") -> tuple:
    """(token row, clear text)."""
    return token_create(user=user, name=name, scopes=list(scopes))
