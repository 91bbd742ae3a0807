"""manage.py evaluate_tagger and fit_tagger on a few papers (no database, no ../shared)."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from topics.tagger import PaperInput, ScorerParams

METRICS = [
    "micro-F1",
    "micro-precision",
    "micro-recall",
    "macro-F1",
    "example-based F1",
    "P@1",
    "P@3",
    "R@5",
    "lenient precision",
    "candidate recall@50",
    "coverage",
    "ECE",
    "first shown chip right",
    "first three shown chips right",
    "hierarchy violations",
    "throughput",
]


def value_of(output: str, name: str) -> float:
    line = next(x.strip() for x in output.splitlines() if x.strip().startswith(name))
    return float(re.search(r"-?\d+(?:\.\d+)?", line[len(name) :]).group(0))


def test_evaluate_tagger_prints_every_metric_with_targets(tmp_path):
    out = StringIO()
    report = tmp_path / "metrics.json"
    call_command(
        "evaluate_tagger", "--limit", "12", "--bootstrap", "50", "--per-topic",
        "--json", str(report), stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "set: gold (12 papers" in text
    for name in METRICS:
        assert name in text, name
    for target in (
        ">= 0.72",
        ">= 0.70",
        ">= 0.90",
        ">= 0.85",
        ">= 0.80",
        ">= 0.95",
        "<= 0.08",
        ">= 500/s",
    ):
        assert target in text
    for name in ("micro-F1", "P@1", "P@3", "R@5", "candidate recall@50", "ECE"):
        assert 0.0 <= value_of(text, name) <= 1.0, name
    assert value_of(text, "hierarchy violations (all levels)") == 0
    assert "per topic (gold support >= 3, non-area)" in text

    data = json.loads(report.read_text())
    assert data["papers"] == 12
    assert data["hierarchy_violations"] == 0
    na = data["non_area"]
    assert 0.0 <= na["precision"] <= 1.0
    assert 0.0 <= na["recall"] <= 1.0
    lo, hi = na["micro_f1_ci95"]
    assert 0.0 <= lo <= na["f1"] + 1e-9
    assert na["f1"] - 1e-9 <= hi <= 1.0
    assert 0.0 <= data["candidate_recall_at_50"]["micro"] <= 1.0
    assert 0.0 <= data["coverage"] <= 1.0
    assert data["p_at_3"] <= data["p_at_3_bound"] + 1e-9
    assert 0.0 <= data["p_at_3_ge3_gold"] <= 1.0
    assert 0 <= data["papers_ge3_gold"] <= 12
    assert abs(data["p_at_3_of_bound"] - data["p_at_3"] / data["p_at_3_bound"]) < 1e-9
    assert "P@3, papers with >= 3 gold topics" in text
    assert len(data["per_paper"]) == 12
    assert data["tagger"]["model_version"].startswith(ScorerParams.load().version)


def test_evaluate_tagger_train_set_and_alternative_scorer(tmp_path):
    out = StringIO()
    scorer = tmp_path / "scorer.json"
    params = ScorerParams.load()
    params.save(scorer)
    call_command(
        "evaluate_tagger", "--set", "train", "--limit", "5", "--bootstrap", "20",
        "--scorer", str(scorer), stdout=out,
    )  # fmt: skip
    assert "set: train (5 papers" in out.getvalue()
    with pytest.raises(CommandError, match="no such file"):
        call_command("evaluate_tagger", "--scorer", str(tmp_path / "missing.json"))


def test_fit_tagger_writes_a_scorer_from_training_papers(tmp_path):
    out = StringIO()
    target = tmp_path / "scorer.json"
    call_command(
        "fit_tagger", "--limit", "90", "--folds", "2", "--name", "fit-test", "--weak",
        "--out", str(target), stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "training set: 90 labelled papers" in text
    fitted = ScorerParams.load(target)
    assert fitted.version == "fit-test"
    sel = fitted.selection
    assert 0 < sel["floor"] <= sel["threshold"] < 1
    assert fitted.fit["data"]["set"] == "train"
    assert fitted.fit["cv"]["micro_f1"] >= 0.0
    assert fitted.platt[0] > 0  # higher raw score -> higher probability
    assert 0.0 <= fitted.fit["cv"]["p_at_3"] <= fitted.fit["cv"]["p_at_3_bound"] + 1e-9
    # the labelled papers the kNN reads are written next to the scorer, deterministically
    from topics.tagger.engine import load_labelled_papers

    labelled = tmp_path / "labelled_papers.jsonl.gz"
    rows = load_labelled_papers(labelled)
    assert 0 < len(rows) <= 90
    assert fitted.fit["labelled_papers"]["papers"] == len(rows)
    assert all(r["vec"] and r["embedding"] for r, _ in rows)  # vectors cached for start-up
    # and the supervised heads fitted on the same papers, which a tagger reading them uses
    from topics.tagger.heads import TopicHeads

    heads = TopicHeads.load(tmp_path / "heads.npz")
    assert heads is not None
    assert heads.slugs
    assert "heads:" in text
    assert fitted.weights["head"] != 0  # the scorer learnt what a head's decision is worth
    # the heads also learnt from the shipped weak labels (as many as the limit), on record
    assert fitted.fit["weak"]["papers"] == 90
    assert fitted.fit["weak"]["files"] == ["weak/01-title-names-jan-may-2025.jsonl.gz"]
    assert "and 90 weakly labelled" in text
    assert fitted.fit["command"].endswith(" --weak")
    # and the chip-order model on the fitted tagger's chips, with its out-of-fold figures
    from topics.tagger.chip_order import ChipOrder

    order = ChipOrder.load(tmp_path / "chip_order.npz")
    assert order is not None
    assert order.info["scorer"] == "fit-test"
    assert fitted.fit["chip_order"] == order.info["cv"]
    assert 0 < order.info["cv"]["model_order"]["first_chip_right"] <= 1
    assert "chip order:" in text


def test_fit_tagger_with_a_context_weight_fits_the_refined_stage(tmp_path):
    import numpy as np

    from topics.tagger.chip_order import ChipOrder
    from topics.tagger.contextual import ContextualEmbedder, load_context_vectors, model_file
    from topics.tagger.heads import TopicHeads

    out = StringIO()
    target = tmp_path / "scorer.json"
    call_command(
        "fit_tagger", "--limit", "60", "--folds", "2", "--name", "fit-test-r",
        "--context-weight", "0.7", "--trees", "--out", str(target), stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert f"contextual vectors ({model_file()[2]}) of 60 papers" in text
    fitted = ScorerParams.load(target)
    assert fitted.embedding["context_weight"] == 0.7
    assert fitted.fit["command"].endswith(" --context-weight 0.7 --top-k-context 10 --trees")
    # the pairs are scored by boosted trees, saved next to the scorer that names them
    assert fitted.trees is not None
    assert (tmp_path / "scorer_trees.npz").is_file()
    assert fitted.fit["trees"]["file"] == "scorer_trees.npz"
    assert len(fitted.trees.tree_start) == fitted.fit["trees"]["boosting"]["max_iter"]
    assert fitted.fit["method"].startswith("boosted trees")
    assert fitted.candidates["top_k_context"] == 10
    # the contextual topic similarities are fitted features of the refined scorer
    assert all(fitted.weights[f] != 0 for f in ("ctx_desc", "ctx_kw", "ctx_gap"))
    # the topics' texts through the encoder, saved so that a tagger does not encode them again
    topic_vectors = load_context_vectors(tmp_path / "topic_context.npz", ContextualEmbedder())
    assert len(topic_vectors) >= 2 * 900
    # the labelled papers' contextual vectors instead of the papers (the fast stage's file)
    assert not (tmp_path / "labelled_papers.jsonl.gz").exists()
    vectors = load_context_vectors(tmp_path / "labelled_context.npz", ContextualEmbedder())
    assert 0 < len(vectors) <= 60
    assert all(np.isclose(np.linalg.norm(v), 1.0, atol=1e-2) for v in vectors.values())
    # heads over the joined vectors (static 256 + contextual 384), and a chip order
    heads = TopicHeads.load(tmp_path / "heads.npz")
    assert heads is not None
    assert heads._w_vec.shape[0] == 256 + 384
    order = ChipOrder.load(tmp_path / "chip_order.npz")
    assert order is not None
    # with the judges' verdict counts it was fitted with, as the tagger reads them
    assert order.info["judged"]
    assert all(sum(v) > 0 for v in order.info["judged"].values())
    with pytest.raises(CommandError, match="context-weight"):
        call_command(
            "fit_tagger", "--limit", "10", "--context-weight", "1", "--dry-run",
            stdout=StringIO(),
        )  # fmt: skip


def test_a_fit_without_labelled_papers_leaves_no_stale_heads_next_to_its_scorer(tmp_path):
    stale = tmp_path / "heads.npz"
    stale.write_bytes(b"heads of other labels")
    stale_order = tmp_path / "chip_order.npz"
    stale_order.write_bytes(b"chip order of other chips")
    call_command(
        "fit_tagger", "--limit", "30", "--folds", "2", "--knn-k", "0",
        "--out", str(tmp_path / "scorer.json"), stdout=StringIO(),
    )  # fmt: skip
    assert ScorerParams.load(tmp_path / "scorer.json").weights["head"] == 0
    assert ScorerParams.load(tmp_path / "scorer.json").fit["weak"]["papers"] == 0  # opt-in
    assert not stale.exists()
    assert not stale_order.exists()


def test_labelled_papers_file_is_deterministic_and_its_cached_vectors_fit(tmp_path):
    import numpy as np

    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import Tagger, load_taxonomy_files
    from topics.tagger.engine import load_labelled_papers
    from topics.tagger.training.pipeline import write_labelled

    tagger = Tagger(load_taxonomy_files(TAXONOMY_DIR).topics, neighbours=())
    papers = [PaperInput.coerce(p) for p in _train_papers(6)]
    labelled = [(p, ["graph-neural-networks"]) for p in papers]
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    write_labelled(first, labelled, tagger)
    write_labelled(second, labelled, tagger)
    assert first.read_bytes() == second.read_bytes()
    rows = load_labelled_papers(first)
    assert tagger.set_neighbours(rows) == 6  # from the cached vectors
    cached = tagger.neighbour_memory().vecs
    assert tagger.set_neighbours(labelled) == 6  # embedded afresh
    assert np.allclose(cached, tagger.neighbour_memory().vecs, atol=2e-3)
    stale = [({**r, "embedding": "other"}, t) for r, t in rows]  # another pipeline: re-embed
    assert tagger.set_neighbours(stale) == 6
    assert np.allclose(cached, tagger.neighbour_memory().vecs, atol=2e-3)


def test_labelled_papers_cache_the_topics_they_name_for_the_same_phrase_index(
    tmp_path, monkeypatch
):
    import numpy as np

    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import Tagger, load_taxonomy_files, neighbours
    from topics.tagger.engine import load_labelled_papers
    from topics.tagger.training.pipeline import write_labelled

    tagger = Tagger(load_taxonomy_files(TAXONOMY_DIR).topics, neighbours=())
    labelled = [(PaperInput.coerce(p), ["graph-neural-networks"]) for p in _train_papers(6)]
    path = tmp_path / "labelled.jsonl.gz"
    write_labelled(path, labelled, tagger)
    rows = load_labelled_papers(path)
    assert all(r["phrases"] == tagger.matcher.fingerprint for r, _ in rows)
    tagger.set_neighbours(labelled)  # matched afresh
    fresh = tagger.neighbour_memory().named.copy()
    matched = []
    original = neighbours.phrase_topics
    monkeypatch.setattr(
        neighbours, "phrase_topics", lambda t, ps: matched.extend(ps) or original(t, ps)
    )
    tagger.set_neighbours(rows)  # from the cache: nothing matched
    assert not matched
    assert np.array_equal(tagger.neighbour_memory().named, fresh)
    tagger.set_neighbours([({**r, "phrases": "old"}, t) for r, t in rows])  # another index
    assert len(matched) == 6


def _train_papers(n: int) -> list[dict]:
    from topics.evaluation import load_set

    return load_set("train").papers[:n]


def test_precision_at_k_full_counts_only_papers_with_k_gold_topics():
    from topics.evaluation.metrics import precision_at_k_full

    gold = [{"a", "b", "c"}, {"a"}, {"a", "b", "c", "d"}]
    ranking = [["a", "x", "b"], ["a", "y", "z"], ["d", "c", "b"]]
    value, n = precision_at_k_full(gold, ranking, 3)
    assert n == 2
    assert value == pytest.approx((2 / 3 + 1) / 2)


@pytest.fixture(scope="module")
def tagger():
    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import Tagger, load_taxonomy_files

    return Tagger(load_taxonomy_files(TAXONOMY_DIR).topics)


def test_fitting_hooks_agree_with_tagging(tagger):
    """coherent_scores + select == tag_batch; candidate_slugs are the scored pairs; set_params."""
    from dataclasses import replace

    import numpy as np

    from topics.evaluation import load_set
    from topics.tagger.scoring import sigmoid
    from topics.tagger.training.crossval import decide

    papers = load_set("train").papers[:6] + [{"id": "empty", "title": ""}]
    tags = tagger.tag_batch(papers)
    scores = tagger.coherent_scores(papers)
    raw = tagger.coherent_scores(papers, raw=True)
    a, c = tagger.params.platt
    live = np.isfinite(raw)
    assert np.allclose(scores[live], sigmoid(a * raw[live] + c), atol=1e-5)
    assert not scores[~live].any()
    for i, paper_tags in enumerate(tags):
        decided = decide(tagger, scores[i], tagger.params.selection)
        assert sorted(s for s, _, _ in decided) == sorted(t.slug for t in paper_tags)
    cands = tagger.candidate_slugs(papers)
    assert cands[-1] == []
    for i, slugs in enumerate(cands[:-1]):
        own = {tagger.topics[j].slug for j in np.flatnonzero(live[i])}
        assert set(slugs) <= own  # coherence may lift ancestors that are not candidates
        assert {t.slug for t in tags[i]} <= own

    original = tagger.params
    try:
        strict = replace(
            original, selection={**original.selection, "threshold": 0.99, "floor": 0.99}
        )
        tagger.set_params(strict)
        # Only chips (and what they imply) scoring >= 0.99 are selected; an implied
        # ancestor carries its own score, so it may be lower.
        tagged = tagger.tag_batch(papers)
        assert all(t.score >= 0.99 for ts in tagged for t in ts if not t.implied)
        with pytest.raises(ValueError, match="embedding/rocchio"):
            tagger.set_params(replace(original, embedding={"title_weight": 0.9}))
    finally:
        tagger.set_params(original)
    assert [t.slug for t in tagger.tag(papers[0])] == [t.slug for t in tags[0]]


def test_a_chip_order_fitted_without_a_feature_never_reads_it(tagger):
    """fit_chip_order(without=...): what a feature adds is measured by the same fit with the
    feature held at 0; the model keeps every column (it loads as any other) and no tree
    splits on the one held back, while the full fit does use it."""
    import numpy as np

    from topics.evaluation import load_set
    from topics.tagger import PaperInput
    from topics.tagger.chip_order import CHIP_FEATURES
    from topics.tagger.training.chip_order import fit_chip_order

    train = load_set("train")
    train.papers = train.papers[:80]
    gold, _, _ = train.gold({t.slug: t.parent for t in tagger.topics})
    papers = [PaperInput.coerce(p) for p in train.papers]
    verdicts = [(sorted(g), [], []) for g in gold]
    score = CHIP_FEATURES.index("score")
    full = fit_chip_order(tagger, papers, gold, verdicts=verdicts, folds=2)
    held = fit_chip_order(tagger, papers, gold, verdicts=verdicts, folds=2, without=["score"])
    assert full is not None
    assert held is not None
    assert held.features == full.features == CHIP_FEATURES
    assert held.info["without"] == ["score"]
    assert "without" not in full.info
    assert score in set(full.feature.tolist())
    assert score not in set(held.feature.tolist())
    assert np.all(np.isfinite(held.predict(np.zeros((2, len(CHIP_FEATURES))))))


def test_evaluate_tagger_papers_keeps_one_batch_of_the_set(tmp_path):
    """``--papers FILE``: only the set's papers that FILE lists (a gold batch on its own)."""
    batch = tmp_path / "batch.jsonl"
    ids = ["2505.19719", "2505.10665", "not-a-gold-paper"]  # gold batch b, gold batch a, neither
    batch.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids), encoding="utf-8")
    report = tmp_path / "metrics.json"
    call_command(
        "evaluate_tagger", "--papers", str(batch), "--bootstrap", "20",
        "--json", str(report), stdout=StringIO(),
    )  # fmt: skip
    data = json.loads(report.read_text())
    assert sorted(p["id"] for p in data["per_paper"]) == ["2505.10665", "2505.19719"]
    with pytest.raises(CommandError, match="no such file"):
        call_command("evaluate_tagger", "--papers", str(tmp_path / "missing.jsonl"))
