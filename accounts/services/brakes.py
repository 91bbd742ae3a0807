"""Brakes on what strangers can make the site do over and over: guess passwords, create
accounts, send password-reset mail. Each counts in accounts.ratelimit (atomic) and keys on the
client address as the trusted proxy saw it (accounts.throttling.client_address), never on the
socket's, which behind a proxy is the proxy's and would lock everyone out together."""

from __future__ import annotations

import secrets

from django.core.cache import cache

from accounts.ratelimit import counter_key, rate_clear, rate_hit, rate_peek

LOGIN_FAILURES_ALLOWED = 10
LOGIN_FAILURE_WINDOW = 15 * 60  # seconds
SIGNUPS_PER_ADDRESS = 5
SIGNUP_WINDOW = 60 * 60
RESET_MAILS_PER_ADDRESS = 10
RESET_MAILS_PER_EMAIL = 3
RESET_WINDOW = 60 * 60


def _normal(username: str) -> str:
    return (username or "").strip().lower()


def _login_key(*, address: str, username: str) -> str:
    # The account's epoch is part of the key, so lifting the brake for every address at once is
    # one write: a new epoch, under which nobody has failed yet.
    epoch = cache.get(_epoch_key(username), "0")
    return counter_key("login-failures", address, _normal(username), epoch)


def _epoch_key(username: str) -> str:
    return counter_key("login-epoch", _normal(username))


def login_brake_engaged(*, address: str, username: str) -> bool:
    """Whether this address has failed to sign in to this account too often lately."""
    key = _login_key(address=address, username=username)
    return rate_peek(key=key) >= LOGIN_FAILURES_ALLOWED


def login_failure_record(*, address: str, username: str) -> None:
    rate_hit(key=_login_key(address=address, username=username), window=LOGIN_FAILURE_WINDOW)


def login_brake_lift(*, username: str) -> None:
    """Forget every address's failures for this account (after a successful password reset)."""
    cache.set(_epoch_key(username), secrets.token_hex(8), timeout=None)


def login_brake_lift_address(*, address: str, username: str) -> None:
    rate_clear(key=_login_key(address=address, username=username))


def signup_allowed(*, address: str) -> bool:
    """Count one sign-up from this address; False when it is over SIGNUPS_PER_ADDRESS."""
    count = rate_hit(key=counter_key("signups", address), window=SIGNUP_WINDOW)
    return count is None or count <= SIGNUPS_PER_ADDRESS


def reset_mail_allowed_from(*, address: str) -> bool:
    """Count one reset request from this address; False when it is over the limit."""
    count = rate_hit(key=counter_key("reset-from", address), window=RESET_WINDOW)
    return count is None or count <= RESET_MAILS_PER_ADDRESS


def reset_mail_allowed_to(*, email: str) -> bool:
    """Count one reset mail to this address; False when it has had enough for now (whoever
    asks), so nobody can flood someone's inbox from many addresses."""
    count = rate_hit(key=counter_key("reset-to", email.strip().lower()), window=RESET_WINDOW)
    return count is None or count <= RESET_MAILS_PER_EMAIL
