"""How long from the extension's lookup of an unknown id to the paper stored and tagged.

A real Celery worker (filesystem broker, SQLite: the embedded default) and a fake arXiv on a real
socket serving recorded query-API answers; the lookup is POSTed through Django's test client and
the clock stops when the paper has tags. The politeness gate is left at arXiv's 3 seconds.

    .venv/bin/python bench/bench_on_demand.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDS = ["1707.08567", "1605.08386", "astro-ph/0601001"]  # ids the fake holds recorded answers for


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.fake_arxiv import FakeArxiv

    data = Path(tempfile.mkdtemp(prefix="paperscope-bench-"))
    with FakeArxiv() as arxiv:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DEBUG": "1",
            "PAPERSCOPE_DATA_DIR": str(data),
            "ARXIV_API_URL": arxiv.api_url,
            "ARXIV_REQUEST_DELAY": "3",
            "ALLOWED_HOSTS": "testserver",
        }
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client

        from papers.models import Paper

        call_command("migrate", verbosity=0)
        call_command("load_taxonomy", verbosity=0)
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
             "--loglevel", "WARNING"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            time.sleep(8)  # worker start-up (and its tagger preload) is not part of the figure
            client = Client()
            print(f"{'id':<20} {'seconds':>8}")
            latencies = []
            for arxiv_id in IDS:
                started = time.perf_counter()
                response = client.post(
                    "/api/v1/papers/lookup", {"ids": [arxiv_id]}, content_type="application/json"
                )
                assert response.json()["pending"] == [arxiv_id], response.content
                # Done when the tagger has run on it (a paper may rightly get no tags).
                while not Paper.objects.filter(arxiv_id=arxiv_id, tagged_at__isnull=False).exists():
                    if time.perf_counter() - started > 60:
                        raise SystemExit(f"{arxiv_id}: not stored and tagged within 60 s")
                    time.sleep(0.05)
                latencies.append(time.perf_counter() - started)
                print(f"{arxiv_id:<20} {latencies[-1]:8.2f}")
            print(
                f"median {sorted(latencies)[len(latencies) // 2]:.2f} s, max {max(latencies):.2f} s"
            )
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
