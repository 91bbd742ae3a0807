"""Load test: gunicorn serving the 1M-paper benchmark database, driven over loopback by a separate
load-generator process of closed-loop virtual users (asyncio + httpx), at rising concurrency.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paperscope_bench1m \
        .venv/bin/python bench/bench_load.py [--quick] [--concurrency 1,2,4,8,16,32] \
        [--duration 25] [--workers 4] [--threads 2] [--mix save=1,...] [--json PATH]

The database is the one bench/bench_web.py generates (1,000,000 papers, 1,000 topics). This
script creates accounts in it, so it refuses a database without bench_web's bench_meta table.
Setup, idempotent: migrate, collectstatic (into a temporary folder, as the release command
does), and LOAD_USERS accounts "loadtest-NNN", each with a fresh API token (the previous "load
test" token is deleted), FOLLOWS_PER_USER followed topics and a reading list "Load test" that
is emptied at the start of every run.

The server is gunicorn with the deployment's configuration file (config/gunicorn.py: preload,
JSON access log, timeouts, worker recycling) and the worker count under test, on the production
settings (config.settings.base, DEBUG off, cache and broker in REDIS_URL's db, default throttle
rates). For each concurrency step a new load-generator process (this file with --generate) runs
N virtual users: each sends a request drawn from MIX over its own keep-alive connection, reads
the whole answer and sends the next at once (no think time). The first --warmup seconds of a step
are not recorded. Anonymous requests carry an X-Forwarded-For address drawn from 4,096, as many
readers behind one proxy would, so that the throttles count per reader as in production.

Recorded per step: requests per second, p50/p95/p99 per request type and overall, errors (any
status other than 200/201, a lookup answer that lacks papers, connection errors), the load
average, the CPU used by gunicorn, by PostgreSQL's backends for this database and by the load
generator, and the machine's busy share (all processes). At the end every save answered 200/201
is looked up in the database. Prints markdown tables and writes everything to
var/bench_load-<time>.json (or --json PATH).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from host import host_facts  # bench/host.py: the script's own folder is on sys.path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/paperscope_bench1m"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/12"
DEFAULT_GUNICORN_CONFIG = ROOT / "config" / "gunicorn.py"
LOAD_USERS = 64
FOLLOWS_PER_USER = 8
LIST_NAME = "Load test"
TOKEN_NAME = "load test"
BATCH_IDS = 2000
RECENT_DAYS = 14
RANDOM_POOL = 50_000
ADDRESSES = 4096

# The request mix, in percent of requests. Most traffic is the extension's single-paper
# lookups (abstract pages) and topic pages; listing pages (one 2,000-id lookup each) are rarer;
# feed readers poll the Atom and personal feeds; some readers save papers.
MIX = {
    "lookup1": 33,
    "paper": 15,
    "lookup2000": 2,
    "topic_page": 15,
    "topic_api": 10,
    "topic_feed": 10,
    "me_feed": 10,
    "save": 5,
}
LABELS = {
    "lookup1": "lookup, 1 id (POST /api/v1/papers/lookup)",
    "paper": "paper API (GET /api/v1/papers/{id})",
    "lookup2000": "lookup, 2,000 recent ids",
    "topic_page": "topic page (GET /topics/{slug}/)",
    "topic_api": "topic API (GET /api/v1/topics/{slug})",
    "topic_feed": "topic Atom feed (GET /topics/{slug}/feed/)",
    "me_feed": "personal feed (GET /api/v1/me/feed, Bearer)",
    "save": "save (POST /api/v1/me/lists/{id}/items, Bearer)",
}
TARGETS = {"lookup1": 150, "paper": 150, "lookup2000": 500}  # p99 ms below saturation (issue 9)
OK_STATUS = {200, 201}


# --- Numbers ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(latencies: list[float], seconds: float) -> dict:
    return {
        "n": len(latencies),
        "rps": len(latencies) / seconds if seconds else 0.0,
        "p50": pct(latencies, 0.50),
        "p95": pct(latencies, 0.95),
        "p99": pct(latencies, 0.99),
        "max": max(latencies) if latencies else None,
    }


def fmt(ms: float | None) -> str:
    if ms is None:
        return "–"
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.1f}"


# --- The load generator (a separate process) -----------------------------------------------------


def run_generator(args) -> int:
    """--generate: N closed-loop virtual users against plan["base_url"]; results to --out."""
    plan = json.loads(Path(args.plan).read_text())
    watch = (args.master, args.database)
    results = asyncio.run(
        generate(
            plan,
            step=args.step,
            vus=args.vus,
            duration=args.duration,
            warmup=args.warmup,
            watch=watch,
        )
    )
    Path(args.out).write_text(json.dumps(results))
    return 0


def sample(watch: tuple[int, str]) -> dict:
    busy, total = machine_busy()
    cpu = cpu_of(proc_table(), *watch)
    return {**cpu, "generator": time.process_time(), "busy": busy, "total": total}


async def generate(plan: dict, *, step: int, vus: int, duration: float, warmup: float, watch):
    import httpx

    kinds = [k for k, w in plan["mix"].items() if w > 0]
    weights = [plan["mix"][k] for k in kinds]
    latencies: dict[str, list[float]] = {k: [] for k in kinds}
    statuses: dict[str, Counter] = {k: Counter() for k in kinds}
    errors: list[dict] = []
    acked: list[tuple[int, str, int]] = []  # (list id, arXiv id, status) of answered saves
    base = plan["base_url"]
    recent, anywhere, slugs = plan["recent_ids"], plan["random_ids"], plan["slugs"]
    accounts = plan["accounts"]
    started = time.perf_counter()
    record_from = started + warmup
    stop_at = record_from + duration

    def single_id(rng: random.Random) -> str:
        return rng.choice(recent) if rng.random() < 0.7 else rng.choice(anywhere)

    def request_for(kind: str, rng: random.Random, account: dict) -> tuple:
        address = rng.randrange(ADDRESSES)
        anon = {"X-Forwarded-For": f"10.0.{address // 256}.{address % 256}"}
        bearer = {"Authorization": f"Bearer {account['token']}"}
        if kind == "lookup1":
            return "POST", "/api/v1/papers/lookup", {"ids": [single_id(rng)]}, anon
        if kind == "paper":
            return "GET", f"/api/v1/papers/{single_id(rng)}", None, anon
        if kind == "lookup2000":
            return "POST", "/api/v1/papers/lookup", {"ids": rng.sample(recent, plan["batch"])}, anon
        if kind == "topic_page":
            return "GET", f"/topics/{rng.choice(slugs)}/", None, anon
        if kind == "topic_api":
            return "GET", f"/api/v1/topics/{rng.choice(slugs)}", None, anon
        if kind == "topic_feed":
            return "GET", f"/topics/{rng.choice(slugs)}/feed/", None, anon
        if kind == "me_feed":
            return "GET", "/api/v1/me/feed", None, bearer
        if kind == "save":
            path = f"/api/v1/me/lists/{account['list']}/items"
            return "POST", path, {"arxiv_id": rng.choice(recent)}, bearer
        raise ValueError(kind)

    def check(kind: str, body: dict | None, response) -> str | None:
        """A 200 that is not the answer asked for counts as an error too. (Counted in the bytes:
        parsing a 2,000-paper answer would stall this process's other virtual users.)"""
        if kind in ("lookup1", "lookup2000"):
            found = response.content.count(b'"arxiv_id":')
            if found != len(body["ids"]) or b'"pending":[]' not in response.content:
                return f"{found} papers for {len(body['ids'])} ids: {response.text[:200]}"
        return None

    async def user(number: int) -> None:
        rng = random.Random(f"{plan['seed']}-{step}-{number}")  # new ids in every step
        account = accounts[number % len(accounts)]
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        timeout = httpx.Timeout(60.0)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
            while time.perf_counter() < stop_at:
                kind = rng.choices(kinds, weights)[0]
                method, path, body, headers = request_for(kind, rng, account)
                t0 = time.perf_counter()
                problem = None
                try:
                    response = await client.request(method, path, json=body, headers=headers)
                    status = response.status_code
                    if status in OK_STATUS:
                        problem = check(kind, body, response)
                    else:
                        problem = response.text[:300]
                except httpx.HTTPError as exc:
                    status, problem = type(exc).__name__, str(exc)[:300]
                t1 = time.perf_counter()
                if kind == "save" and status in OK_STATUS:
                    acked.append((account["list"], body["arxiv_id"], status))
                if t0 < record_from:
                    continue
                latencies[kind].append((t1 - t0) * 1000)
                statuses[kind][str(status) if problem is None else f"{status} (error)"] += 1
                if problem is not None and len(errors) < 50:
                    at = round(t0 - started, 2)
                    errors.append(
                        {
                            "kind": kind,
                            "path": f"{method} {path}",
                            "status": status,
                            "detail": problem,
                            "at": at,
                        }
                    )

    samples = []

    async def sampler() -> None:
        """CPU of gunicorn, PostgreSQL, this process and the machine over the recorded window."""
        for instant in (record_from, stop_at):
            await asyncio.sleep(max(0.0, instant - time.perf_counter()))
            samples.append(sample(watch))

    await asyncio.gather(sampler(), *(user(i) for i in range(vus)))
    return {
        "vus": vus,
        "seconds": duration,
        "latencies": latencies,
        "statuses": {k: dict(v) for k, v in statuses.items()},
        "errors": errors,
        "acked": acked,
        "cpu": {
            k: cpu_used(samples[0][k], samples[1][k])
            if isinstance(samples[0][k], dict)
            else samples[1][k] - samples[0][k]
            for k in samples[0]
        },
    }


# --- Machine figures -----------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def proc_table() -> dict[int, tuple[str, int, float]]:
    """pid -> (command line, parent pid, CPU seconds) of every process."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        table[int(entry.name)] = (
            command,
            int(fields[1]),
            (int(fields[11]) + int(fields[12])) / TICK,
        )
    return table


def cpu_of(table: dict, master: int, database: str) -> dict[str, dict[int, float]]:
    """CPU seconds so far, per process, of gunicorn (master and workers) and of the PostgreSQL
    backends connected to the benchmark database."""
    return {
        "server": {pid: cpu for pid, (_, ppid, cpu) in table.items() if master in (pid, ppid)},
        "postgres": {
            pid: cpu
            for pid, (command, _, cpu) in table.items()
            if command.startswith("postgres:") and f" {database} " in command
        },
    }


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds between two samples; a process that exited in between takes its last
    share along (Django reconnects after CONN_MAX_AGE), one that started counts in full."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def memory_mb(master: int) -> dict:
    """RSS and PSS (shared pages divided among the processes sharing them: what preload_app
    saves shows here) of gunicorn's master and workers, MB."""
    total = {"rss": 0, "pss": 0, "workers": 0}
    for pid, (_, ppid, _) in proc_table().items():
        if master not in (pid, ppid):
            continue
        total["workers"] += ppid == master
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith(("Rss:", "Pss:")):
                    total[line.split(":")[0].lower()] += int(line.split()[1])
        except OSError:
            pass
    return {
        "rss_mb": round(total["rss"] / 1024),
        "pss_mb": round(total["pss"] / 1024),
        "worker_processes": total["workers"],
    }


# --- Setup (Django, in this process) -------------------------------------------------------------


def check_database(url: str) -> dict:
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            if not conn.execute("SELECT to_regclass('bench_meta')").fetchone()[0]:
                raise SystemExit(
                    f"{url} is not a database bench/bench_web.py generated (no bench_meta); "
                    "this script creates accounts in it, so it only runs on one. Generate it with "
                    "DATABASE_URL=... .venv/bin/python bench/bench_web.py --reuse --only none"
                )
            meta = json.loads(conn.execute("SELECT value FROM bench_meta").fetchone()[0])
            meta["papers_now"] = conn.execute("SELECT count(*) FROM papers_paper").fetchone()[0]
            return meta
    except psycopg.OperationalError as exc:
        raise SystemExit(f"cannot open {url}: {exc}") from None


def server_env(args, data_dir: str) -> dict[str, str]:
    skip = ("THROTTLE_", "LOG_", "GUNICORN_", "WEB_CONCURRENCY")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DEBUG": "0",
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url,
            "SECRET_KEY": "bench-load-only-" + "s3cr" * 12,
            "ALLOWED_HOSTS": "127.0.0.1",
            "PAPERSCOPE_DATA_DIR": data_dir,
            "LOG_LEVEL": "WARNING",
            # The generator stands for a reverse proxy in front of many readers: it sends the
            # address each reader came from as the proxy would (X-Forwarded-For).
            "NUM_PROXIES": "1",
            "PYTHONPATH": str(ROOT),
        }
    )
    return env


