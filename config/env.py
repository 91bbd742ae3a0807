"""Typed helpers that read settings from the environment and fail loudly.

Every setting that changes between a laptop and a lab server comes through here, so that a
missing or malformed variable stops start-up with one line naming it (healthchecks' envbool style).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import overload
from urllib.parse import urlsplit


class ImproperlyConfiguredEnv(SystemExit):
    """Raised (as a clean exit with one clear line) when an environment variable is wrong."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"Paperscope configuration error: {name} {problem}")


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip()


def env_bool(name: str, default: bool = False) -> bool:
    value = env_str(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfiguredEnv(name, f"must be true or false (1/0, yes/no), got {value!r}")


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = env_str(name)
    if value is None:
        return default
    if value.lower() not in choices:
        raise ImproperlyConfiguredEnv(name, f"must be one of {', '.join(choices)}, got {value!r}")
    return value.lower()


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = env_str(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfiguredEnv(name, f"must be an integer, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfiguredEnv(name, f"must be at least {minimum}, got {number}")
    return number


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    value = env_str(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfiguredEnv(name, f"must be a number, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfiguredEnv(name, f"must be at least {minimum}, got {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = env_str(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


@overload
def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str: ...
@overload
def env_url(name: str, default: None, *, schemes: tuple[str, ...]) -> str | None: ...
def env_url(name: str, default: str | None, *, schemes: tuple[str, ...]) -> str | None:
    """A URL with one of ``schemes``; with a default, never None."""
    value = env_str(name, default)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        allowed = ", ".join(f"{scheme}://" for scheme in schemes)
        raise ImproperlyConfiguredEnv(name, f"must be a URL starting with {allowed}, got {value!r}")
    return value


def env_email(name: str, default: str) -> str:
    value = env_str(name, default) or default
    local, _, domain = value.partition("@")
    if not local or "." not in domain or " " in value:
        raise ImproperlyConfiguredEnv(name, f"must be an email address, got {value!r}")
    return value


def database_from_url(name: str, default: str) -> dict:
    """Django DATABASES entry from `sqlite:///path` or `postgres://user:pw@host:port/db`."""
    url = env_url(name, default, schemes=("sqlite", "postgres", "postgresql"))
    assert url is not None
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = parts.path[1:] if parts.path.startswith("//") else parts.path
        if not path:
            raise ImproperlyConfiguredEnv(
                name, "needs a file path, e.g. sqlite:////abs/path/db.sqlite3"
            )
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            # WAL lets the web server read while a worker writes; the timeout rides out short locks.
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    database = parts.path.lstrip("/")
    if not database:
        raise ImproperlyConfiguredEnv(
            name, "needs a database name, e.g. postgres://127.0.0.1/paperscope"
        )
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": database,
        "USER": parts.username or "",
        "PASSWORD": parts.password or "",
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


def secret_key(name: str, *, debug: bool, data_dir: Path) -> str:
    """SECRET_KEY from the environment; in DEBUG, generated once and kept under the data folder."""
    value = env_str(name)
    if value is not None:
        if len(value) < 32:
            raise ImproperlyConfiguredEnv(name, "must be at least 32 characters long")
        return value
    if not debug:
        raise ImproperlyConfiguredEnv(name, "is required when DEBUG is off")
    key_file = data_dir / "secret_key"
    if not key_file.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()
