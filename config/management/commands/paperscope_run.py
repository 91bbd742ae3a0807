"""manage.py paperscope_run: everything a laptop needs, in one command (what `make run` calls).

Migrates, loads the taxonomy and the bundled sample of real arXiv papers, tags them, then runs
the web server and a Celery worker with the beat schedule until Ctrl-C. Safe to run again: each
step is idempotent and keeps what was stored before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from config.env import env_bool
from papers.models import HarvestWatermark, Paper
from papers.services.imports import import_files
from topics.services.stats import topic_stats_recompute
from topics.services.tagging import BATCH_SIZE, papers_tag_untagged
from topics.services.taxonomy import taxonomy_load
from topics.tasks import tag_papers_task

# The bundled sample; PAPERSCOPE_SAMPLE_DIR points elsewhere (the tests use a two-feed sample).
SAMPLE_DIR = Path(
    os.environ.get("PAPERSCOPE_SAMPLE_DIR") or Path(settings.BASE_DIR) / "data" / "sample" / "rss"
)


class Command(BaseCommand):
    help = "Set up and run Paperscope (web, worker, schedule) on the embedded default."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--setup-only", action="store_true", help="prepare the data and exit")

    def handle(self, *args, **options):
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=0)
        self.say(taxonomy_load().summary())
        self.import_sample()
        if options["setup_only"]:
            tagged = papers_tag_untagged(progress=self.progress)
            self.say(f"tagged {tagged} papers")
            self.say(f"momentum refreshed for {topic_stats_recompute()} topics")
            self.say(f"ready in {time.monotonic() - started:.0f} s")
            return
        self.say(f"momentum refreshed for {topic_stats_recompute()} topics")
        self.run_processes(options["port"], started=started)

    def say(self, line: str) -> None:
        self.stdout.write(f"paperscope: {line}")
        self.stdout.flush()

    def progress(self, line: str) -> None:
        if sys.stdout.isatty():
            sys.stdout.write(f"\rpaperscope: {line}   ")
            sys.stdout.flush()

    def import_sample(self) -> None:
        files = sorted(SAMPLE_DIR.glob("*.xml*"))
        digest = hashlib.sha256("".join(f"{f.name}:{f.stat().st_size}" for f in files).encode())
        stamp = digest.hexdigest()[:16]
        if HarvestWatermark.objects.filter(source="sample", value=stamp).exists():
            self.say("bundled sample already imported")
            return
        # Tagged right after, in this process: no need to queue the papers for the worker.
        result = import_files(paths=files, progress=self.progress, queue_tagging=False)
        HarvestWatermark.objects.update_or_create(source="sample", defaults={"value": stamp})
        self.say(f"bundled sample ({len(files)} feeds): {result.summary()}")

    def arxiv_reachable(self) -> bool:
        try:
            httpx.head(settings.ARXIV_RSS_URL, timeout=5, follow_redirects=True)
        except httpx.HTTPError as exc:
            self.say(
                f"arXiv is not reachable from here ({type(exc).__name__}); "
                "serving the bundled sample, harvesting stays off until a restart with network"
            )
            return False
        return True

    def openalex_reachable(self) -> bool:
        """Said once, like arXiv: without OpenAlex, rows show the affiliations arXiv gave."""
        if not settings.OPENALEX_URL:
            self.say("OpenAlex enrichment is off (OPENALEX_URL is empty)")
            return False
        try:
            httpx.head(settings.OPENALEX_URL, timeout=5, follow_redirects=True)
        except httpx.HTTPError as exc:
            self.say(
                f"OpenAlex is not reachable from here ({type(exc).__name__}); affiliations and "
                "citation counts stay off until a restart with network"
            )
            return False
        return True

    def queue_untagged(self) -> None:
        """Hand untagged papers to the worker, newest first, so the server is up at once and the
        latest papers get their tags within seconds; older ones follow batch by batch."""
        untagged = Paper.objects.filter(tagged_at__isnull=True).order_by("-announced", "-id")
        ids = list(untagged.values_list("id", flat=True))
        for start in range(0, len(ids), BATCH_SIZE):
            tag_papers_task.delay(ids[start : start + BATCH_SIZE])
        if ids:
            self.say(f"tagging {len(ids)} papers in the worker, newest first")

    def run_processes(self, port: int, *, started: float) -> None:
        python = sys.executable
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        worker_cmd = [
            python, "-m", "celery", "-A", "config", "worker", "--beat",
            "--loglevel", "INFO", "--concurrency", "2",
            "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME,
        ]  # fmt: skip
        web_cmd = [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        harvest = env_bool("HARVEST_ON_START", default=True) and self.arxiv_reachable()
        if not (harvest and self.openalex_reachable()):
            env["OPENALEX_URL"] = "off"  # the worker then skips enrichment without trying
        # Each in a process group of its own, so that stopping it stops its children too: the
        # worker's pool and its embedded beat outlived a worker killed mid-task (a refine
        # sweep can outlast the grace period), and the orphaned beat kept queueing tasks.
        processes = [
            subprocess.Popen(worker_cmd, cwd=settings.BASE_DIR, env=env, start_new_session=True),
            subprocess.Popen(web_cmd, cwd=settings.BASE_DIR, env=env, start_new_session=True),
        ]
        self.queue_untagged()
        if harvest:
            from papers.tasks import harvest_rss_task

            harvest_rss_task.delay()
            self.say("arXiv is reachable: harvesting the latest announcements in the worker")
        self.say(
            f"serving http://127.0.0.1:{port}/ after {time.monotonic() - started:.0f} s "
            "(Ctrl-C stops web, worker and schedule)"
        )
        stop = False

        def request_stop(*_):
            nonlocal stop
            stop = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        try:
            while not stop and all(p.poll() is None for p in processes):
                time.sleep(0.5)
        finally:
            for process in processes:
                if process.poll() is None:
                    process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                with contextlib.suppress(ProcessLookupError):  # what is left of its group
                    os.killpg(process.pid, signal.SIGKILL)
        failed = [p.args[2] for p in processes if p.returncode not in (0, -15, None)]
        if failed and not stop:
            self.stderr.write(f"paperscope: a process stopped unexpectedly: {failed}")
            sys.exit(1)