def prepare(args, data_dir: str) -> dict:
    """Accounts, tokens, lists and follows (idempotent), and the ids and slugs to ask for."""
    os.environ.update(server_env(args, data_dir))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import ApiToken, Follow, ListItem, ReadingList
    from accounts.services.follows import follow_create
    from accounts.services.lists import reading_list_create
    from accounts.services.tokens import EXTENSION_SCOPES, token_create
    from papers.models import Paper
    from topics.models import Topic

    t0 = time.perf_counter()
    call_command("migrate", verbosity=0)
    if time.perf_counter() - t0 > 5:
        print(f"  migrate: {time.perf_counter() - t0:.0f} s")
    # The release command's other half: pages need the hashed static files' manifest.
    call_command("collectstatic", interactive=False, verbosity=0)
    rng = random.Random(args.seed)
    slugs = sorted(Topic.objects.filter(active=True).values_list("slug", flat=True))
    users = get_user_model()
    accounts = []
    for i in range(args.users):
        username = f"loadtest-{i:03d}"
        user = users.objects.filter(username=username).first()
        if user is None:
            user = users(username=username, email=f"{username}@example.invalid")
            user.set_unusable_password()
            user.save()  # the post_save signal gives it a library and a default list
        ApiToken.objects.filter(user=user, name=TOKEN_NAME).delete()
        _, raw = token_create(user=user, name=TOKEN_NAME, scopes=EXTENSION_SCOPES)
        reading_list = ReadingList.objects.filter(user=user, name=LIST_NAME).first()
        if reading_list is None:
            reading_list = reading_list_create(user=user, name=LIST_NAME)
        ListItem.objects.filter(reading_list=reading_list).delete()
        if Follow.objects.filter(user=user).count() < FOLLOWS_PER_USER:
            for slug in random.Random(i).sample(slugs, FOLLOWS_PER_USER):
                follow_create(user=user, topic_slug=slug)
        accounts.append({"username": username, "token": raw, "list": reading_list.pk})

    latest = Paper.objects.order_by("-announced").values_list("announced", flat=True)[0]
    recent = list(
        Paper.objects.filter(announced__gt=latest - dt.timedelta(days=RECENT_DAYS)).values_list(
            "arxiv_id", flat=True
        )
    )
    max_id = Paper.objects.order_by("-id").values_list("id", flat=True)[0]
    pks = rng.sample(range(1, max_id + 1), min(RANDOM_POOL, max_id))
    anywhere = list(Paper.objects.filter(id__in=pks).values_list("arxiv_id", flat=True))
    connection.close()
    batch = min(BATCH_IDS, len(recent))
    if batch < BATCH_IDS:
        print(f"  only {len(recent)} papers in the last {RECENT_DAYS} days: batches of {batch}")
    return {
        "accounts": accounts,
        "recent_ids": recent,
        "random_ids": anywhere,
        "slugs": slugs,
        "batch": batch,
    }


