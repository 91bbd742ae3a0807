"""Scorer parameters, fit_scorer (numpy logistic regression + Platt) and the decision rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from topics.tagger.features import FEATURES
from topics.tagger.scoring import (
    SCORER_PATH,
    ScorerParams,
    expected_calibration_error,
    fit_platt,
    fit_scorer,
    sigmoid,
)
from topics.tagger.selection import Hierarchy, select


def synthetic_pairs(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    true = {"sim_desc": 1.2, "kw_title": 2.0, "cat_miss": -1.5}
    pairs = []
    for i in range(n):
        feats = {
            "sim_desc": rng.normal(1.0, 1.5),
            "kw_title": float(rng.random() < 0.3),
            "cat_miss": float(rng.random() < 0.2),
            "sim_kw": rng.normal(),  # noise feature
        }
        z = -2.0 + sum(w * feats[f] for f, w in true.items())
        pairs.append((feats, int(rng.random() < sigmoid(z)), f"paper-{i // 5}"))
    return pairs, true


def test_shipped_scorer_loads_and_round_trips(tmp_path):
    params = ScorerParams.load()
    assert set(params.weights) <= set(FEATURES)
    assert 0 < params.selection["floor"] <= params.selection["threshold"] < 1
    params.save(tmp_path / "scorer.json")
    again = ScorerParams.load(tmp_path / "scorer.json")
    assert again.to_dict() == params.to_dict()
    assert SCORER_PATH.name == "scorer.json"


def test_unknown_features_are_rejected():
    with pytest.raises(ValueError, match="unknown feature"):
        ScorerParams.from_dict({"features": {"nope": 1.0}})


def test_fit_scorer_recovers_the_signs_and_calibrates():
    pairs, true = synthetic_pairs()
    fitted = fit_scorer(pairs, base=ScorerParams.load(), version="test")
    assert fitted.version == "test"
    for f, w in true.items():
        assert np.sign(fitted.weights[f]) == np.sign(w)
    assert abs(fitted.weights["sim_kw"]) < 0.3
    assert fitted.fit["held_out_calibration"] is True
    assert fitted.fit["ece_calibration"] < 0.05
    assert fitted.selection == ScorerParams.load().selection  # decision settings kept

    # Calibrated probabilities on fresh data from the same process are close to the truth.
    test_pairs, _ = synthetic_pairs(3000, seed=1)
    w = fitted.weight_vector()
    x = np.array([[p[0].get(f, 0.0) for f in FEATURES] for p in test_pairs])
    y = np.array([p[1] for p in test_pairs])
    a, c = fitted.platt
    prob = sigmoid(a * (x @ w + fitted.bias) + c)
    assert expected_calibration_error(prob, y) < 0.05


def test_fit_scorer_needs_both_classes():
    with pytest.raises(ValueError, match="both positive and negative"):
        fit_scorer([({"sim_desc": 1.0}, 1)] * 10)
    with pytest.raises(ValueError, match="no pairs"):
        fit_scorer([])


def test_platt_scaling_fixes_an_overconfident_score():
    rng = np.random.default_rng(0)
    z = rng.normal(0, 3, 5000)
    y = (rng.random(5000) < sigmoid(z / 3)).astype(float)  # true slope 1/3
    a, c = fit_platt(z, y)
    assert 0.25 < a < 0.42
    assert abs(c) < 0.15


def random_tree(n, rng):
    parent = [-1]
    for j in range(1, n):
        parent.append(int(rng.integers(-1, j)) if rng.random() < 0.9 else -1)
    parent = np.array(parent)
    depth = np.zeros(n, dtype=int)
    for j in range(n):
        if parent[j] >= 0:
            depth[j] = depth[parent[j]] + 1
    return Hierarchy(parent, depth)


def test_coherence_never_leaves_a_parent_below_a_child():
    rng = np.random.default_rng(0)
    h = random_tree(60, rng)
    scores = rng.random((20, 60)).astype(np.float32)
    coh = h.coherent(scores)
    assert np.all(coh >= scores)
    for j, p in enumerate(h.parent):
        if p >= 0:
            assert np.all(coh[:, p] >= coh[:, j])


def test_selection_rules():
    rng = np.random.default_rng(1)
    h = random_tree(80, rng)
    settings = {"threshold": 0.5, "floor": 0.2, "min_tags": 3, "max_specific": 7, "max_tags": 12}
    for _ in range(200):
        scores = h.coherent((rng.random(80) ** 4).astype(np.float32)[None, :])[0]
        chosen = select(scores, h, settings)
        slugs = {s.topic for s in chosen}
        assert len(slugs) == len(chosen) <= settings["max_tags"]
        leaves = [j for j in slugs if not any(c in slugs for c in h.children[j])]
        assert len(leaves) <= settings["max_specific"]
        for s in chosen:
            assert all(a in slugs for a in h.ancestors(s.topic))  # ancestors included
            assert s.score >= settings["floor"]
            assert s.low_confidence == (s.score < settings["threshold"])
        assert [s.score for s in chosen] == sorted((s.score for s in chosen), reverse=True)
        confident = [j for j in range(80) if scores[j] >= settings["threshold"]]
        if len(chosen) < settings["min_tags"]:  # fewer only when nothing else is above the floor
            assert all(scores[j] < settings["floor"] for j in range(80) if j not in slugs)
        elif len(confident) <= settings["max_tags"] and len(leaves) < settings["max_specific"]:
            assert set(confident) <= slugs


def test_the_fallback_scorer_round_trips_and_serves_taggers_without_labelled_papers(tmp_path):
    from dataclasses import replace

    from topics.tagger import Tagger, TopicSpec
    from topics.tagger.embedding import HashingEmbedder

    main = ScorerParams.load()
    assert main.fallback is not None  # fit-2 and later ship one (fitted without kNN)
    assert main.fallback.candidates == main.candidates  # shared, stored once
    path = tmp_path / "scorer.json"
    main.save(path)
    again = ScorerParams.load(path)
    assert again.to_dict() == main.to_dict()
    assert again.fallback.weights == main.fallback.weights
    assert main.active(True) is main
    assert main.active(False) is main.fallback
    assert replace(main, fallback=None).active(False).version == main.version

    topics = [TopicSpec("rl", "Reinforcement Learning", keywords=("reinforcement learning",))]
    tagger = Tagger(topics, HashingEmbedder(32), params=main)  # another taxonomy: no memory
    assert tagger.neighbour_memory() is None
    assert tagger._active() is main.fallback
    tagger.set_neighbours([({"id": "x", "title": "RL", "abstract": "reinforcement"}, ["rl"])])
    assert tagger._active() is main


def test_choose_takes_the_preferred_threshold_then_the_best_figure_within_noise():
    from topics.tagger.training.crossval import choose

    grid = [
        {"threshold": 0.5, "floor": 0.25, "micro_f1": 0.650},  # within the tolerance
        {"threshold": 0.5, "floor": 0.30, "micro_f1": 0.652},
        {"threshold": 0.5, "floor": 0.20, "micro_f1": 0.640},  # worse beyond noise
        {"threshold": 0.3, "floor": 0.10, "micro_f1": 0.654},  # far from the preferred 0.5
    ]
    assert choose(grid) == grid[1]  # not the lower floor: a fill-up tag is rarely a chip now
    grid[0]["micro_f1"] = 0.652
    assert choose(grid) == grid[1]  # a tie: the higher floor (fewer weak tags on pages)
    grid[3]["micro_f1"] = 0.660  # the others are now beyond noise of the best
    assert choose(grid) == grid[3]


def test_a_scorer_with_trees_saves_them_beside_it_and_scores_by_them(tmp_path):
    from dataclasses import replace

    from sklearn.ensemble import HistGradientBoostingClassifier

    from topics.tagger import Tagger, load_taxonomy_files
    from topics.tagger.engine import PaperInput
    from topics.tagger.features import compute_features
    from topics.tagger.trees import BoostedTrees

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2000, len(FEATURES)))
    name, desc = FEATURES.index("kw_name"), FEATURES.index("sim_desc")
    y = (x[:, name] * x[:, desc] > 0).astype(int)  # an interaction no weight vector can show
    model = HistGradientBoostingClassifier(max_iter=40, random_state=0).fit(x, y)
    trees = BoostedTrees.from_sklearn(model, FEATURES, {"made": "in a test"})
    # (no fallback: a tagger without labelled papers would score with it instead)
    params = replace(ScorerParams.load(), version="trees-test", trees=trees, fallback=None)
    params.save(tmp_path / "scorer.json")
    assert json.loads((tmp_path / "scorer.json").read_text())["trees"] == "scorer_trees.npz"
    loaded = ScorerParams.load(tmp_path / "scorer.json")
    assert loaded.trees is not None
    assert np.allclose(loaded.trees.raw(x[:50]), model.decision_function(x[:50]), atol=1e-9)

    # the tagger's raw score of each candidate is the trees' sum over its features
    tagger = Tagger(load_taxonomy_files("topics/taxonomy").topics, neighbours=(), params=loaded)
    paper = PaperInput("t1", "Graph neural networks for molecules", "Message passing on atoms.")
    slugs = tagger.candidate_slugs([paper])[0]
    feats = tagger.pair_features([paper], [slugs])[0]
    rows = np.array([[feats[s][f] for f in FEATURES] for s in slugs])
    feats_batch = compute_features(tagger._encode([paper]), tagger.index, loaded.candidates)
    raw = tagger._score(feats_batch, raw=True)[0]
    columns = [tagger.index.pos[s] for s in slugs]
    assert np.allclose(raw[columns], loaded.trees.raw(rows), atol=1e-4)
    assert np.isneginf(np.delete(raw, columns)).all()  # non-candidates are not scored

    # a scorer without trees saved to the same place leaves no stale trees; a scorer whose
    # trees are missing is refused
    ScorerParams.load().save(tmp_path / "scorer.json")
    assert not (tmp_path / "scorer_trees.npz").exists()
    data = json.loads((tmp_path / "scorer.json").read_text())
    (tmp_path / "scorer.json").write_text(json.dumps({**data, "trees": "scorer_trees.npz"}))
    with pytest.raises(ValueError, match="trees"):
        ScorerParams.load(tmp_path / "scorer.json")
