"""Ask's quotas: per signed-in user (per address when anonymous) and per client address whoever
asks, from settings ASK_RATE_USER / ASK_RATE_ADDRESS, read on each request. Over either, the
API answers 429 with Retry-After (config.api's error format)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class AskUserThrottle(SimpleRateThrottle):
    scope = "ask_user"

    def get_rate(self) -> str:
        return settings.ASK_RATE_USER

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        ident = (
            f"u{user.pk}" if user is not None and user.is_authenticated else self.get_ident(request)
        )
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AskAddressThrottle(SimpleRateThrottle):
    scope = "ask_address"

    def get_rate(self) -> str:
        return settings.ASK_RATE_ADDRESS

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
