"""Throttles for the personal API: per user once signed in, per address before that.

Rates come from settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] ("user", "anon"), read on each
request (DRF's own classes read them once at import, which override_settings cannot reach).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle

DEFAULT_RATES = {"user": "1200/min", "anon": "600/min"}


class _SettingsRate:
    scope: str

    def get_rate(self) -> str:
        rates = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
        return rates.get(self.scope) or DEFAULT_RATES[self.scope]


class PersonalUserThrottle(_SettingsRate, UserRateThrottle):
    """Per signed-in user (session or token alike), shared with the public API's user budget."""

    scope = "user"


class AddressThrottle(_SettingsRate, SimpleRateThrottle):
    """Per client address, for requests turned away before a user is known (no or bad
    credentials), so guessing tokens costs as much as any other request."""

    scope = "anon"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