def saves_in_database(url: str, acked: set[tuple[int, str]], list_ids: list[int]) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT reading_list_id, arxiv_id FROM accounts_listitem "
            "WHERE reading_list_id = ANY(%s)",
            [list_ids],
        ).fetchall()
    stored = {(int(a), b) for a, b in rows}
    return {
        "acknowledged": len(acked),
        "stored": len(acked & stored),
        "missing": sorted(acked - stored)[:20],
        "stored_unacknowledged": len(stored - acked),
    }


# --- gunicorn ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gunicorn_command(args, port: int) -> list[str]:
    """gunicorn with the deployment's configuration file (config/gunicorn.py: preload, JSON
    access log, timeouts, worker recycling) and the worker count under test on a free port."""
    worker_class = args.worker_class or ("gthread" if args.threads > 1 else "sync")
    command = [sys.executable, "-m", "gunicorn"]
    if args.gunicorn_config:
        command += ["--config", str(args.gunicorn_config)]
    else:
        command += ["--timeout", "30", "--log-level", "warning"]
    return command + [
        "config.wsgi:application",
        "--no-control-socket",  # not the shared ~/.gunicorn/gunicorn.ctl of other instances
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(args.workers),
        "--worker-class",
        worker_class,
        "--threads",
        str(args.threads),
    ]


