"""Settings come from the environment; a wrong variable stops start-up with one clear line."""

from __future__ import annotations

import pytest

from config.env import (
    ImproperlyConfiguredEnv,
    database_from_url,
    env_bool,
    env_email,
    env_int,
    secret_key,
)
from tests.processes import child_env, run_manage


def test_it_reads_booleans_strictly(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env_bool("FLAG") is True
    monkeypatch.setenv("FLAG", "0")
    assert env_bool("FLAG", default=True) is False
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfiguredEnv, match="FLAG must be true or false"):
        env_bool("FLAG")


def test_it_rejects_a_non_integer(monkeypatch):
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfiguredEnv, match="COUNT must be an integer"):
        env_int("COUNT", 1)


def test_it_rejects_a_malformed_contact_email(monkeypatch):
    monkeypatch.setenv("ARXIV_CONTACT_EMAIL", "not an email")
    with pytest.raises(ImproperlyConfiguredEnv, match="ARXIV_CONTACT_EMAIL"):
        env_email("ARXIV_CONTACT_EMAIL", "x@example.org")


def test_it_parses_database_urls(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://alice:pw@db.example:5433/paperscope")
    config = database_from_url("DATABASE_URL", "sqlite:////tmp/x.sqlite3")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"], config["HOST"], config["PORT"]) == (
        "paperscope",
        "alice",
        "pw",
        "db.example",
        "5433",
    )
    monkeypatch.delenv("DATABASE_URL")
    sqlite = database_from_url("DATABASE_URL", "sqlite:////tmp/x.sqlite3")
    assert sqlite["NAME"] == "/tmp/x.sqlite3"
    monkeypatch.setenv("DATABASE_URL", "mysql://root@localhost/db")
    with pytest.raises(ImproperlyConfiguredEnv, match="DATABASE_URL must be a URL"):
        database_from_url("DATABASE_URL", "sqlite:////tmp/x.sqlite3")


def test_it_generates_the_secret_key_once_in_debug(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    first = secret_key("SECRET_KEY", debug=True, data_dir=tmp_path)
    again = secret_key("SECRET_KEY", debug=True, data_dir=tmp_path)
    assert first == again
    assert len(first) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_it_requires_a_secret_key_without_debug(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ImproperlyConfiguredEnv, match="SECRET_KEY is required when DEBUG is off"):
        secret_key("SECRET_KEY", debug=False, data_dir=tmp_path)
    assert not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"DEBUG": "1", "DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must be a URL"),
        ({"DEBUG": "1", "REDIS_URL": "localhost:6379"}, "REDIS_URL must be a URL"),
        ({"DEBUG": "sometimes"}, "DEBUG must be true or false"),
        ({"DEBUG": "0", "SECRET_KEY": ""}, "SECRET_KEY is required when DEBUG is off"),
        ({"DEBUG": "1", "ARXIV_REQUEST_DELAY": "-1"}, "ARXIV_REQUEST_DELAY must be at least 0"),
        ({"DEBUG": "1", "LOG_FORMAT": "xml"}, "LOG_FORMAT must be one of plain, json"),
    ],
)
def test_it_stops_start_up_with_one_line_naming_the_variable(tmp_path, overrides, expected):
    env = child_env(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        PAPERSCOPE_DATA_DIR=str(tmp_path),
        **overrides,
    )
    result = run_manage(env, "check")
    assert result.returncode != 0
    lines = [line for line in result.stderr.strip().splitlines() if line]
    assert lines == [f"Paperscope configuration error: {expected}" + lines[0].split(expected, 1)[1]]
    assert "Traceback" not in result.stderr
