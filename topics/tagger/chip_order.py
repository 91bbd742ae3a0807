"""Which chip comes first (issue 13, item 1): a small gradient-boosted model that orders a paper's
chips by how likely each is right, given the chips beside it.

The scorer decides *which* topics a paper gets, pair by pair over every candidate; the chips are
then its most specific selected topics. Ordered by the scorer's own score, the first chip was
right for 75% of the training papers, while one of their chips was right for 89%: the scorer is
fitted on all candidates, most of them easy negatives, and weighs its features the same for every
topic. This model sees only the chips of each paper (the hard cases; since 2026-12-04 a paper's
only chip too, whose P(right) is the confidence a reader sees), with the scorer's features,
its score, the chip's place and gap to the best chip, its depth, the number of chips and whether
a phrase of the topic occurs, and can use interactions between them. Two things only a list of
chips and the judges know are added (``fit-20r``, docs/tagging.md): how the judges answered when
shown the topic on other training papers (a broad topic such as "Transformer Architectures" was
"acceptable, not the paper's topic" on 80% of the papers it applied to, "LLM Unlearning" on 47%),
and whether the chip's name is a broader or narrower wording of another chip's ("Inference-Time
Scaling" beside "Diffusion Inference-Time Scaling"); since ``fit-26``, whether a topic named for
language models sits on a paper that names none (``lm_unsaid``). It only reorders: the set of
chips, their scores and everything else stay the scorer's.

Fitted by ``topics.tagger.training.chip_order`` on the labelled training papers (each paper's
kNN vote leaves it out and its heads are those of the other folds, as in the scorer's fit);
shipped as ``model/chip_order.npz``: the trees as flat arrays and, as JSON, how it was made and
its out-of-fold figures. Scoring needs only numpy; fitting needs scikit-learn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .features import FEATURES
from .trees import BoostedTrees

CHIP_ORDER_FILE = "chip_order.npz"
CHIP_ORDER_PATH = Path(__file__).resolve().parent / "model" / CHIP_ORDER_FILE
# The scorer's features of the (paper, topic) pair, then what only a chip list knows, then the
# judges' verdicts on the topic (JUDGED_FEATURES) and how its name relates to the other chips'.
JUDGED_FEATURES = ("judged_clear", "judged_acceptable", "judged_count")
CHIP_FEATURES = (
    *FEATURES, "score", "position", "score_gap", "depth", "chips", "phrase",
    *JUDGED_FEATURES, "name_broader", "name_narrower", "name_shared", "lm_unsaid",
)  # fmt: skip
# A topic named for language models ("LLM Unlearning", "PEFT of LLMs", "Diffusion Language
# Models") on a paper that never speaks of one: on the gold papers of fit-24r such chips were
# right 3 times in 11, against 44 in 51 where the paper names a language model. The general
# counterpart ("Machine Unlearning", "Post-Training Quantization") is then the better first chip.
LM_TOPIC_NAME = re.compile(r"\b(?:LLMs?|VLMs?|MLLMs?|Language Models?)\b")
LM_WORDS = re.compile(
    r"\b(?:L?LMs?|[MV]LLMs?|VLMs?|SLMs?|language[- ]model\w*|GPT[\w.-]*|ChatGPT|LLaMA[\w.-]*"
    r"|Qwen[\w.-]*|Mistral|Gemini|Claude|DeepSeek[\w.-]*|chatbots?|instruction[- ]tun\w*)\b",
    re.IGNORECASE,
)
# Words of a topic's name that say nothing about which topic it is.
_NAME_FILLER = frozenset(
    {"a", "and", "deep", "for", "in", "learning", "machine", "methods", "ml", "model", "models"}
    | {"neural", "of", "on", "the", "to", "with"}
)


def name_words(name: str) -> frozenset[str]:
    """The telling words of a topic's name: "Diffusion Inference-Time Scaling" ->
    {diffusion, inference, time, scaling}."""
    return frozenset(w for w in re.findall(r"[a-z0-9]+", name.lower()) if w not in _NAME_FILLER)


def speaks_of_language_models(title: str, abstract: str) -> bool:
    """Whether a paper names a language model anywhere (see :data:`LM_TOPIC_NAME`)."""
    return bool(LM_WORDS.search(title) or LM_WORDS.search(abstract))


def judged_priors(counts: np.ndarray) -> np.ndarray:
    """(T, 3) :data:`JUDGED_FEATURES` from (T, 3) counts of the judges' verdicts on each topic
    (clear, acceptable, rejected): the share of papers it was shown for where it was the
    paper's topic, the share of those it applied to where it was only acceptable (both smoothed
    towards 1/2) and log(1 + papers judged)."""
    c, a, r = (counts[:, k].astype(np.float64) for k in range(3))
    return np.column_stack([(c + 1) / (c + a + r + 2), (a + 1) / (c + a + 2), np.log1p(c + a + r)])


def topic_priors(order: ChipOrder | None, slugs: Sequence[str]) -> np.ndarray:
    """(len(slugs), 3) :func:`judged_priors` of these topics from the verdicts ``order`` was
    fitted with (a topic no judge saw, or no model: no verdicts)."""
    judged = order.info.get("judged", {}) if order is not None else {}
    counts = np.array([judged.get(s, (0, 0, 0)) for s in slugs], dtype=np.float64)
    return judged_priors(counts.reshape(len(slugs), 3))


def name_relations(words: Sequence[frozenset[str]]) -> np.ndarray:
    """(n, 3) per chip (its name's :func:`name_words`): another chip's name holds all of its
    words and more (it is the broader wording), it holds all of another's and more (the
    narrower), it shares a word with another."""
    out = np.zeros((len(words), 3))
    for j, own in enumerate(words):
        others = [w for k, w in enumerate(words) if k != j and w and own]
        out[j] = [
            any(own < w for w in others),
            any(w < own for w in others),
            any(own & w for w in others),
        ]
    return out


def chip_matrix(
    values: Mapping[str, np.ndarray],
    i: int,
    chips: Sequence[int],
    own: np.ndarray,
    depth: np.ndarray,
    phrased: set[int],
    priors: np.ndarray,
    words: Sequence[frozenset[str]],
    lm_topic: np.ndarray,
    lm_said: bool,
) -> np.ndarray:
    """(len(chips), len(CHIP_FEATURES)) rows for paper ``i``'s chips (topic columns, in score
    order): ``values`` the batch's feature arrays, ``own`` its (N, T) scores, ``phrased`` the
    topics with a phrase hit in the paper, ``priors`` the (T, 3) :func:`judged_priors`,
    ``words`` each topic's :func:`name_words`, ``lm_topic`` (T,) whether a topic is named for
    language models and ``lm_said`` whether the paper names one."""
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
    out[:, n + 6 : n + 9] = priors[cols]
    out[:, n + 9 : n + 12] = name_relations([words[j] for j in chips])
    out[:, n + 12] = 0.0 if lm_said else lm_topic[cols]
    return out


class ChipOrder(BoostedTrees):
    """The chip-order model: boosted trees over :data:`CHIP_FEATURES` rows, P(chip is right).
    ``info["judged"]`` holds the verdict counts it was fitted with, ``{slug: [clear,
    acceptable, rejected]}`` (none in a model made before they were a feature)."""

    @classmethod
    def load(cls, path: str | Path | None = None) -> ChipOrder | None:
        """The model at ``path`` (default: the shipped one); None when there is none or it was
        made for features the tagger no longer has (then chips keep the scorer's order)."""
        return cls.read(path if path is not None else CHIP_ORDER_PATH, CHIP_FEATURES)
