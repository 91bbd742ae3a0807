"""Training the tagger: fit its scorer, calibration and decision threshold on the TRAINING set
only, and write the labelled papers its kNN uses (``manage.py fit_tagger`` is the CLI; the
scheduled retrain reuses the pairs). ``crossval`` holds the steps, ``pipeline`` runs them.

    manage.py fit_tagger [--name fit-7] [--out topics/tagger/model/scorer.json]
                         [--base topics/tagger/model/scorer_hand-1.json] [--folds 5]
                         [--acceptable exclude|negative|half] [--l2 3.0] [--calibrate-top 5]
                         [--knn-k 20] [--search] [--report cv.json] [--dry-run]

0. Heads (``topics/tagger/heads.py``): one linear SVM per topic with >= 3 labelled papers over
   the paper's words (tf-idf) and vector, fitted on every training paper (shipped as
   ``heads.npz``) and, for the training papers' own features, on the other folds only (the
   same folds as step 2), so that no paper's ``head`` feature has seen its label.
1. Pairs: for every labelled training paper (topics/evaluation/train_*.jsonl, announced
   2024-12-31..2025-05-16; the command refuses papers from the gold window or in the gold set),
   every topic the scorer scores for it (``Tagger.candidate_slugs``: keyword hits, top-k by each
   similarity, the topics of the ``--knn-k`` nearest other labelled training papers) gives one
   pair with ``Tagger.pair_features``. Label 1 = the topic or one of its descendants is labelled
   "clearly applies" (gold expanded with ancestors), 0 = any other candidate. An "acceptable"
   topic (defensible, not clearly right) is, with ``--acceptable``: ``negative`` a 0 like any
   other wrong topic; ``exclude`` left out of the logistic fit; ``half`` a positive of weight
   0.5. Calibration is always to strict correctness (acceptable = not correct), as ECE is
   measured.
2. ``--folds``-fold cross-validation grouped by paper: on each fold's complement the logistic
   weights are fitted (``fit_scorer``, all features standardised, L2, classes balanced); the
   held-out papers get out-of-fold raw scores, made hierarchy-consistent as the tagger does.
   The kNN memory of each fold holds the other folds' papers only, so no held-out label is
   seen (a training paper is never its own neighbour either).
3. Calibration: one Platt scaling fitted on the out-of-fold raw scores of each paper's
   ``--calibrate-top`` best non-area topics (the region where tags are chosen; 0 = all
   candidates), so that the scores of the tags the tagger shows are calibrated, not only the
   mass of obvious negatives.
4. Decision rule: the threshold and fill-up floor with the best out-of-fold non-area micro-F1;
   among grid points within 0.005 of the best (the surface is flat in the threshold once the
   floor is set), the threshold closest to 0.5, so that a "confident" tag is more likely right
   than wrong. ``--search`` also cross-validates ``--acceptable`` x ``--l2`` and keeps the best
   micro-F1 (within 0.005, the lowest ECE).
5. The final weights are fitted on all training papers (kNN over all of them, each left out of
   its own neighbours), with the cross-validated Platt parameters and decision rule, and
   written with their version, the data they came from and the out-of-fold figures in ``fit``;
   the labelled papers go to ``labelled_papers.jsonl.gz`` next to the scorer.

The base (hand-set) scorer supplies the candidate sizes, the rest of the decision rule and the
weights of signals the training data cannot show (example papers, rejections, priors; their
effect on the final logit is kept). Deterministic: the same files give the same scorer.json and
labelled_papers.jsonl.gz.
"""

from topics.tagger.training.crossval import TrainingDataError, build_pairs, check_training_papers
from topics.tagger.training.pipeline import FitOptions, FitResult, fit, save

__all__ = [
    "FitOptions",
    "FitResult",
    "TrainingDataError",
    "build_pairs",
    "check_training_papers",
    "fit",
    "save",
]
