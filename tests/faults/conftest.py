"""Private servers and real processes for the fault tests (docs/faults.md).

Every fault test breaks its own PostgreSQL cluster or Redis server, never the shared ones: one
PostgreSQL cluster per session (initdb + pg_ctl in a temporary folder, run as the ``postgres``
user when we are root, because PostgreSQL refuses to run as root) holding two migrated template
databases with the taxonomy, a fresh database copied from one per test, a redis-server per test,
and Celery workers and gunicorn started as subprocesses in their own process groups, so that
``kill -9`` takes a worker and its pool children down together, the way a crash or the OOM
killer does.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
import redis

from tests.fake_arxiv import FakeArxiv
from tests.processes import child_env, free_port, run_manage

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "paperscope_template"
TEMPLATE_PAPERS = "paperscope_template_papers"
SECRET = "fault-tests-only-" + "z" * 40


def wait_until(check: Callable[[], object], *, timeout: float, what: str, every: float = 0.2):
    """Poll ``check`` until it returns something truthy; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


# --- PostgreSQL ----------------------------------------------------------------------------------


def _postgres_bindir() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresCluster:
    """A throwaway cluster on a free port; trust authentication for user postgres."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.home = Path(tempfile.mkdtemp(prefix="paperscope-faults-pg-"))
        self.data = self.home / "data"
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.home, "postgres", "postgres")

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, timeout=timeout, capture_output=True, cwd=self.home)

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.home} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    @property
    def log(self) -> Path:
        return self.home / "postgresql.log"

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True
        )

    def create_database(self, name: str, *, template: str | None = None) -> str:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(
                f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
            )
        return self.url(name)

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop("immediate")
        shutil.rmtree(self.home, ignore_errors=True)

    def drop_database(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def sql(url: str, query: str, params: tuple = ()) -> list[tuple]:
    """Rows of one query against a database under test (a fresh connection each time)."""
    with psycopg.connect(url, connect_timeout=5) as conn:
        return conn.execute(query, params).fetchall()


def service_env(*, database_url: str, redis_url: str | None, data_dir: Path, **extra: str) -> dict:
    """The environment of a web or worker process under test: production settings
    (config.settings.base, DEBUG off) pointed at the private servers."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "static").mkdir(exist_ok=True)
    env = child_env(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DEBUG="0",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database_url,
        PAPERSCOPE_DATA_DIR=str(data_dir),
        ARXIV_CONTACT_EMAIL="faults@example.org",
        # Nothing under test may reach the real arXiv: the discard port refuses.
        ARXIV_OAI_URL="http://127.0.0.1:9/oai",
        ARXIV_RSS_URL="http://127.0.0.1:9/rss",
        ARXIV_API_URL="http://127.0.0.1:9/api/query",
        ARXIV_REQUEST_DELAY="0.05",
        ARXIV_OAI_SETS="cs",
        LOG_FORMAT="plain",
        LOG_LEVEL="INFO",
        PYTHONUNBUFFERED="1",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


def manage(env: dict, *args: str, timeout: float = 120) -> str:
    result = run_manage(env, *args, timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


PREPARE = """
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("load_taxonomy", verbosity=0)
"""
SAMPLE_FILES = sorted((ROOT / "data" / "sample" / "rss").glob("*.xml.gz"))[:10]


READER = """
from django.contrib.auth import get_user_model
from accounts.services.lists import account_setup
from accounts.services.tokens import EXTENSION_SCOPES, token_create
user = get_user_model().objects.create_user("reader", password="fault tests only 1")
reading_list = account_setup(user=user)
_, raw = token_create(user=user, name="fault tests", scopes=EXTENSION_SCOPES)
print(raw, reading_list.id)
"""


def create_reader(env: dict) -> tuple[str, int]:
    """A user with an extension token; returns the token and the id of their reading list."""
    token, list_id = manage(env, "shell", "--command", READER).split()[-2:]
    return token, int(list_id)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """The session's private cluster with two template databases, both migrated and with the
    taxonomy: TEMPLATE without papers, TEMPLATE_PAPERS with 1,302 untagged papers from the
    bundled sample (data/sample, May 2025)."""
    bindir = _postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    cluster = PostgresCluster(bindir)
    try:
        cluster.init()
        cluster.start()
        url = cluster.create_database(TEMPLATE)
        # No Redis while preparing: what is queued goes to a filesystem broker nobody reads.
        env = service_env(database_url=url, redis_url=None, data_dir=cluster.home / "setup")
        manage(env, "shell", "--command", PREPARE)  # one process: Django starts once
        env["DATABASE_URL"] = cluster.create_database(TEMPLATE_PAPERS, template=TEMPLATE)
        manage(env, "import_arxiv", *map(str, SAMPLE_FILES))
        yield cluster
    finally:
        cluster.remove()


def _database(cluster: PostgresCluster, request, template: str) -> Iterator[str]:
    name = "faults_" + request.node.name.removeprefix("test_")[:40]
    yield cluster.create_database(name, template=template)
    cluster.drop_database(name)


@pytest.fixture
def database(postgres, request) -> Iterator[str]:
    """A fresh database without papers for one test (a copy of TEMPLATE, in a fraction of a
    second)."""
    yield from _database(postgres, request, TEMPLATE)


@pytest.fixture
def database_with_papers(postgres, request) -> Iterator[str]:
    """A fresh database holding the 1,302 untagged sample papers."""
    yield from _database(postgres, request, TEMPLATE_PAPERS)


# --- Redis ---------------------------------------------------------------------------------------


class RedisServer:
    """A redis-server of our own on a free port, with no persistence; stop() and start() again
    on the same port simulate an outage (what was queued is gone, as after a crash)."""

    def __init__(self, home: Path) -> None:
        self.port = free_port()
        self.home = home
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", str(self.home)],
            stdout=(self.home / "redis.log").open("a"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_until(self._pings, timeout=10, what="redis-server to answer", every=0.05)

    def _pings(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)


@pytest.fixture
def redis_server(tmp_path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    home = tmp_path / "redis"
    home.mkdir()
    server = RedisServer(home)
    server.start()
    yield server
    server.stop()


def broker_messages(client: redis.Redis) -> dict[str, list[str]]:
    """Task names waiting in the default queue and delivered but not acknowledged yet."""

    def task(raw: bytes, *, unacked: bool) -> str:
        body = json.loads(raw)
        return (body[0] if unacked else body)["headers"]["task"]

    return {
        "queued": [task(raw, unacked=False) for raw in client.lrange("celery", 0, -1)],
        "unacked": [task(raw, unacked=True) for raw in client.hvals("unacked")],
    }


def sleep_until_redeliverable(client: redis.Redis, visibility_timeout: float) -> None:
    """Wait until every unacknowledged delivery is older than the visibility timeout, so that
    the next worker to start gives it back to the queue (kombu checks when it starts polling,
    then only every unacked_restore_interval x unacked_restore_throttle, 100 s by default)."""
    delivered = [score for _, score in client.zrange("unacked_index", 0, -1, withscores=True)]
    if delivered:
        time.sleep(max(0.0, max(delivered) + visibility_timeout + 0.5 - time.time()))


def send_task(redis_url: str, name: str, *args, **options) -> None:
    """Queue a task by name, the way beat or the web would, without the Django app; options
    go to apply_async (countdown=...)."""
    from celery import Celery

    app = Celery("fault-tests", broker=redis_url, fixups=[], set_as_current=False)
    try:
        app.send_task(name, args=list(args), **options)
    finally:
        app.close()


def tagging_problems(url: str, paper_ids: list[int] | None = None) -> dict[str, int]:
    """Counts that are all zero when every paper (of ``paper_ids``, if given) was tagged, and
    tagged exactly once."""
    (untagged,) = sql(
        url,
        "SELECT count(*) FROM papers_paper WHERE tagged_at IS NULL "
        "AND (%s::bigint[] IS NULL OR id = ANY(%s::bigint[]))",
        (paper_ids, paper_ids),
    )[0]
    (doubled,) = sql(
        url,
        "SELECT count(*) FROM (SELECT 1 FROM topics_papertopic GROUP BY paper_id, topic_id "
        "HAVING count(*) > 1) AS d",
    )[0]
    # Two runs' rows mixed on one paper would show as two tags at one rank, or a gap.
    (misranked,) = sql(
        url,
        "SELECT count(*) FROM (SELECT paper_id FROM topics_papertopic GROUP BY paper_id "
        "HAVING count(DISTINCT rank) <> count(*) OR min(rank) <> 1 OR max(rank) <> count(*)) r",
    )[0]
    return {"untagged": untagged, "doubled": doubled, "misranked": misranked}


# --- processes under test ------------------------------------------------------------------------


class Processes:
    """Celery workers and gunicorn in their own process groups, logs under the test's folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[tuple[subprocess.Popen, Path]] = []

    def _spawn(self, name: str, command: list[str], env: dict) -> subprocess.Popen:
        log = self.folder / f"{name}.log"
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self.started.append((process, log))
        return process

    def worker(self, env: dict, name: str, *, concurrency: int = 1) -> subprocess.Popen:
        return self._spawn(
            name,
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--hostname",
             f"{name}@%h", "--concurrency", str(concurrency), "--loglevel", "INFO",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            env,
        )  # fmt: skip

    def web(self, env: dict, port: int) -> subprocess.Popen:
        process = self._spawn(
            "gunicorn",
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", "2", "--threads", "4", "--timeout", "30", "--graceful-timeout", "2"],
            env,
        )  # fmt: skip

        def up() -> bool:
            assert process.poll() is None, self.logs()
            try:
                return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(up, timeout=30, what="gunicorn to serve /healthz")
        return process

    @staticmethod
    def kill(process: subprocess.Popen) -> None:
        """kill -9 the process and its children (a worker's pool) at once."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def logs(self, tail: int = 40) -> str:
        parts = []
        for _, log in self.started:
            lines = log.read_text(errors="replace").splitlines()[-tail:]
            parts.append(f"--- {log.name} ---\n" + "\n".join(lines))
        return "\n".join(parts)

    def close(self) -> None:
        for process, _ in self.started:
            if process.poll() is None:
                self.kill(process)


@pytest.fixture
def processes(tmp_path) -> Iterator[Processes]:
    running = Processes(tmp_path)
    yield running
    running.close()


# --- a slow fake arXiv ---------------------------------------------------------------------------


class SlowArxiv(FakeArxiv):
    """The fake arXiv, answering the first ``slow_pages`` OAI-PMH requests that carry a
    resumption token (the second page of a list) only after ``page_delay`` seconds, so that a
    kill lands while the harvest waits for it."""

    page_delay = 0.0
    slow_pages = 0

    def reply(self, path, query):
        if path == "/oai" and "resumptionToken" in query:
            with self._lock:
                slow, self.slow_pages = self.slow_pages > 0, max(0, self.slow_pages - 1)
            if slow:
                self._stopping.wait(self.page_delay)
        return super().reply(path, query)


@pytest.fixture
def slow_arxiv() -> Iterator[SlowArxiv]:
    with SlowArxiv() as server:
        yield server
