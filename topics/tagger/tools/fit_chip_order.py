"""Fit the chip-order model for the shipped scorer, heads and labelled papers, and write it
next to them (``topics/tagger/model/chip_order.npz``); ``fit_tagger`` does the same at the end of
every fit. Prints the out-of-fold figures it records. From the shipped files it does not
reproduce the fit's own file byte for byte: for ``fit-27`` the chips and rows' scorer order are
the same and the trees differ a little (first chip right out of fold 0.8294 against the fit's
0.8287); where the two routes part is not traced yet.

    DEBUG=1 .venv/bin/python -m topics.tagger.tools.fit_chip_order [--out PATH] \
        [--without FEATURE,...]   # what a feature adds: the same fit with it held at 0

About four minutes on the shared 2-core machine (the heads of each fold are refitted to score
the training papers honestly).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def scored_training_papers():
    """The shipped fast tagger set to score the labelled training papers as the scorer's fit
    does (kNN leaving the paper out, each paper's heads fitted on the other folds), with the
    training data and the fit's options: ``(tagger, data, opts)``. Needs Django set up."""
    from topics.tagger.engine import Tagger
    from topics.tagger.taxonomy import load_taxonomy_files
    from topics.tagger.training.pipeline import (
        TAXONOMY_DIR,
        FitOptions,
        _training_data,
        heads_out_of_fold,
    )

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    opts = FitOptions()
    data = _training_data(taxonomy, opts, print)
    tagger = Tagger(taxonomy.topics)  # the shipped scorer, labelled papers and heads
    view = tagger.heads_view()
    if view is None:
        raise SystemExit("the shipped tagger has no heads: refit with manage.py fit_tagger")
    heads_out_of_fold(tagger, data.papers, data.y, opts.folds, heads=view.heads)
    return tagger, data, opts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="default: next to the shipped scorer")
    parser.add_argument(
        "--without", default="", help="comma-separated features held at 0 (what one adds)"
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from topics.tagger.chip_order import CHIP_FEATURES, CHIP_ORDER_PATH
    from topics.tagger.training.chip_order import fit_chip_order

    without = [f for f in args.without.split(",") if f]
    unknown = sorted(set(without) - set(CHIP_FEATURES))
    if unknown:
        raise SystemExit(f"not chip-order features: {', '.join(unknown)}")
    tagger, data, opts = scored_training_papers()
    model = fit_chip_order(
        tagger, data.papers, data.gold, verdicts=data.verdicts, folds=opts.folds,
        log=print, without=without,
    )  # fmt: skip
    if model is None:
        raise SystemExit("no chip-order model fitted")
    out = args.out or CHIP_ORDER_PATH
    model.save(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
