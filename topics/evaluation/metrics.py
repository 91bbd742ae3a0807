"""Evaluation metrics for the topic tagger: pure functions over slugs, no Django, no tagger.

Conventions (topics/evaluation/README.md):

- Gold labels list the most specific topics; :func:`expand` adds their ancestors, so a paper
  labelled ``ppo`` counts ``policy-gradient`` and ``rl`` as gold too. Acceptable topics are
  expanded the same way and never overlap the strict gold (strict wins).
- "non-area" metrics drop the areas (roots) from gold and predictions: an area is shown on its own
  line and is nearly always right, so it would inflate every figure. "all levels" keeps them.
- A prediction is a ranked list of :class:`Pred` (the tagger's tags in rank order). Rankings for
  P@k / R@k are plain slug lists (the tags, then the remaining candidates by score).

Everything here works on ``set``/``list`` of slugs and a ``parents`` mapping (slug -> parent slug
or ``None`` for an area), so the functions can be checked by hand on tiny cases
(topics/tests/test_evaluation_metrics.py).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

Parents = Mapping[str, str | None]


@dataclass(frozen=True)
class Pred:
    """One predicted tag: slug, calibrated score, filled in below the threshold or not."""

    slug: str
    score: float
    low_confidence: bool = False
    shown: bool | None = None  # a chip (None: a prediction from before chips existed)
    # The number a reader sees beside the tag (topics.tagger.chips.tag_confidence); None: the
    # score (a prediction from before the chip-order model's confidence was shown).
    confidence: float | None = None

    @property
    def shown_confidence(self) -> float:
        return self.score if self.confidence is None else self.confidence


@dataclass
class PaperEval:
    """Everything the metrics need about one paper (gold already expanded with ancestors)."""

    id: str
    gold: set[str]  # strict: clearly applies (+ ancestors)
    acceptable: set[str] = field(default_factory=set)  # defensible, not in gold (+ ancestors)
    tags: list[Pred] = field(default_factory=list)  # the tagger's output, rank order
    ranking: list[str] = field(default_factory=list)  # tags, then other candidates, best first
    candidates: list[str] = field(default_factory=list)  # tagger.candidates(paper, 50)


# -- hierarchy helpers ----------------------------------------------------------------------------
def ancestors(slug: str, parents: Parents) -> list[str]:
    """Parent first, area last; [] for an area or an unknown slug. Cycles are cut."""
    out: list[str] = []
    seen = {slug}
    parent = parents.get(slug)
    while parent is not None and parent not in seen:
        out.append(parent)
        seen.add(parent)
        parent = parents.get(parent)
    return out


def expand(slugs: Iterable[str], parents: Parents) -> set[str]:
    """The known slugs plus all their ancestors (unknown slugs are dropped: see
    :func:`unknown_slugs`)."""
    out: set[str] = set()
    for slug in slugs:
        if slug in parents:
            out.add(slug)
            out.update(ancestors(slug, parents))
    return out


def unknown_slugs(slugs: Iterable[str], parents: Parents) -> list[str]:
    return [s for s in slugs if s not in parents]


def areas_of(parents: Parents) -> set[str]:
    return {s for s, p in parents.items() if p is None}


def drop_areas(slugs: Iterable[str], areas: set[str]) -> list[str]:
    return [s for s in slugs if s not in areas]


# -- set-based metrics ----------------------------------------------------------------------------
def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def micro_prf(gold: Sequence[set[str]], pred: Sequence[Iterable[str]]) -> dict[str, float]:
    """Micro precision/recall/F1 pooled over all (paper, topic) pairs, with the counts."""
    tp = n_pred = n_gold = 0
    for g, p in zip(gold, pred, strict=True):
        p = set(p)
        tp += len(g & p)
        n_pred += len(p)
        n_gold += len(g)
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": _f1(precision, recall),
        "tp": tp,
        "predicted": n_pred,
        "gold": n_gold,
    }


def per_topic(
    gold: Sequence[set[str]], pred: Sequence[Iterable[str]]
) -> dict[str, dict[str, float]]:
    """Per topic: support (gold positives), predicted, tp, precision, recall, f1 (every topic
    that occurs in gold or predictions)."""
    sup: Counter[str] = Counter()
    npred: Counter[str] = Counter()
    tp: Counter[str] = Counter()
    for g, p in zip(gold, pred, strict=True):
        p = set(p)
        sup.update(g)
        npred.update(p)
        tp.update(g & p)
    out = {}
    for slug in set(sup) | set(npred):
        precision = tp[slug] / npred[slug] if npred[slug] else 0.0
        recall = tp[slug] / sup[slug] if sup[slug] else 0.0
        out[slug] = {
            "support": sup[slug],
            "predicted": npred[slug],
            "tp": tp[slug],
            "precision": precision,
            "recall": recall,
            "f1": _f1(precision, recall),
        }
    return out


def macro_f1(
    gold: Sequence[set[str]], pred: Sequence[Iterable[str]], *, min_support: int = 5
) -> tuple[float, int]:
    """Mean per-topic F1 over topics with at least ``min_support`` gold positives, and how many
    topics that is (0.0, 0 when none qualifies)."""
    table = per_topic(gold, pred)
    f1s = [row["f1"] for row in table.values() if row["support"] >= min_support]
    return (sum(f1s) / len(f1s) if f1s else 0.0), len(f1s)


def example_f1(gold: Sequence[set[str]], pred: Sequence[Iterable[str]]) -> float:
    """Mean over papers of 2|G & P| / (|G| + |P|); a paper with empty gold and no prediction
    scores 1."""
    scores = []
    for g, p in zip(gold, pred, strict=True):
        p = set(p)
        denom = len(g) + len(p)
        scores.append(1.0 if denom == 0 else 2 * len(g & p) / denom)
    return sum(scores) / len(scores) if scores else 0.0


def lenient_precision(
    gold: Sequence[set[str]], acceptable: Sequence[set[str]], pred: Sequence[Iterable[str]]
) -> float:
    """Micro precision where a prediction that is gold *or acceptable* counts as correct."""
    ok = n = 0
    for g, a, p in zip(gold, acceptable, pred, strict=True):
        p = set(p)
        ok += len(p & (g | a))
        n += len(p)
    return ok / n if n else 0.0


# -- ranking metrics ------------------------------------------------------------------------------
def precision_at_k(gold: Sequence[set[str]], ranking: Sequence[Sequence[str]], k: int) -> float:
    """Mean over papers of |top-k & G| / k (a ranking shorter than k is not padded: the missing
    places count as wrong). Papers without gold are skipped."""
    vals = [len(set(r[:k]) & g) / k for g, r in zip(gold, ranking, strict=True) if g]
    return sum(vals) / len(vals) if vals else 0.0


def precision_at_k_bound(gold: Sequence[set[str]], k: int) -> float:
    """The best P@k any ranking can reach: mean of min(|G|, k) / k (papers with gold)."""
    vals = [min(len(g), k) / k for g in gold if g]
    return sum(vals) / len(vals) if vals else 0.0


def precision_at_k_full(
    gold: Sequence[set[str]], ranking: Sequence[Sequence[str]], k: int
) -> tuple[float, int]:
    """P@k over the papers with at least k gold topics only (where k right topics exist, so
    the best possible value is 1), and how many papers that is."""
    keep = [i for i, g in enumerate(gold) if len(g) >= k]
    return precision_at_k([gold[i] for i in keep], [ranking[i] for i in keep], k), len(keep)


def shown_precision_at_k(gold: Sequence[set[str]], shown: Sequence[Sequence[str]], k: int) -> float:
    """Mean over papers with at least one shown tag of |top-k & G| / min(k, |shown|): how often
    the first k tags a user sees are right (papers without tags are skipped)."""
    vals = [
        len(set(s[:k]) & g) / min(k, len(s)) for g, s in zip(gold, shown, strict=True) if s and g
    ]
    return sum(vals) / len(vals) if vals else 0.0


def recall_at_k(gold: Sequence[set[str]], ranking: Sequence[Sequence[str]], k: int) -> float:
    """Mean over papers with gold of |top-k & G| / |G|."""
    vals = [len(set(r[:k]) & g) / len(g) for g, r in zip(gold, ranking, strict=True) if g]
    return sum(vals) / len(vals) if vals else 0.0


def candidate_recall(
    gold: Sequence[set[str]], candidates: Sequence[Iterable[str]]
) -> dict[str, float]:
    """Share of gold (paper, topic) pairs found among the candidates: pooled over pairs
    (``micro``) and averaged over papers (``macro``)."""
    found = total = 0
    per_paper = []
    for g, c in zip(gold, candidates, strict=True):
        if not g:
            continue
        hit = len(g & set(c))
        found += hit
        total += len(g)
        per_paper.append(hit / len(g))
    return {
        "micro": found / total if total else 0.0,
        "macro": sum(per_paper) / len(per_paper) if per_paper else 0.0,
        "missed": total - found,
    }


# -- confidence, calibration, hierarchy -----------------------------------------------------------
def coverage(tags: Sequence[Sequence[Pred]], *, min_tags: int = 3) -> float:
    """Share of papers with at least ``min_tags`` confident (not low-confidence) tags, counted at
    all levels (ancestors included, as the tagger's ``min_tags`` rule counts them)."""
    if not tags:
        return 0.0
    ok = sum(1 for t in tags if sum(1 for p in t if not p.low_confidence) >= min_tags)
    return ok / len(tags)


def expected_calibration_error(
    scores: Sequence[float], correct: Sequence[bool], *, bins: int = 15
) -> float:
    """ECE over ``bins`` equal-width bins of [0, 1]: sum over bins of
    (share of items) x |mean score - share correct|."""
    if not scores:
        return 0.0
    groups: dict[int, list[tuple[float, bool]]] = {}
    for s, c in zip(scores, correct, strict=True):
        b = min(int(float(s) * bins), bins - 1)
        groups.setdefault(max(b, 0), []).append((float(s), bool(c)))
    n = len(scores)
    err = 0.0
    for items in groups.values():
        mean_s = sum(s for s, _ in items) / len(items)
        acc = sum(1 for _, c in items if c) / len(items)
        err += len(items) / n * abs(mean_s - acc)
    return err


def reliability(
    scores: Sequence[float],
    correct: Sequence[bool],
    edges: Sequence[float] = (0, 0.3, 0.5, 0.7, 0.9),
) -> list[dict[str, float]]:
    """Accuracy by score band: [{low, high, n, mean_score, accuracy}] (empty bands left out)."""
    bounds = [*edges, 1.0 + 1e-9]
    out = []
    for low, high in zip(bounds[:-1], bounds[1:], strict=True):
        items = [(s, c) for s, c in zip(scores, correct, strict=True) if low <= s < high]
        if items:
            out.append(
                {
                    "low": float(low),
                    "high": float(min(high, 1.0)),
                    "n": len(items),
                    "mean_score": sum(s for s, _ in items) / len(items),
                    "accuracy": sum(1 for _, c in items if c) / len(items),
                }
            )
    return out


def hierarchy_violations(tags: Sequence[Pred], parents: Parents) -> int:
    """Tags whose parent is missing from the tags. (A parent may score below its child: an
    implied ancestor carries its own score, issue 13.)"""
    present = {p.slug for p in tags}
    return sum(
        1 for p in tags if parents.get(p.slug) is not None and parents[p.slug] not in present
    )


def shown_chips(tags: Sequence[Pred], areas: set[str]) -> list[str]:
    """The chips a reader sees, in order: the tags marked shown; for predictions made before
    chips existed (``shown`` None), what pages showed then: every non-area tag in rank order."""
    if any(p.shown is not None for p in tags):
        return [p.slug for p in tags if p.shown]
    return [p.slug for p in tags if p.slug not in areas]


def most_specific(slugs: set[str], parents: Parents) -> set[str]:
    """The slugs that are not an ancestor of another slug of the set."""
    above = {a for s in slugs for a in ancestors(s, parents)}
    return {s for s in slugs if s not in above}


def first_chip_right(gold: Sequence[set[str]], chips: Sequence[Sequence[str]]) -> float:
    """Share of papers with a chip whose first chip is a gold topic (the one the paper would
    be filed under)."""
    rows = [c[0] in g for g, c in zip(gold, chips, strict=True) if c]
    return sum(rows) / len(rows) if rows else 0.0


# -- uncertainty ----------------------------------------------------------------------------------
def bootstrap_ci(
    n: int,
    statistic: Callable[[list[int]], float],
    *,
    reps: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``statistic(indices)`` over papers resampled with replacement."""
    if n == 0:
        return 0.0, 0.0
    rng = random.Random(seed)
    values = sorted(statistic([rng.randrange(n) for _ in range(n)]) for _ in range(reps))
    lo = values[int((1 - level) / 2 * (reps - 1))]
    hi = values[int((1 + level) / 2 * (reps - 1) + 0.5)]
    return lo, hi


def shown_ece_ci(
    shown: Sequence[Sequence[tuple[float, bool]]], *, reps: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Bootstrap CI of the ECE of the shown chips, resampling papers (``shown``: per paper, its
    chips' (confidence, right)). ECE is biased upwards on small resamples: read the interval for
    its width."""

    def stat(idx: list[int]) -> float:
        chips = [c for i in idx for c in shown[i]]
        return expected_calibration_error([s for s, _ in chips], [r for _, r in chips])

    return bootstrap_ci(len(shown), stat, reps=reps, seed=seed)


def micro_f1_ci(
    gold: Sequence[set[str]],
    pred: Sequence[Iterable[str]],
    *,
    reps: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    pred = [set(p) for p in pred]

    def stat(idx: list[int]) -> float:
        return micro_prf([gold[i] for i in idx], [pred[i] for i in idx])["f1"]

    return bootstrap_ci(len(gold), stat, reps=reps, seed=seed)


# -- everything at once ---------------------------------------------------------------------------
def evaluate(
    papers: Sequence[PaperEval],
    parents: Parents,
    *,
    macro_min_support: int = 5,
    table_min_support: int = 3,
    min_tags: int = 3,
    bootstrap_reps: int = 1000,
    seed: int = 0,
) -> dict:
    """All metrics of the harness as one JSON-able dict (see the module docstring)."""
    areas = areas_of(parents)
    gold_all = [p.gold for p in papers]
    acc_all = [p.acceptable for p in papers]
    pred_all = [[t.slug for t in p.tags] for p in papers]
    gold = [set(drop_areas(g, areas)) for g in gold_all]
    acc = [set(drop_areas(a, areas)) for a in acc_all]
    pred = [drop_areas(p, areas) for p in pred_all]
    ranking = [drop_areas(p.ranking, areas) for p in papers]
    cands = [drop_areas(p.candidates, areas) for p in papers]

    def block(g, a, p) -> dict:
        micro = micro_prf(g, p)
        macro, n_macro = macro_f1(g, p, min_support=macro_min_support)
        return {
            **micro,
            "macro_f1": macro,
            "macro_topics": n_macro,
            "example_f1": example_f1(g, p),
            "lenient_precision": lenient_precision(g, a, p),
        }

    non_area = block(gold, acc, pred)
    non_area["micro_f1_ci95"] = list(micro_f1_ci(gold, pred, reps=bootstrap_reps, seed=seed))
    all_levels = block(gold_all, acc_all, pred_all)

    # Calibration of what readers see (the chips' confidence; before chips: every non-area tag's
    # score), of the chips' scores, of every non-area tag (implied ancestors carry their own,
    # lower score) and of all levels.
    scores_na, correct_na, scores_all, correct_all = [], [], [], []
    shown_of: list[list[Pred]] = []  # per paper, its shown chips (the bootstrap resamples papers)
    for p, g in zip(papers, gold_all, strict=True):
        seen = set(shown_chips(p.tags, areas))
        shown_of.append([t for t in p.tags if t.slug in seen])
        for t in p.tags:
            scores_all.append(t.score)
            correct_all.append(t.slug in g)
            if t.slug not in areas:
                scores_na.append(t.score)
                correct_na.append(t.slug in g)
    confidence_right = [
        [(t.shown_confidence, t.slug in g) for t in chips]
        for chips, g in zip(shown_of, gold_all, strict=True)
    ]
    scores = [c for paper in confidence_right for c, _ in paper]
    correct = [r for paper in confidence_right for _, r in paper]
    chip_scores = [t.score for chips in shown_of for t in chips]
    violations = sum(hierarchy_violations(p.tags, parents) for p in papers)
    table = {
        slug: row
        for slug, row in per_topic(gold, pred).items()
        if row["support"] >= table_min_support
    }
    n = len(papers)
    n_tags = [len(p.tags) for p in papers]
    p3 = precision_at_k(gold, ranking, 3)
    p3_bound = precision_at_k_bound(gold, 3)
    p3_full, n_full = precision_at_k_full(gold, ranking, 3)
    n_specific = [len(t) for t in pred]
    chips = [shown_chips(p.tags, areas) for p in papers]
    return {
        "papers": n,
        "non_area": non_area,
        "all_levels": all_levels,
        "p_at_1": precision_at_k(gold, ranking, 1),
        "p_at_3": p3,
        "p_at_5": precision_at_k(gold, ranking, 5),
        "p_at_3_bound": p3_bound,
        "p_at_3_of_bound": p3 / p3_bound if p3_bound else 0.0,
        "p_at_3_ge3_gold": p3_full,
        "papers_ge3_gold": n_full,
        "shown_p_at_3": shown_precision_at_k(gold, pred, 3),
        "first_chip_right": first_chip_right(gold, chips),
        # Right against the labelled topics only, not the ancestors expand() added: a broad
        # parent first is "right" above but is not what the paper would be filed under.
        "first_chip_most_specific": first_chip_right(
            [most_specific(g, parents) for g in gold], chips
        ),
        "first_three_chips_right": shown_precision_at_k(gold, chips, 3),
        "chips_per_paper": sum(len(c) for c in chips) / n if n else 0.0,
        "papers_under_3_chips": sum(1 for c in chips if len(c) < 3) / n if n else 0.0,
        "r_at_5": recall_at_k(gold, ranking, 5),
        "lenient_p_at_3": precision_at_k(
            [g | a for g, a in zip(gold, acc, strict=True)], ranking, 3
        ),
        "candidate_recall_at_50": candidate_recall(gold, cands),
        "coverage": coverage([p.tags for p in papers], min_tags=min_tags),
        "no_tags": sum(1 for p in papers if not p.tags) / n if n else 0.0,
        "ece": expected_calibration_error(scores, correct),
        "ece_ci95": list(shown_ece_ci(confidence_right, reps=bootstrap_reps, seed=seed)),
        "ece_chip_scores": expected_calibration_error(chip_scores, correct),
        "ece_non_area": expected_calibration_error(scores_na, correct_na),
        "ece_all_levels": expected_calibration_error(scores_all, correct_all),
        "reliability": reliability(scores, correct),
        "hierarchy_violations": violations,
        "tags_per_paper": sum(n_tags) / n if n else 0.0,
        "non_area_tags_per_paper": sum(n_specific) / n if n else 0.0,
        "gold_per_paper": sum(len(g) for g in gold) / n if n else 0.0,
        "per_topic": dict(sorted(table.items(), key=lambda kv: (-kv[1]["support"], kv[0]))),
    }
