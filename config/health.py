"""GET /healthz: is the database reachable, is the broker reachable. 503 when either is down."""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache


def check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the reason goes to the operator
        return False, f"{type(exc).__name__}: {exc}".strip()[:300]
    return True, connection.vendor


def check_broker() -> tuple[bool, str]:
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / f".healthz-{time.monotonic_ns()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            return False, f"filesystem broker folder not writable: {exc}"
        return True, "filesystem"
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        client.ping()
    except redis.RedisError as exc:
        return False, f"{type(exc).__name__}: {exc}"[:300]
    return True, "redis"


@never_cache
def healthz(request):
    database_ok, database_detail = check_database()
    broker_ok, broker_detail = check_broker()
    body = {
        "status": "ok" if database_ok and broker_ok else "degraded",
        "database": {"ok": database_ok, "detail": database_detail},
        "broker": {"ok": broker_ok, "detail": broker_detail},
    }
    return JsonResponse(body, status=200 if database_ok and broker_ok else 503)
