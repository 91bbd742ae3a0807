"""Which chip comes first (issue 13, item 1): a small gradient-boosted model that orders a paper's
chips by how likely each is right, given the chips beside it.

The scorer decides *which* topics a paper gets, pair by pair over every candidate; the chips are
then its most specific selected topics. Ordered by the scorer's own score, the first chip was
right for 75% of the training papers, while one of their chips was right for 89%: the scorer is
fitted on all candidates, most of them easy negatives, and weighs its features the same for every
topic. This model sees only the chips of each paper (the hard cases), with the scorer's features,
its score, the chip's place and gap to the best chip, its depth, the number of chips and whether
a phrase of the topic occurs, and can use interactions between them. It only reorders: the set
of chips, their scores and everything else stay the scorer's.

Fitted by ``topics.tagger.training.chip_order`` on the labelled training papers (each paper's
kNN vote leaves it out and its heads are those of the other folds, as in the scorer's fit);
shipped as ``model/chip_order.npz``: the trees as flat arrays and, as JSON, how it was made and
its out-of-fold figures. Scoring needs only numpy; fitting needs scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .features import FEATURES
from .trees import BoostedTrees

CHIP_ORDER_FILE = "chip_order.npz"
CHIP_ORDER_PATH = Path(__file__).resolve().parent / "model" / CHIP_ORDER_FILE
# The scorer's features of the (paper, topic) pair, then what only a chip list knows.
CHIP_FEATURES = (*FEATURES, "score", "position", "score_gap", "depth", "chips", "phrase")


def chip_matrix(
    values: Mapping[str, np.ndarray],
    i: int,
    chips: Sequence[int],
    own: np.ndarray,
    depth: np.ndarray,
    phrased: set[int],
) -> np.ndarray:
    """(len(chips), len(CHIP_FEATURES)) rows for paper ``i``'s chips (topic columns, in score
    order): ``values`` the batch's feature arrays, ``own`` its (N, T) scores, ``phrased`` the
    topics with a phrase hit in the paper."""
    cols = np.asarray(chips, dtype=np.intp)
    scores = own[i, cols].astype(np.float64)
    out = np.empty((len(cols), len(CHIP_FEATURES)), dtype=np.float64)
    for k, f in enumerate(FEATURES):
        out[:, k] = values[f][i, cols]
    n = len(FEATURES)
    out[:, n] = scores
    out[:, n + 1] = np.arange(len(cols))
    out[:, n + 2] = scores - scores.max()
    out[:, n + 3] = depth[cols]
    out[:, n + 4] = len(cols)
    out[:, n + 5] = [float(j in phrased) for j in chips]
    return out


class ChipOrder(BoostedTrees):
    """The chip-order model: boosted trees over :data:`CHIP_FEATURES` rows, P(chip is right)."""

    @classmethod
    def load(cls, path: str | Path | None = None) -> ChipOrder | None:
        """The model at ``path`` (default: the shipped one); None when there is none or it was
        made for features the tagger no longer has (then chips keep the scorer's order)."""
        return cls.read(path if path is not None else CHIP_ORDER_PATH, CHIP_FEATURES)
