"""manage.py harvest oai|rss|ids: fetch from arXiv (or the mirror the ARXIV_*_URL settings name)."""

from __future__ import annotations

import sys
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id
from papers.clients.errors import ArxivError
from papers.services.harvest import (
    configured_oai_sets,
    configured_rss_categories,
    harvest_ids,
    harvest_oai,
    harvest_rss,
)
from papers.services.storage import UpsertResult


class Command(BaseCommand):
    help = "Harvest arXiv: `oai [--from YYYY-MM-DD] [--set cs]`, `rss CATEGORY...`, `ids ID...`."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="source", required=True)
        oai = sub.add_parser("oai", help="OAI-PMH ListRecords (arXivRaw), incremental by datestamp")
        oai.add_argument("--from", dest="from_date", type=date.fromisoformat, default=None)
        oai.add_argument("--set", dest="sets", action="append", default=None)
        oai.add_argument("--prefix", default="arXivRaw", choices=["arXivRaw", "arXiv"])
        rss = sub.add_parser("rss", help="the latest announcement feed of some categories")
        rss.add_argument("categories", nargs="*")
        ids = sub.add_parser("ids", help="single papers from the query API")
        ids.add_argument("ids", nargs="+")

    def handle(self, *args, **options):
        progress = self._progress
        total = UpsertResult()
        try:
            if options["source"] == "oai":
                for set_spec in options["sets"] or configured_oai_sets():
                    total.add(
                        harvest_oai(
                            set_spec=set_spec,
                            from_date=options["from_date"],
                            metadata_prefix=options["prefix"],
                            progress=progress,
                        )
                    )
            elif options["source"] == "rss":
                categories = options["categories"] or configured_rss_categories()
                total = harvest_rss(categories=categories, progress=progress)
            else:
                try:
                    ids = [parse_arxiv_id(raw).canonical for raw in options["ids"]]
                except InvalidArxivId as exc:
                    raise CommandError(str(exc)) from exc
                total = harvest_ids(arxiv_ids=ids, progress=progress)
        except ArxivError as exc:
            raise CommandError(f"arXiv request failed: {exc}") from exc
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        self.stdout.write(total.summary())

    def _progress(self, line: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write("\r" + line[:150])
            sys.stderr.flush()
