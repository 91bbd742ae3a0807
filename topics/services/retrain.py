"""The scheduled retrain (issue 4, item 3): refit and recalibrate the scorer from people's
judgements plus the labelled training set, and refresh the arXiv-category priors.

Both go to the data folder (``settings.DATA_DIR / "tagger"``: ``scorer.json``, ``priors.json``),
never into the repository; ``tagger_get`` notices the new files and rebuilds its tagger.

- Pairs: every judged (paper, topic) with a net verdict (confirm/add = 1, reject = 0; a topic a
  person *added* weighs double: the tagger had missed it), the newest 20,000 judgements; plus
  the training set's pairs exactly as ``manage.py fit_tagger`` builds them (every candidate topic
  of every labelled training paper). Tags nobody judged are not negatives.
- Features come from a tagger *without* the feedback memory and priors, so a judged paper is not
  its own nearest example (the example, rejection and prior weights are kept from the shipped
  scorer, which ``fit_scorer`` does for signals the data cannot show).
- ``fit_scorer``: logistic weights on ~70% of the papers, Platt calibration on the rest; the
  decision thresholds stay those of the shipped scorer (tuned by ``fit_tagger``).
- Papers of the gold (evaluation) set never enter, even when someone judged them.
- A stored scorer is used only while the shipped scorer it was fitted from is still the shipped
  one: shipping a new ``topics/tagger/model/scorer.json`` makes the next retrain start over.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from papers.models import Paper
from topics.evaluation import load_set
from topics.models import PaperTopic, TagFeedback, Topic
from topics.runtime import (
    TAGGER_PRIORS_FILE,
    TAGGER_SCORER_FILE,
    paper_input_from,
    scorer_params_stored,
    shipped_scorer_params,
    tagger_data_dir,
    topic_specs_active,
)
from topics.selectors import feedback_verdicts
from topics.tagger.engine import PaperInput
from topics.tagger.training import build_pairs, check_training_papers

logger = logging.getLogger(__name__)

RETRAIN_MIN_NEW = 50  # new judgements since the last retrain before the schedule refits
FEEDBACK_PAIRS_LIMIT = 20_000  # newest judgements used
ADDED_WEIGHT = 2.0  # a topic a person added (missed by the tagger) counts double
PRIORS_MIN_PAPERS = 30
PRIORS_CONFIRMED_LIMIT = 20_000  # newest papers with confirmed or curated tags
HEADS_FOLDS = 5  # the shipped fit's folds: each training paper scored by heads not trained on it


@dataclass
class RetrainResult:
    retrained: bool = False
    reason: str = ""
    new_judgements: int = 0
    feedback_pairs: int = 0
    training_pairs: int = 0
    version: str = ""
    fit: dict = field(default_factory=dict)
    priors_papers: int = 0

    def summary(self) -> str:
        if not self.retrained:
            return f"tagger not retrained: {self.reason}"
        return (
            f"tagger retrained: scorer {self.version} from {self.feedback_pairs} judged pairs "
            f"({self.new_judgements} new judgements) and {self.training_pairs} training pairs, "
            f"calibration ECE {self.fit.get('ece_calibration')}; priors from "
            f"{self.priors_papers} papers"
        )


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON next to its final name and rename it into place (readers never see half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- the retrain ---------------------------------------------------------------------------------
def _gold_ids() -> set[str]:
    try:
        from topics.evaluation import load_set

        return {str(p["id"]) for p in load_set("gold").papers}
    except Exception:  # no evaluation files in this install: nothing to keep out
        logger.info("no gold set found; no papers kept out of the retrain")
        return set()


def _paper_inputs(papers):
    return [paper_input_from(p) for p in papers]


def _parents_expand(slugs, parents: dict[str, str | None]) -> set[str]:
    out = set()
    for slug in slugs:
        node, hops = slug, 0
        while node and node not in out and hops < 64:
            out.add(node)
            node, hops = parents.get(node), hops + 1
    return out


def _feedback_pairs(tagger, gold_ids: set[str], slug_of: dict[int, str]) -> tuple[list, dict]:
    verdicts = feedback_verdicts(limit=FEEDBACK_PAIRS_LIMIT)
    by_paper: dict[int, list[tuple[str, bool, bool]]] = {}
    for (paper_id, topic_id), v in verdicts.items():
        if topic_id in slug_of:
            by_paper.setdefault(paper_id, []).append((slug_of[topic_id], v.confirm, v.added))
    fields = ("id", "arxiv_id", "title", "abstract", "categories", "authors")
    found = Paper.objects.only(*fields).in_bulk(list(by_paper))
    papers = [p for p in found.values() if p.arxiv_id not in gold_ids]
    if not papers:
        return [], {"papers": 0}
    wanted = [[slug for slug, _, _ in by_paper[p.id]] for p in papers]
    feats = tagger.pair_features(_paper_inputs(papers), wanted)
    pairs = []
    for paper, row in zip(papers, feats, strict=True):
        for slug, confirm, added in by_paper[paper.id]:
            if slug in row:
                weight = ADDED_WEIGHT if added else 1.0
                pairs.append((row[slug], 1 if confirm else 0, paper.arxiv_id, weight))
    used = {p.id for p in papers}
    info = {
        "papers": len(papers),
        "pairs": len(pairs),
        "positives": sum(1 for p in pairs if p[1]),
        "kept_out_gold": sum(1 for p in by_paper if p not in used),
    }
    return pairs, info


def _training_set(parents: dict[str, str | None], gold_ids: set[str]):
    """The labelled training papers with gold slugs (as fit_tagger reads them), or None."""
    try:
        train = load_set("train")
        check_training_papers(train.papers, gold_ids)
    except (OSError, ValueError):  # no label files (a slim install), or a rule broken
        logger.warning("training set unavailable; retraining from feedback only", exc_info=True)
        return None
    gold, acceptable, _unknown = train.gold(parents)
    return train, gold, acceptable


def _training_pairs(tagger, training, mode: str) -> tuple[list, dict]:
    train, gold, acceptable = training
    papers = [PaperInput.coerce(p) for p in train.papers]
    view = tagger.heads_view()
    if view is not None:  # the shipped heads saw these papers: score each one out of fold
        from topics.tagger.training.pipeline import heads_out_of_fold

        pos = {t.slug: j for j, t in enumerate(tagger.topics)}
        y = np.zeros((len(papers), len(pos)), dtype=bool)
        for i, g in enumerate(gold):
            y[i, [pos[s] for s in g if s in pos]] = True
        # Without the weak labels the shipped heads also learnt from: the folds' heads would
        # take the nightly job from minutes to most of an hour; their held-out values are a
        # little weaker than the shipped heads', so the head feature is weighed conservatively.
        heads_out_of_fold(tagger, papers, y, HEADS_FOLDS, heads=view.heads)
    pairs = build_pairs(tagger, papers, gold, acceptable, mode)
    info = {
        "papers": len(papers),
        "pairs": len(pairs),
        "label_files": train.label_files,
        "acceptable": mode,
    }
    return pairs, info


def _fit_settings(base) -> tuple[str, float]:
    """The acceptable-pair handling and L2 strength fit_tagger chose for the shipped scorer."""
    data = base.fit.get("data") if isinstance(base.fit.get("data"), dict) else {}
    mode = str(data.get("acceptable", "exclude"))
    if mode not in ("exclude", "negative", "half"):
        mode = "exclude"
    try:
        l2 = float(base.fit.get("l2", 1.0))
    except (TypeError, ValueError):
        l2 = 1.0
    return mode, l2 if l2 > 0 else 1.0


def tagger_retrain(
    *, force: bool = False, min_new: int | None = None, training_set: bool = True
) -> RetrainResult:
    """Refit the scorer and the priors when at least ``min_new`` judgements arrived since the
    last retrain (or when forced). Returns what it did; never raises for too little data."""
    from topics.tagger import Priors, fit_scorer
    from topics.tagger.engine import Tagger

    if min_new is None:
        min_new = int(getattr(settings, "TAGGER_RETRAIN_MIN_NEW", RETRAIN_MIN_NEW))
    result = RetrainResult()
    base = shipped_scorer_params()
    stored = scorer_params_stored()
    last_id = int(stored.fit.get("feedback", {}).get("max_id", 0)) if stored else 0
    latest_id = TagFeedback.objects.order_by("-id").values_list("id", flat=True).first() or 0
    result.new_judgements = TagFeedback.objects.filter(id__gt=last_id).count()
    if not force and result.new_judgements < min_new:
        result.reason = f"{result.new_judgements} new judgements, fewer than {min_new}"
        return result

    specs = topic_specs_active()
    if not specs:
        result.reason = "no active topics"
        return result
    parents = {s.slug: s.parent for s in specs}
    slug_of = dict(Topic.objects.filter(active=True).values_list("id", "slug"))
    gold_ids = _gold_ids()
    tagger = Tagger(specs, params=base)  # no feedback memory, no priors: no label leakage
    fb_pairs, fb_info = _feedback_pairs(tagger, gold_ids, slug_of)
    training = _training_set(parents, gold_ids) if training_set else None
    mode, l2 = _fit_settings(base)
    tr_pairs, tr_info = _training_pairs(tagger, training, mode) if training else ([], {})
    result.feedback_pairs, result.training_pairs = len(fb_pairs), len(tr_pairs)

    now = datetime.now(UTC)
    version = f"{base.version[:16]}+rt{now:%Y%m%d%H%M}"
    try:
        fitted = fit_scorer(fb_pairs + tr_pairs, base=base, l2=l2, version=version)
    except ValueError as exc:
        result.reason = f"cannot fit: {exc}"
        return result
    fit_info = {
        **fitted.fit,
        "method": "scheduled retrain (topics.services.retrain): logistic + Platt",
        "base_version": base.version,
        "trained_at": now.isoformat(timespec="seconds"),
        "feedback": {**fb_info, "max_id": latest_id},
        "training_set": tr_info,
    }
    fitted = replace(fitted, fit=fit_info)
    folder = tagger_data_dir()
    result.priors_papers = _priors_refresh(folder, parents, slug_of, gold_ids, training, Priors)
    write_json_atomic(folder / TAGGER_SCORER_FILE, fitted.to_dict())
    result.retrained, result.version, result.fit = True, fitted.version, fit_info
    logger.info(result.summary())
    return result


def _priors_refresh(folder: Path, parents, slug_of, gold_ids, training, priors_cls) -> int:
    """Category priors from confirmed tags (user and curated tags and confirmed judgements,
    ancestors included) and the training labels; written only with enough papers."""
    items: list[tuple[list[str], set[str]]] = []
    if training:
        train, gold, _ = training
        for paper, slugs in zip(train.papers, gold, strict=True):
            cats = paper.get("categories") or []
            if isinstance(cats, str):
                cats = cats.split()
            if slugs and cats:
                items.append((list(cats), set(slugs)))
    confirmed: dict[int, set[str]] = {}
    rows = (
        PaperTopic.objects.exclude(source=PaperTopic.Source.MODEL)
        .filter(topic__active=True)
        .order_by("-id")
        .values_list("paper_id", "topic__slug")[:PRIORS_CONFIRMED_LIMIT]
    )
    for paper_id, slug in rows:
        confirmed.setdefault(paper_id, set()).add(slug)
    for (paper_id, topic_id), verdict in feedback_verdicts(limit=PRIORS_CONFIRMED_LIMIT).items():
        if verdict.confirm and topic_id in slug_of:
            confirmed.setdefault(paper_id, set()).add(slug_of[topic_id])
    papers = Paper.objects.filter(id__in=list(confirmed)).only(
        "id", "arxiv_id", "primary_category", "categories"
    )
    for paper in papers:
        if paper.arxiv_id in gold_ids:
            continue
        cats = paper.category_list
        if paper.primary_category:
            cats = [paper.primary_category] + [c for c in cats if c != paper.primary_category]
        if cats:
            items.append((cats, _parents_expand(confirmed[paper.id], parents)))
    if len(items) < PRIORS_MIN_PAPERS:
        logger.info("priors not refreshed: %d papers with confirmed tags", len(items))
        return 0
    lift = priors_cls.estimate(items).lift
    compact = {
        cat: {slug: round(v, 3) for slug, v in row.items() if abs(v) >= 0.05}
        for cat, row in lift.items()
    }
    write_json_atomic(
        folder / TAGGER_PRIORS_FILE,
        {
            "estimated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "papers": len(items),
            "lift": compact,
        },
    )
    return len(items)
