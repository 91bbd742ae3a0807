"""manage.py import_arxiv PATH...: import saved OAI-PMH, RSS/RDF or query-API files offline."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from papers.services.imports import UnknownFileFormat, import_files


class Command(BaseCommand):
    help = "Import saved arXiv responses (OAI-PMH XML, RSS 2.0 / RDF, Atom; .gz too). Folders too."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)

    def handle(self, *args, **options):
        paths: list[Path] = []
        for path in options["paths"]:
            if path.is_dir():
                paths.extend(sorted(p for p in path.iterdir() if p.is_file()))
            elif path.is_file():
                paths.append(path)
            else:
                raise CommandError(f"{path}: no such file or folder")
        try:
            result = import_files(paths=paths, progress=self._progress)
        except UnknownFileFormat as exc:
            raise CommandError(str(exc)) from exc
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        self.stdout.write(result.summary())

    def _progress(self, line: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write("\r" + line[:150])
            sys.stderr.flush()
