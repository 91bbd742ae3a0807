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


def test_phrase_rate_of_labelled_papers_leaves_the_paper_itself_out():
    import numpy as np

    from topics.tagger.memory import NeighbourMemory

    labels = np.array([[1, 0], [1, 1], [1, 0]], dtype=np.float32)
    named = np.array([[1, 1], [1, 0], [0, 1]], dtype=bool)  # (named without the label: ignored)
    memory = NeighbourMemory(np.eye(3, 2, dtype=np.float32), labels, ["a", "b", "c"], named)
    rate = memory.phrase_rate(["new", "a"])
    assert rate[0].tolist() == pytest.approx([(2 + 1) / (3 + 2), (0 + 1) / (1 + 2)])
    assert rate[1, 0] == pytest.approx((1 + 1) / (2 + 2))  # "a" itself left out
    assert NeighbourMemory(np.eye(1, 2), labels[:1], ["a"]).phrase_rate(["x"]) is None


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
