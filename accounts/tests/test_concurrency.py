"""Fifty saves at once from two clients (a browser session and the extension's token), each
thread on its own database connection: none is lost, none is duplicated, versions stay unique."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections
from django.db.utils import load_backend

from accounts.models import ListItem
from accounts.selectors import default_list_id
from accounts.tests.conftest import Actor, session_client, token_client
from accounts.tests.factories import api_token

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 10


class ThreadDatabase:
    """Where the worker threads connect.

    On PostgreSQL that is the test database itself. SQLite's in-memory test database is a
    shared-cache database whose table locks fail at once instead of waiting, which no deployment
    uses; so there the test copies it into a file opened with the project's real SQLite options
    (WAL, a busy timeout, BEGIN IMMEDIATE), the way `make run` keeps its data.
    """

    def __init__(self, tmp_path) -> None:
        self.settings = None
        if connection.vendor == "sqlite" and connection.creation.is_in_memory_db(
            connection.settings_dict["NAME"]
        ):
            path = str(tmp_path / "threads.sqlite3")
            with connection.cursor() as cursor:
                cursor.execute("VACUUM INTO %s", [path])
            # The copy is in rollback-journal mode. Switching a file to WAL takes a lock that
            # SQLite does not wait for, so ten threads whose first connection each ran the
            # settings' `journal_mode=WAL` at once could fail with "database is locked" (a CI
            # flake); switch it once here, as `make run`'s migrate does before anything else runs.
            copy = sqlite3.connect(path)
            try:
                copy.execute("PRAGMA journal_mode=WAL")
            finally:
                copy.close()
            self.settings = {**connection.settings_dict, "NAME": path}

    def attach(self) -> None:
        """Point this (worker) thread's default connection at the shared database."""
        if self.settings is not None:
            backend = load_backend(self.settings["ENGINE"])
            connections["default"] = backend.DatabaseWrapper(self.settings, "default")

    def run(self, function):
        """Call `function` in a fresh thread connected like the workers, for the checks."""
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(self._in_thread, function).result()

    def _in_thread(self, function):
        self.attach()
        try:
            return function()
        finally:
            connections["default"].close()


def _save_concurrently(tmp_path, jobs: list[tuple[str, str]], credentials: dict, url: str):
    """POST each (client kind, arxiv id) job from THREADS threads released together.

    Returns the status codes and the database the threads used."""
    barrier = threading.Barrier(THREADS)
    chunks = [jobs[i::THREADS] for i in range(THREADS)]
    # Clients are made first: signing in writes a session row, which the threads must see.
    actor_sets = [
        {kind: Actor(user=None, client=make(), kind=kind) for kind, make in credentials.items()}
        for _ in chunks
    ]
    database = ThreadDatabase(tmp_path)

    def worker(args):
        chunk, actors = args
        database.attach()
        try:
            barrier.wait(timeout=30)
            return [
                actors[kind].api("post", url, {"arxiv_id": arxiv_id}).status_code
                for kind, arxiv_id in chunk
            ]
        finally:
            connections["default"].close()

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        chunks_done = pool.map(worker, zip(chunks, actor_sets, strict=True))
        codes = [code for chunk in chunks_done for code in chunk]
    assert all(code in (200, 201) for code in codes), codes
    return codes, database


def _credentials(owner) -> dict:
    _, raw = api_token(owner)
    return {"session": lambda: session_client(owner), "token": lambda: token_client(raw)}


def _items(list_id: int) -> list[ListItem]:
    return list(ListItem.objects.filter(reading_list_id=list_id))


def test_fifty_different_papers_from_two_clients_are_all_saved_once(owner, tmp_path):
    list_id = default_list_id(user=owner)
    credentials = _credentials(owner)
    ids = [f"2501.{n:05d}" for n in range(1, 51)]
    jobs = [("session" if n % 2 else "token", arxiv_id) for n, arxiv_id in enumerate(ids)]

    url = f"/api/v1/me/lists/{list_id}/items"
    codes, database = _save_concurrently(tmp_path, jobs, credentials, url)

    assert codes.count(201) == 50
    items = database.run(lambda: _items(list_id))
    assert sorted(item.arxiv_id for item in items) == ids
    assert len({item.position for item in items}) == 50  # every save got its own place
    assert len({item.version for item in items}) == 50  # and its own library version


def test_the_same_papers_saved_by_both_clients_at_once_exist_once(owner, tmp_path):
    list_id = default_list_id(user=owner)
    credentials = _credentials(owner)
    ids = [f"2502.{n:05d}" for n in range(1, 26)]
    jobs = [(kind, arxiv_id) for arxiv_id in ids for kind in ("session", "token")]

    url = f"/api/v1/me/lists/{list_id}/items"
    codes, database = _save_concurrently(tmp_path, jobs, credentials, url)

    assert codes.count(201) == 25
    assert codes.count(200) == 25
    items = database.run(lambda: _items(list_id))
    assert sorted(item.arxiv_id for item in items) == ids
