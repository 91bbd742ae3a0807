"""The production configuration: DEBUG off, `check --deploy` clean, the security headers on every
page and API answer, and logs as one JSON object per line."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.processes import child_env, run_manage

PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.base",
    "SECRET_KEY": "a-real-deployment-key-" + "k7Qz9" * 10,
    "ALLOWED_HOSTS": "paperscope.example.org",
    "PAPERSCOPE_HTTPS": "1",
}


def manage(tmp_path, settings: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return run_manage(child_env(PAPERSCOPE_DATA_DIR=str(tmp_path), **settings), *args)


def test_check_deploy_is_clean_under_the_production_settings(tmp_path):
    result = manage(tmp_path, PRODUCTION_ENV, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_names_what_a_plain_http_setup_lacks(tmp_path):
    # The same settings without PAPERSCOPE_HTTPS: Django says which protections are missing.
    env = {key: value for key, value in PRODUCTION_ENV.items() if key != "PAPERSCOPE_HTTPS"}
    result = manage(tmp_path, env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr


def test_debug_is_off_unless_asked_for(tmp_path):
    script = "from django.conf import settings; print(settings.DEBUG, settings.LOG_FORMAT)"
    result = manage(tmp_path, PRODUCTION_ENV, "shell", "--no-imports", "-c", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "json"]


def test_logs_are_one_json_object_per_line_in_production(tmp_path):
    script = "import logging; logging.getLogger('papers.harvest').warning('harvest %s done', 'rss')"
    result = manage(tmp_path, PRODUCTION_ENV, "shell", "--no-imports", "-c", script)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert [(r["level"], r["logger"], r["message"]) for r in records] == [
        ("WARNING", "papers.harvest", "harvest rss done")
    ]
    assert records[0]["time"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/api/v1/topics?q=reinforcement", "/healthz"])
def test_every_answer_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response.status_code == 200
    policy = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_https_deployments_redirect_plain_http_but_not_the_health_check(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    assert client.get("/").status_code == 301
    assert client.get("/").headers["Location"] == "https://testserver/"
    assert client.get("/healthz").status_code == 200
    secure = client.get("/", secure=True)
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "module", "kind"),
    [
        ("/api/v1/topics/policy-gradient", "topics.apis", "application/json"),
        ("/topics/policy-gradient/", "topics.views", "text/html"),
    ],
)
def test_a_database_outage_is_a_503_with_retry_after(client, monkeypatch, path, module, kind):
    from django.db import OperationalError

    def database_down(**kwargs):
        raise OperationalError("connection to server at 127.0.0.1, port 5432 failed")

    monkeypatch.setattr(f"{module}.topic_get", database_down)
    response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"].startswith(kind)
    assert b"5432" not in response.content  # the driver's message stays in the log
    if kind == "application/json":
        assert response.json()["code"] == "service_unavailable"
    else:
        assert b"briefly unavailable" in response.content
