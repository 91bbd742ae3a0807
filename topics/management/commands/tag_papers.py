"""manage.py tag_papers: tag papers offline (JSONL in, JSONL out) or tag the stored ones:
the untagged ones, or with --all every one (after an upgrade that ships a new scorer). With
--refined, the refined stage (contextual encoder) tags them too, as the worker's sweep would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from topics.runtime import refined_off_reason, refined_tagger_get, tagger_get
from topics.services.tagging import papers_refine, papers_retag_all, papers_tag_untagged
from topics.tagger.engine import PaperInput


class Command(BaseCommand):
    help = (
        "Tag papers. With --input: read JSONL lines {id, title, abstract, categories, authors} "
        "(only title is required) and write {id, tags: [{slug, name, score, evidence}]} lines in "
        "rank order, without touching the database's papers. Without: tag stored papers that "
        "were never tagged; with --all, every stored paper again, newest first."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", type=Path, help="JSONL file of papers, - for stdin")
        parser.add_argument("--output", type=Path, help="JSONL file for the tags, - for stdout")
        parser.add_argument(
            "--all",
            action="store_true",
            help="re-tag every stored paper (after an upgrade that ships a new scorer)",
        )
        parser.add_argument(
            "--refined",
            action="store_true",
            help="then refine the tags with the refined stage (minutes: 50-100 papers/s); "
            "with --input, tag with it",
        )

    def handle(self, *args, **options):
        if options["input"] is None:
            if options["all"]:
                count = papers_retag_all(progress=self._progress)
                self.stdout.write(f"re-tagged {count} stored papers")
            else:
                count = papers_tag_untagged(progress=self._progress)
                self.stdout.write(f"tagged {count} stored papers")
            if options["refined"]:
                self._refined_tagger()  # says why when the stage cannot run
                count = papers_refine(limit=None, progress=self._progress)
                self.stdout.write(f"refined {count} stored papers")
            return
        if options["all"]:
            raise CommandError("--all re-tags the stored papers; it does not go with --input.")
        papers = list(self._read(options["input"]))
        tagger = self._refined_tagger() if options["refined"] else tagger_get()
        if not tagger.topics:
            raise CommandError("No topics loaded: run `manage.py load_taxonomy` first.")
        results = tagger.tag_batch(papers)
        out = (
            sys.stdout
            if options["output"] in (None, Path("-"))
            else options["output"].open("w", encoding="utf-8")
        )
        try:
            for paper, tags in zip(papers, results, strict=True):
                line = {
                    "id": paper.id,
                    "tags": [  # display order: the chips (shown) first, as pages show them
                        {"slug": t.slug, "name": t.name, "score": round(t.score, 4),
                         "confidence": round(t.confidence, 4), "shown": t.shown,
                         "implied": t.implied, "evidence": t.evidence}
                        for t in tags
                    ],
                }  # fmt: skip
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
        if out is not sys.stdout:
            self.stdout.write(f"tagged {len(papers)} papers into {options['output']}")

    def _refined_tagger(self):
        tagger = refined_tagger_get()
        if tagger is None:
            raise CommandError(f"The refined stage cannot run here: {refined_off_reason()}.")
        return tagger

    def _progress(self, message: str) -> None:
        self.stderr.write(message)

    def _read(self, path: Path):
        handle = sys.stdin if path == Path("-") else None
        if handle is None:
            if not path.exists():
                raise CommandError(f"{path}: no such file")
            handle = path.open(encoding="utf-8")
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CommandError(f"{path}:{number}: not JSON ({exc.msg})") from None
                if not isinstance(data, dict) or not isinstance(data.get("title"), str):
                    raise CommandError(f"{path}:{number}: each line needs a string 'title'")
                yield PaperInput.coerce(data)
