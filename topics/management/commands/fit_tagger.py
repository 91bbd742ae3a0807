"""manage.py fit_tagger: fit the tagger's scorer on the training set (the method is described in
``topics/tagger/training/__init__.py``; the figures in docs/tagging.md).

    manage.py fit_tagger [--name fit-7] [--out topics/tagger/model/scorer.json]
                         [--base topics/tagger/model/scorer_hand-1.json] [--folds 5]
                         [--acceptable exclude|negative|half] [--l2 3.0] [--calibrate-top 5]
                         [--knn-k 20] [--search] [--report cv.json] [--dry-run]
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from topics.tagger.contextual import REFINED_DIR
from topics.tagger.training import FitOptions, TrainingDataError, fit, save
from topics.tagger.training.crossval import ACCEPTABLE_MODES


class Command(BaseCommand):
    help = (
        "Fit the tagger's scorer (logistic regression), its calibration (Platt) and decision "
        "threshold on the labelled training set (cross-validated) and write "
        "topics/tagger/model/scorer.json."
    )

    def add_arguments(self, parser):
        d = FitOptions()
        parser.add_argument("--name", default=d.name, help="version string of the new scorer")
        parser.add_argument(
            "--out",
            type=Path,
            help=f"where the scorer goes (default {d.out}; with --context-weight "
            f"{REFINED_DIR / 'scorer.json'})",
        )
        parser.add_argument("--base", type=Path, default=d.base, help="base scorer.json")
        parser.add_argument("--folds", type=int, default=d.folds)
        parser.add_argument("--acceptable", choices=ACCEPTABLE_MODES, default=d.acceptable)
        parser.add_argument("--l2", type=float, default=d.l2)
        parser.add_argument(
            "--calibrate-top",
            type=int,
            default=d.calibrate_top,
            help="Platt on each paper's N best topics",
        )
        parser.add_argument(
            "--top-k", type=int, default=0, help="candidates per similarity (default: base's)"
        )
        parser.add_argument(
            "--knn-k", type=int, default=d.knn_k, help="nearest labelled training papers (0: none)"
        )
        parser.add_argument(
            "--search", action="store_true", help="also cross-validate --acceptable and --l2"
        )
        parser.add_argument(
            "--weak",
            action="store_true",
            help="the heads also learn from the weak labels (measured: no gain out of fold)",
        )
        parser.add_argument(
            "--context-weight",
            type=float,
            default=0.0,
            help="fit the refined stage: the kNN vote joins contextual (MiniLM) vectors with "
            "this weight to the static ones (0.7 shipped; 0: the fast stage)",
        )
        parser.add_argument(
            "--top-k-context",
            type=int,
            default=d.top_k_context,
            help="refined stage: candidates per paper by each contextual topic similarity",
        )
        parser.add_argument(
            "--trees",
            action="store_true",
            help="score pairs by boosted trees over the features instead of logistic weights "
            "(the refined stage's scorer since fit-18r)",
        )
        parser.add_argument("--limit", type=int, default=0, help="first N papers (for tests)")
        parser.add_argument("--dry-run", action="store_true", help="do not write the scorer")
        parser.add_argument("--report", type=Path, help="write the CV results as JSON here")

    def handle(self, *args, **options):
        fields = FitOptions.__dataclass_fields__
        opts = FitOptions(**{k: v for k, v in options.items() if k in fields and v is not None})
        if options["out"] is None and opts.context_weight > 0:
            opts.out = REFINED_DIR / "scorer.json"
        try:
            result = fit(opts, log=self.stdout.write)
        except (ValueError, TrainingDataError) as error:
            raise CommandError(str(error)) from None
        if options["report"]:
            report = {"chosen": {k: result.chosen[k] for k in ("acceptable", "l2")}}
            report["cv"] = result.cv_results
            options["report"].write_text(
                json.dumps(report, indent=1, default=float) + "\n", encoding="utf-8"
            )
        if options["dry_run"]:
            self.stdout.write("dry run: scorer not written")
            return
        target = save(result, opts.out)
        self.stdout.write(f"wrote {opts.out} (version {result.scorer.version}) and {target.name}")
