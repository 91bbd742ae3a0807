"""Throttles for every API view: per user once signed in, per client address before that.

Each counts with one atomic increment (accounts.ratelimit) in a fixed window: DRF's own classes
read a list of request times, append and write it back, which parallel requests race past.
Rates come from settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] ("user", "anon"), read on each
request (DRF's own classes read them once at import, which override_settings cannot reach).
"""

from __future__ import annotations

import time

from django.conf import settings
from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.throttling import BaseThrottle

from accounts.ratelimit import rate_hit

DEFAULT_RATES = {"user": "1200/min", "anon": "600/min"}
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def client_address(request: HttpRequest) -> str:
    """The client's address: the connection's own, or with NUM_PROXIES trusted reverse proxies
    in front, the address the outermost of them saw (counted from the end of X-Forwarded-For,
    so what a client writes there itself never counts). DRF's rule, for Django requests too."""
    return BaseThrottle().get_ident(request)  # type: ignore[arg-type]  # reads META only


def parse_rate(rate: str) -> tuple[int, int]:
    """ "600/min" -> (600, 60)."""
    number, period = rate.split("/")
    return int(number), _PERIODS[period[0]]


class AtomicRateThrottle(BaseThrottle):
    """A fixed-window counter per scope and identity; the window is the rate's period."""

    scope: str

    def get_rate(self) -> str:
        rates = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
        return rates.get(self.scope) or DEFAULT_RATES[self.scope]

    def identity(self, request) -> str | None:
        """Who this request is counted against, or None when this throttle does not apply."""
        raise NotImplementedError

    def allow_request(self, request, view) -> bool:
        ident = self.identity(request)
        if ident is None:
            return True
        limit, period = parse_rate(self.get_rate())
        now = time.time()
        window = int(now // period)
        self._wait = (window + 1) * period - now
        count = rate_hit(key=f"throttle:{self.scope}:{ident}:{window}", window=period)
        return count is None or count <= limit

    def wait(self) -> float:
        return max(1.0, getattr(self, "_wait", 1.0))


class AnonThrottle(AtomicRateThrottle):
    """Per address, for anonymous callers."""

    scope = "anon"

    def identity(self, request) -> str | None:
        return None if request.user and request.user.is_authenticated else self.get_ident(request)


class UserThrottle(AtomicRateThrottle):
    """Per signed-in user (session or token alike): one budget across public and personal APIs."""

    scope = "user"

    def identity(self, request) -> str | None:
        user = request.user
        return f"user:{user.pk}" if user and user.is_authenticated else None


PersonalUserThrottle = UserThrottle


class AddressThrottle(AtomicRateThrottle):
    """Per client address, for requests turned away before a user is known (no or bad
    credentials), so guessing tokens costs as much as any other request."""

    scope = "anon"

    def identity(self, request) -> str | None:
        return self.get_ident(request)


class ThrottleFailedAuthentication:
    """Mixin for API views: DRF authenticates before it throttles, so a request with bad
    credentials never reached a throttle; here it spends its address's anonymous budget."""

    def initial(self, request, *args, **kwargs):
        try:
            super().initial(request, *args, **kwargs)
        except (exceptions.NotAuthenticated, exceptions.AuthenticationFailed):
            throttle = AddressThrottle()
            if not throttle.allow_request(request, self):
                self.throttled(request, throttle.wait())
            raise
