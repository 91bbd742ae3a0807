"""Import the recorded half year of cs.LG announcements (180 RSS files, 40k items) into a fresh
database and time it; then import it again (everything unchanged) and time that.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paperscope_bench \
        .venv/bin/python bench/bench_import.py [--rss-dir PATH] [--tag]

The database named in DATABASE_URL is dropped and created afresh (PostgreSQL only). Data-gated:
it needs ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz (or --rss-dir).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RSS = ROOT.parent / "shared" / "data" / "arxiv" / "rss" / "cs.LG_daily_2025H1_gz"


def recreate_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = url.replace(parts.path, "/postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rss-dir", type=Path, default=DEFAULT_RSS)
    parser.add_argument("--tag", action="store_true", help="also tag every imported paper")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL database this script may drop and recreate")
        return 2
    if not args.rss_dir.is_dir():
        print(f"no corpus at {args.rss_dir}: this benchmark needs the recorded RSS half year")
        return 2
    recreate_database(url)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "z" * 40)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from papers.models import Paper
    from papers.services.imports import import_files

    call_command("migrate", verbosity=0)
    call_command("load_taxonomy", verbosity=0)
    files = sorted(args.rss_dir.glob("*.xml*"))
    started = time.perf_counter()
    first = import_files(paths=files, queue_tagging=False)
    first_seconds = time.perf_counter() - started
    started = time.perf_counter()
    second = import_files(paths=files, queue_tagging=False)
    second_seconds = time.perf_counter() - started
    papers = Paper.objects.count()
    print(f"files: {len(files)}")
    print(f"first import:  {first_seconds:6.1f} s  {first.summary()}")
    print(f"second import: {second_seconds:6.1f} s  {second.summary()}")
    print(f"papers stored: {papers:,}  ({papers / first_seconds:,.0f} papers/s on first import)")
    if args.tag:
        from topics.services.tagging import papers_tag_untagged

        started = time.perf_counter()
        tagged = papers_tag_untagged()
        seconds = time.perf_counter() - started
        print(f"tagging:       {seconds:6.1f} s  {tagged:,} papers ({tagged / seconds:,.0f}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