def start_server(args, port: int, work: Path, env: dict) -> tuple[subprocess.Popen, Path]:
    import httpx

    log = work / "gunicorn.log"
    command = gunicorn_command(args, port)
    print("  " + " ".join(command[2:]))
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return process, log
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.terminate()
    raise SystemExit(f"gunicorn did not answer /healthz in 90 s:\n{log.read_text()[-3000:]}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- One step ------------------------------------------------------------------------------------


def run_step(plan: Path, work: Path, master: int, database: str, *, step, vus, duration, warmup):
    out = work / f"step-{step}.json"
    load_before = os.getloadavg()
    options = {
        "--plan": plan,
        "--step": step,
        "--vus": vus,
        "--duration": duration,
        "--warmup": warmup,
        "--out": out,
        "--master": master,
        "--database": database,
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--generate"]
    command += [str(x) for pair in options.items() for x in pair]
    subprocess.run(command, check=True, cwd=ROOT)
    raw = json.loads(out.read_text())
    seconds, cpu = raw["seconds"], raw["cpu"]
    everything = [ms for values in raw["latencies"].values() for ms in values]
    n = max(1, len(everything))
    errors = sum(
        n
        for counts in raw["statuses"].values()
        for status, n in counts.items()
        if not status.isdigit() or int(status) not in OK_STATUS
    )
    step = {
        "vus": vus,
        "seconds": seconds,
        "overall": summary(everything, seconds),
        "types": {k: summary(v, seconds) for k, v in raw["latencies"].items()},
        "statuses": raw["statuses"],
        "errors": errors,
        "error_rate": errors / len(everything) if everything else 0.0,
        "error_samples": raw["errors"],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "machine_busy": cpu["busy"] / cpu["total"] if cpu["total"] else None,
        "cpu_ms_per_request": {
            "gunicorn": 1000 * cpu["server"] / n,
            "postgres": 1000 * cpu["postgres"] / n,
        },
        "cores_used": {
            "gunicorn": cpu["server"] / seconds,
            "postgres": cpu["postgres"] / seconds,
            "load_generator": cpu["generator"] / seconds,
        },
    }
    return step, raw["acked"]


# --- Report --------------------------------------------------------------------------------------


def saturation(steps: list[dict]) -> dict:
    """The first step that reaches 90% of the best throughput: beyond it, more virtual users
    add latency, not throughput."""
    best = max(steps, key=lambda s: s["overall"]["rps"])
    knee = next(s for s in steps if s["overall"]["rps"] >= 0.9 * best["overall"]["rps"])
    return {
        "vus": knee["vus"],
        "rps": knee["overall"]["rps"],
        "best_rps": best["overall"]["rps"],
        "best_vus": best["vus"],
    }


def verdicts(steps: list[dict], sat: dict) -> dict:
    """The targets hold below saturation: over the steps with fewer users than the saturation
    step (the first step if that is the saturation step), with the saturation step's own p99
    beside them."""
    below = [s for s in steps if s["vus"] < sat["vus"]] or steps[:1]
    at = next(s for s in steps if s["vus"] == sat["vus"])
    out = {}
    for kind, target in TARGETS.items():
        worst = [s["types"][kind]["p99"] for s in below if s["types"].get(kind, {}).get("n")]
        if worst:
            out[kind] = {
                "target_p99": target,
                "worst_p99": max(worst),
                "met": max(worst) < target,
                "p99_at_saturation": (at["types"].get(kind) or {}).get("p99"),
            }
    out["errors_below_saturation"] = sum(s["errors"] for s in below)
    out["below_saturation_vus"] = [s["vus"] for s in below]
    return out


def print_report(result: dict) -> None:
    steps = result["steps"]
    print(
        "\n| VUs | req/s | p50 ms | p95 ms | p99 ms | errors | load avg before | "
        "cores used: gunicorn / postgres / generator | CPU ms per request: gunicorn / postgres "
        "| machine busy |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|---|---|---:|")
    for s in steps:
        o, c, r = s["overall"], s["cores_used"], s["cpu_ms_per_request"]
        print(
            f"| {s['vus']} | {o['rps']:.1f} | {fmt(o['p50'])} | {fmt(o['p95'])} | "
            f"{fmt(o['p99'])} | {s['errors']} ({100 * s['error_rate']:.2f}%) | "
            f"{' / '.join(f'{x:.2f}' for x in s['load_average_before'])} | "
            f"{c['gunicorn']:.2f} / {c['postgres']:.2f} / {c['load_generator']:.2f} | "
            f"{r['gunicorn']:.1f} / {r['postgres']:.1f} | "
            f"{100 * (s['machine_busy'] or 0):.0f}% |"
        )
    print("\np50 / p95 / p99 ms per request type (share of requests):\n")
    print("| request | % | " + " | ".join(f"{s['vus']} VUs" for s in steps) + " |")
    print("|---|---:|" + "---:|" * len(steps))
    for kind, weight in result["mix"].items():
        if not weight:
            continue
        cells = []
        for s in steps:
            t = s["types"].get(kind) or {}
            cells.append(
                f"{fmt(t.get('p50'))} / {fmt(t.get('p95'))} / {fmt(t.get('p99'))}"
                if t.get("n")
                else "–"
            )
        share = 100 * weight / sum(result["mix"].values())
        print(f"| {LABELS[kind]} | {share:.0f} | " + " | ".join(cells) + " |")
    sat, saves = result["saturation"], result["saves"]
    print(
        f"\nSaturation: {sat['rps']:.0f} req/s at {sat['vus']} VUs (90% of the best, "
        f"{sat['best_rps']:.0f} req/s at {sat['best_vus']} VUs)."
    )
    below = ", ".join(str(n) for n in result["targets"]["below_saturation_vus"])
    for kind, v in result["targets"].items():
        if isinstance(v, dict):
            print(
                f"Target {LABELS[kind]}: p99 < {v['target_p99']} ms below saturation ({below} "
                f"VUs): worst {v['worst_p99']:.0f} ms, {'met' if v['met'] else 'MISSED'} "
                f"({fmt(v['p99_at_saturation'])} ms at saturation)."
            )
    print(f"Errors below saturation: {result['targets']['errors_below_saturation']}.")
    print(
        f"Saves acknowledged: {sum(saves['answers'].values())} answers (201 created: "
        f"{saves['answers'].get('201', 0)}, 200 already saved: {saves['answers'].get('200', 0)}) "
        f"for {saves['acknowledged']} distinct (list, paper) pairs; in the database afterwards: "
        f"{saves['stored']} of them; stored without an answer: {saves['stored_unacknowledged']}."
    )
    for s in steps:
        for e in s["error_samples"][:5]:
            print(f"  error at {s['vus']} VUs: {e}")


# --- Main ----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL,
        help="a database bench/bench_web.py generated (default: $DATABASE_URL, else "
        f"{DEFAULT_DATABASE_URL})",
    )
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument(
        "--concurrency",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[1, 2, 4, 8, 16, 32],
        help="virtual users per step, comma-separated",
    )
    parser.add_argument("--duration", type=float, default=25.0, help="recorded seconds per step")
    parser.add_argument("--warmup", type=float, default=3.0, help="unrecorded seconds per step")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=2, help="threads per worker (gthread)")
    parser.add_argument("--worker-class", default=None, help="default: gthread if threads > 1")
    parser.add_argument(
        "--gunicorn-config",
        type=lambda s: None if s == "none" else Path(s),
        default=DEFAULT_GUNICORN_CONFIG if DEFAULT_GUNICORN_CONFIG.exists() else None,
        help="gunicorn configuration file, or none (default: config/gunicorn.py)",
    )
    parser.add_argument(
        "--mix",
        type=lambda s: {k: float(v) for k, v in (p.split("=") for p in s.split(","))},
        default=None,
        help=f"kind=weight,... replacing the mix (kinds: {', '.join(MIX)})",
    )
    parser.add_argument("--users", type=int, default=LOAD_USERS, help="accounts to save with")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="a ~1 minute smoke run")
    parser.add_argument("--json", type=Path, default=None, help="default var/bench_load-*.json")
    # the load generator's own options (this file run as a separate process)
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--vus", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--step", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--master", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        return run_generator(args)

    if args.quick:
        args.concurrency, args.duration, args.warmup = [1, 4, 16], 8.0, 2.0
    mix = dict(MIX)
    if args.mix:
        unknown = set(args.mix) - set(MIX)
        if unknown:
            parser.error(f"unknown kinds in --mix: {', '.join(sorted(unknown))}")
        mix = {k: args.mix.get(k, 0) for k in MIX}
    if not urlsplit(args.database_url).scheme.startswith("postgres"):
        parser.error("--database-url must be a PostgreSQL database generated by bench_web.py")

    started = dt.datetime.now(dt.UTC)
    meta = check_database(args.database_url)
    print(f"database: {meta}")
    work = Path(tempfile.mkdtemp(prefix="paperscope-bench-load-"))
    data_dir = work / "data"
    (data_dir / "static").mkdir(parents=True)
    t0 = time.perf_counter()
    plan = prepare(args, str(data_dir))
    print(
        f"setup: {len(plan['accounts'])} accounts, {len(plan['recent_ids']):,} recent ids, "
        f"{len(plan['random_ids']):,} random ids, {len(plan['slugs'])} topics "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    port = free_port()
    plan.update({"base_url": f"http://127.0.0.1:{port}", "mix": mix, "seed": args.seed})
    plan_path = work / "plan.json"
    plan_path.write_text(json.dumps(plan))

    env = server_env(args, str(data_dir))
    dbname = urlsplit(args.database_url).path.lstrip("/")
    process, log = start_server(args, port, work, env)
    steps, acked = [], []
    try:
        print(f"gunicorn {process.pid} on port {port}; warming up")
        # Every worker thread serves every kind of request once before anything is recorded.
        warm = 5.0 if args.quick else 10.0
        _, warm_acked = run_step(
            plan_path, work, process.pid, dbname, step=0, vus=8, duration=warm / 2, warmup=warm / 2
        )
        acked += warm_acked
        for number, vus in enumerate(args.concurrency, start=1):
            step, step_acked = run_step(
                plan_path,
                work,
                process.pid,
                dbname,
                step=number,
                vus=vus,
                duration=args.duration,
                warmup=args.warmup,
            )
            steps.append(step)
            acked += step_acked
            o = step["overall"]
            print(
                f"  {vus:>3} VUs: {o['rps']:7.1f} req/s  p50 {fmt(o['p50']):>5}  "
                f"p95 {fmt(o['p95']):>5}  p99 {fmt(o['p99']):>5} ms  errors {step['errors']}  "
                f"load {step['load_average_before'][0]:.2f}"
            )
        memory = memory_mb(process.pid)
    finally:
        log_lines = log.read_text().splitlines() if log.exists() else []
        stop_server(process)
        shutil.rmtree(work, ignore_errors=True)  # the plan holds the accounts' tokens
    server_log = "\n".join(line for line in log_lines if '"gunicorn.access"' not in line)
    list_ids = [a["list"] for a in plan["accounts"]]
    saves = saves_in_database(args.database_url, {(a, b) for a, b, _ in acked}, list_ids)
    saves["answers"] = dict(Counter(str(status) for _, _, status in acked))
    sat = saturation(steps)
    result = {
        "date": started.isoformat(timespec="seconds"),
        "machine": host_facts(args.database_url),
        "database": meta,
        "server": {
            "command": " ".join(gunicorn_command(args, port)[2:]),
            "workers": args.workers,
            "threads": args.threads,
            "worker_class": args.worker_class or ("gthread" if args.threads > 1 else "sync"),
            "config_file": str(args.gunicorn_config or ""),
            **memory,
        },
        "mix": mix,
        "duration": args.duration,
        "warmup": args.warmup,
        "steps": steps,
        "saturation": sat,
        "targets": verdicts(steps, sat),
        "saves": saves,
        "server_log_tail": server_log[-5000:],
    }
    print_report(result)
    print(
        f"\n{result['machine']['cpus']} CPUs ({result['machine']['cpu']}), PostgreSQL "
        f"{result['machine']['postgresql']}, Python {result['machine']['python']}; load average "
        f"at the end {'/'.join(str(x) for x in result['machine']['load_average'])}; "
        f"{result['server']['command']}; master and {memory['worker_processes']} workers: "
        f"{memory['rss_mb']} MB RSS, {memory['pss_mb']} MB PSS"
    )
    if any(word in server_log for word in ("Traceback", "ERROR", "CRITICAL", "WORKER TIMEOUT")):
        print(f"\ngunicorn log (last lines):\n{server_log[-3000:]}")
    path = args.json or ROOT / "var" / f"bench_load-{started:%Y%m%d-%H%M%S}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
