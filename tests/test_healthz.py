"""GET /healthz tells which part is down."""

from __future__ import annotations

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_it_is_ok_when_database_and_broker_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


def test_it_is_503_naming_the_broker_when_redis_is_down(client):
    # Nothing listens on port 1: the broker is down while the database is up.
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is False
    assert "Connection" in body["broker"]["detail"]


def test_pages_that_need_no_broker_keep_working_while_it_is_down(client):
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        response = client.get("/api/v1/topics")
    assert response.status_code == 200
