"""Phrase evidence as scorer features: exact and loose kinds apart, and the two interaction
features that keep keywords or kNN from deciding alone (issue 13, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from topics.tagger.features import FEATURES
from topics.tagger.keywords import Hit
from topics.tagger.phrase_features import (
    AREA_GAP_SCALE,
    LOOSE_ABSTRACT_FACTOR,
    combined_features,
    phrase_features,
)
from topics.tagger.scoring import ScorerParams


def hit(where="title", match="exact", kind="keyword", quality=1.0, specificity=1.0, count=1):
    return Hit("p", kind, where, count, specificity, quality, match)


def test_loose_hits_feed_their_own_features_not_the_exact_ones():
    values = phrase_features([{0: [hit(match="gapped")], 1: [hit(match="reordered")]}], 2)
    for f in ("kw_title", "kw_abstract", "kw_name", "kw_spec", "kw_any"):
        assert not values[f].any(), f
    assert values["kw_gapped"].tolist() == [[1.0, 0.0]]
    assert values["kw_reordered"].tolist() == [[0.0, 1.0]]


def test_a_loose_hit_in_the_abstract_counts_half_and_shared_phrases_less():
    values = phrase_features(
        [{0: [hit(where="abstract", match="gapped", specificity=0.5)]}, {0: [hit("abstract")]}],
        1,
    )
    assert values["kw_gapped"][0, 0] == pytest.approx(0.5 * LOOSE_ABSTRACT_FACTOR)
    assert values["kw_any"][1, 0] == 1.0  # an exact hit in the abstract is not halved


def test_an_acronym_the_paper_defines_counts_as_an_exact_hit():
    values = phrase_features([{0: [hit(match="acronym", kind="name")]}], 1)
    assert values["kw_title"][0, 0] == 1.0
    assert values["kw_name"][0, 0] == 1.0


def test_keyword_evidence_is_discounted_by_the_distance_to_the_best_area():
    # Topics 0 and 1 are areas; topic 2 belongs to area 1; the paper is closest to area 0.
    comb = np.array([[3.0, -1.0, 0.5]], dtype=np.float32)
    values = {
        "kw_any": np.array([[1.0, 0.0, 0.5]], dtype=np.float32),
        "kw_gapped": np.zeros((1, 3), dtype=np.float32),
        "kw_reordered": np.array([[0.0, 0.8, 0.0]], dtype=np.float32),
        "knn_vote": np.array([[0.2, 0.9, 0.4]], dtype=np.float32),
    }
    out = combined_features(values, comb, np.array([0, 1, 1]), np.array([0, 1]))
    assert out["kw_area_gap"][0, 0] == 0.0  # in the best area
    assert out["kw_area_gap"][0, 1] == pytest.approx(-0.8)  # 4 z behind: -1 x evidence 0.8
    assert out["kw_area_gap"][0, 2] == pytest.approx(0.5 * -4.0 / AREA_GAP_SCALE)
    # kNN votes count apart only where the paper uses none of the topic's phrases.
    values["kw_any"][0, 2] = 0.0
    out = combined_features(values, comb, np.array([0, 1, 1]), np.array([0, 1]))
    assert out["knn_no_phrase"].tolist() == [[0.0, 0.0, pytest.approx(0.4)]]


def test_new_features_are_in_the_scorer_and_old_scorer_files_load_with_zero_weights():
    for f in ("kw_gapped", "kw_reordered", "kw_area_gap", "knn_no_phrase"):
        assert f in FEATURES
    params = ScorerParams.from_dict({"features": {"sim_desc": 1.0}, "bias": 0.0})
    assert set(params.weights) == set(FEATURES)
    assert params.weights["kw_gapped"] == 0.0


def test_a_labelled_papers_count_features_never_depend_on_its_own_labels():
    # base_rate and phrase_rate of a paper in the memory come from the other folds' papers
    # (scaled to the whole memory): flipping the paper's own labels leaves them unchanged. With
    # only the paper itself left out they were one count lower exactly where it carried a
    # topic, a give-away boosted trees learnt (docs/tagging.md).
    import numpy as np

    from topics.tagger.memory import COUNT_FOLDS, NeighbourMemory, fold_of

    ids = [f"2501.{n:05d}" for n in range(40)]
    rng = np.random.default_rng(5)
    labels = (rng.random((40, 3)) < 0.4).astype(np.float32)
    named = rng.random((40, 3)) < 0.5
    vecs = rng.standard_normal((40, 4)).astype(np.float32)
    memory = NeighbourMemory(vecs, labels, ids, named)
    flipped_labels = labels.copy()
    flipped_labels[0] = 1 - flipped_labels[0]
    flipped = NeighbourMemory(vecs, flipped_labels, ids, named)
    assert np.array_equal(memory.base_rate([ids[0]]), flipped.base_rate([ids[0]]))
    assert np.array_equal(memory.phrase_rate([ids[0]]), flipped.phrase_rate([ids[0]]))
    # the other folds' counts, scaled by folds / (folds - 1); a new paper sees all of them
    other = [fold_of(i, COUNT_FOLDS) != fold_of(ids[0], COUNT_FOLDS) for i in ids]
    expected = labels[other].sum(axis=0) * COUNT_FOLDS / (COUNT_FOLDS - 1)
    assert memory.base_rate([ids[0]])[0] == pytest.approx(np.log1p(expected))
    assert memory.base_rate(["new"])[0] == pytest.approx(np.log1p(labels.sum(axis=0)))
    carried = named & (labels > 0)
    rate = memory.phrase_rate(["new"])[0]
    assert rate == pytest.approx((carried.sum(axis=0) + 1) / (labels.sum(axis=0) + 2))
    assert NeighbourMemory(np.eye(1, 2), labels[:1, :2], ["a"]).phrase_rate(["x"]) is None


def test_phrase_missing_is_the_rate_only_where_the_paper_names_nothing():
    comb = np.zeros((1, 2), dtype=np.float32)
    values = {
        "kw_any": np.array([[1.0, 0.0]], dtype=np.float32),
        "kw_gapped": np.zeros((1, 2), dtype=np.float32),
        "kw_reordered": np.zeros((1, 2), dtype=np.float32),
        "knn_vote": np.zeros((1, 2), dtype=np.float32),
    }
    rate = np.array([[0.9, 0.8]], dtype=np.float32)
    out = combined_features(values, comb, np.array([0, 1]), np.array([0, 1]), rate)
    assert out["phrase_missing"].tolist() == [[0.0, pytest.approx(0.8)]]
    out = combined_features(values, comb, np.array([0, 1]), np.array([0, 1]))
    assert not out["phrase_missing"].any()  # no labelled papers: neutral
