"""Finding 3: an import cannot hold a worker for minutes. Size and entry count are bounded
before parsing, the file is parsed once, the error list is capped (the first ones, then a count),
and a large import runs as a Celery task whose progress the API and the page can poll."""

from __future__ import annotations

import time

import bibtexparser
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.models import ListItem, ReadingList
from accounts.services import imports as import_services
from accounts.tests.conftest import as_token

pytestmark = pytest.mark.django_db


def _jobs():
    from accounts.models import ImportJob  # added by the fix: the tests must collect before it

    return ImportJob.objects


def _default(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk


def _import_url(user) -> str:
    return f"/api/v1/me/lists/{_default(user)}/import"


@pytest.fixture
def no_parsing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the file was handed to the BibTeX parser")

    monkeypatch.setattr(bibtexparser, "parse_string", refuse)


def test_the_probes_300000_openers_are_refused_before_parsing(me, no_parsing):
    content = "@misc{" * 300_000

    started = time.monotonic()
    response = me.api("post", _import_url(me.user), {"content": content})

    assert time.monotonic() - started < 5
    assert response.status_code == 400
    assert response.json()["code"] == "too_many_entries"
    assert str(import_services.MAX_IMPORT_ENTRIES) in response.json()["detail"]
    assert ListItem.objects.count() == 0
    assert not _jobs().exists()


def test_too_many_lines_of_ids_are_refused_before_parsing(me, monkeypatch):
    monkeypatch.setattr(
        import_services, "parse_ids", lambda content: pytest.fail("parsed a file too long")
    )
    monkeypatch.setitem(import_services.PARSERS, "ids", import_services.parse_ids)
    content = "x\n" * (import_services.MAX_IMPORT_LINES + 1)

    response = me.api("post", _import_url(me.user), {"content": content, "format": "ids"})

    assert response.status_code == 400
    assert response.json()["code"] == "too_many_entries"
    assert ListItem.objects.count() == 0


def test_the_error_list_is_capped_with_a_count_of_the_rest(me):
    bad = 400  # fewer than IMPORT_IN_BACKGROUND_ENTRIES: answered at once
    content = "\n".join(["2501.00001", *(f"not an id {n}" for n in range(bad))])

    response = me.api("post", _import_url(me.user), {"content": content, "format": "ids"})

    body = response.json()
    assert response.status_code == 201
    assert len(body["errors"]) == import_services.MAX_REPORTED_PROBLEMS
    assert body["errors"][0]["line"] == 2
    assert body["errors_omitted"] == bad - import_services.MAX_REPORTED_PROBLEMS
    assert len(response.content) < 20_000
    assert list(ListItem.objects.values_list("arxiv_id", flat=True)) == ["2501.00001"]


def test_bibtex_entries_without_ids_are_capped_too(me):
    content = "\n".join(f"@book{{b{n}, title={{Book {n}}}}}" for n in range(1000))
    body = me.api("post", _import_url(me.user), {"content": content}).json()
    assert len(body["errors"]) == import_services.MAX_REPORTED_PROBLEMS
    assert body["errors_omitted"] == 1000 - import_services.MAX_REPORTED_PROBLEMS


def test_the_web_form_parses_the_file_once(owner, monkeypatch):
    calls = []
    real = import_services.PARSERS["bibtex"]
    monkeypatch.setitem(
        import_services.PARSERS, "bibtex", lambda content: calls.append(1) or real(content)
    )
    client = Client()
    client.force_login(owner)
    upload = SimpleUploadedFile("refs.bib", b"@misc{a, eprint={2501.00001}}", "text/plain")

    response = client.post("/lists/import/", {"import-format": "auto", "import-file": upload})

    assert response.status_code == 302
    assert calls == [1]
    assert list(ListItem.objects.values_list("arxiv_id", flat=True)) == ["2501.00001"]


# --- large imports run as a task ---------------------------------------------------------------


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(import_services, "IMPORT_IN_BACKGROUND_ENTRIES", 10)


def _ids(count: int) -> str:
    return "\n".join(f"2501.{n:05d}" for n in range(1, count + 1))


def test_a_large_api_import_runs_as_a_task_the_client_polls(
    owner, small_threshold, django_capture_on_commit_callbacks
):
    me = as_token(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = me.api("post", _import_url(owner), {"content": _ids(25) + "\nnope"})

    assert response.status_code == 202
    job_url = response["Location"]
    assert job_url == f"/api/v1/me/imports/{response.json()['id']}"
    assert response.json()["status"] in ("queued", "done")  # eager Celery in the tests

    job = me.api("get", job_url).json()

    assert job["status"] == "done"
    assert job["progress"] == {"done": 25, "total": 25}
    assert len(job["result"]["imported"]) == 25
    assert job["result"]["errors"] == [{"line": 26, "detail": job["result"]["errors"][0]["detail"]}]
    assert ListItem.objects.count() == 25
    assert _jobs().get().content == ""  # the file is not kept once imported


def test_a_large_form_import_shows_a_page_that_polls(
    owner, small_threshold, django_capture_on_commit_callbacks
):
    client = Client()
    client.force_login(owner)
    upload = SimpleUploadedFile("ids.txt", _ids(25).encode(), "text/plain")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post("/lists/import/", {"import-format": "ids", "import-file": upload})
    job = _jobs().get()
    assert response.status_code == 302
    assert response["Location"] == f"/lists/imports/{job.pk}/"

    waiting = client.get(response["Location"])
    assert waiting.status_code == 200
    assert b'http-equiv="refresh"' in waiting.content
    assert ListItem.objects.count() == 0

    for callback in callbacks:
        callback()
    finished = client.get(response["Location"])
    assert b'http-equiv="refresh"' not in finished.content
    assert b"Imported 25 papers" in finished.content
    assert ListItem.objects.count() == 25


def test_a_failed_background_import_stores_nothing(
    owner, small_threshold, monkeypatch, django_capture_on_commit_callbacks
):
    from accounts.services import lists

    real_add = lists._add
    calls = []

    def add_then_fail(**kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the worker fell over")
        return real_add(**kwargs)

    monkeypatch.setattr(lists, "_add", add_then_fail)
    monkeypatch.setattr(lists, "IMPORT_CHUNK", 10, raising=False)
    me = as_token(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = me.api("post", _import_url(owner), {"content": _ids(25)})

    job = me.api("get", response["Location"]).json()
    assert job["status"] == "failed"
    assert ListItem.objects.count() == 0


def test_a_stranger_cannot_read_someone_elses_import(
    owner, other, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_token(owner).api("post", _import_url(owner), {"content": _ids(25)})
    assert as_token(other).api("get", response["Location"]).status_code == 404
    stranger = Client()
    stranger.force_login(other)
    job = _jobs().get()
    assert stranger.get(f"/lists/imports/{job.pk}/").status_code == 404


def test_a_job_whose_task_was_lost_says_so_instead_of_waiting_for_ever(owner, small_threshold):
    from datetime import timedelta

    from django.utils import timezone

    from accounts.services.import_jobs import STALE_AFTER

    # No on-commit capture: the task is never queued, as when the broker is down.
    response = as_token(owner).api("post", _import_url(owner), {"content": _ids(25)})
    assert as_token(owner).api("get", response["Location"]).json()["status"] == "queued"
    _jobs().update(created_at=timezone.now() - STALE_AFTER - timedelta(minutes=1))

    job = as_token(owner).api("get", response["Location"]).json()

    assert job["status"] == "failed"
    assert "did not run" in job["error"]
    assert ListItem.objects.count() == 0


def test_a_background_import_checks_the_version_first(owner, small_threshold):
    from accounts.selectors import library_version

    me = as_token(owner)
    stale = library_version(user=owner)
    me.api("post", "/api/v1/me/lists", {"name": "Another"})  # the library moves on

    response = me.api(
        "post",
        _import_url(owner),
        {"content": _ids(25)},
        **{"If-Unmodified-Since-Version": str(stale)},
    )

    assert response.status_code == 412
    assert not _jobs().exists()
    assert ListItem.objects.count() == 0
