"""The supervised topic heads (topics/tagger/heads.py): terms, fitting, the shipped file format,
out-of-fold values and how a tagger uses them."""

import numpy as np
import pytest

from topics.tagger.engine import PaperInput, Tagger
from topics.tagger.heads import (
    HeadView,
    Lexicon,
    TopicHeads,
    cross_fit_heads,
    fit_heads,
    paper_terms,
)
from topics.tagger.taxonomy import TopicSpec


def test_paper_terms_stem_drop_stop_words_pair_words_and_count_the_title_twice():
    terms = paper_terms("Shapley Values", "We propose data valuation with the Shapley values.")
    assert terms.count("shapley value") == 3  # twice from the title, once from the abstract
    assert "datum" not in terms
    assert "data valuation" in terms
    assert "we" not in terms
    assert "propose" not in terms
    assert "the" not in terms
    assert paper_terms("", "") == []


def test_lexicon_keeps_terms_of_two_papers_and_rows_have_unit_length():
    docs = [["graph", "node"], ["graph", "edge"], ["protein"]]
    lex = Lexicon.fit(docs)
    assert lex.terms == ["graph"]  # in two papers; the others in one
    m = lex.matrix([["graph", "graph", "zebra"], ["zebra"]]).toarray()
    assert m.shape == (2, 1)
    assert m[0, 0] == pytest.approx(1.0)
    assert m[1, 0] == 0.0


def _corpus(n=60, seed=0):
    """Papers about data valuation (label column 0) or protein folding (column 1), with noise
    words, and random unit vectors (the heads must learn from the words)."""
    rng = np.random.default_rng(seed)
    filler = ["training", "model", "benchmark", "accuracy", "dataset", "neural", "loss"]
    docs, labels = [], np.zeros((n, 2), dtype=bool)
    for i in range(n):
        topic = i % 2
        marker = ["shapley", "valuation"] if topic == 0 else ["protein", "folding"]
        docs.append(list(rng.choice(filler, 6)) + marker)
        labels[i, topic] = True
    vecs = rng.normal(size=(n, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return docs, vecs, labels


def test_fit_heads_learns_each_topics_words():
    docs, vecs, labels = _corpus()
    heads = fit_heads(docs, vecs, labels, ["data-valuation", "protein-folding"])
    assert heads.slugs == ["data-valuation", "protein-folding"]
    new = [["shapley", "valuation", "model"], ["protein", "folding", "dataset"]]
    dec = heads.decision(new, np.zeros((2, 8), dtype=np.float32))
    assert dec[0, 0] > 0 > dec[0, 1]
    assert dec[1, 1] > 0 > dec[1, 0]


def test_a_topic_with_too_few_labelled_papers_gets_no_head():
    docs, vecs, labels = _corpus()
    labels[:, 1] = False
    labels[:2, 1] = True  # two papers: under MIN_POSITIVES
    heads = fit_heads(docs, vecs, labels, ["data-valuation", "protein-folding"])
    assert heads.slugs == ["data-valuation"]


def test_heads_file_round_trips_and_is_byte_identical_when_saved_twice(tmp_path):
    docs, vecs, labels = _corpus()
    heads = fit_heads(docs, vecs, labels, ["a", "b"])
    first, second = tmp_path / "one.npz", tmp_path / "two.npz"
    heads.save(first)
    heads.save(second)
    assert first.read_bytes() == second.read_bytes()
    loaded = TopicHeads.load(first)
    assert loaded is not None
    assert loaded.slugs == ["a", "b"]
    assert loaded.dim == 8
    # float16 weights: the same decisions to about three digits
    np.testing.assert_allclose(
        loaded.decision(docs[:5], vecs[:5]), heads.decision(docs[:5], vecs[:5]), atol=0.01
    )
    assert TopicHeads.load(tmp_path / "absent.npz") is None


def test_cross_fit_scores_each_paper_with_heads_fitted_without_it():
    docs, vecs, labels = _corpus()
    fold = np.arange(len(docs)) % 3
    values, known = cross_fit_heads(docs, vecs, labels, ["a", "b"], fold)
    assert known.all()
    held = np.flatnonzero(fold == 1)
    train = np.flatnonzero(fold != 1)
    alone = fit_heads([docs[i] for i in train], vecs[train], labels[train], ["a", "b"])
    np.testing.assert_allclose(values[held], alone.decision([docs[i] for i in held], vecs[held]))


def test_head_view_places_columns_on_the_taggers_topics_and_answers_held_out_papers():
    docs, vecs, labels = _corpus()
    heads = fit_heads(docs, vecs, labels, ["a", "gone"])
    held_values = np.full((1, 3), 7.0, dtype=np.float32)
    held_known = np.array([[False, False, True]])
    view = HeadView(heads, {"x": 0, "y": 1, "a": 2}, 3, held_out=(["p1"], held_values, held_known))
    assert len(view) == 1  # "gone" is not a topic of this tagger
    value, known = view.values(
        ["p1", "p2"], ["", ""], ["shapley valuation", "shapley valuation"], np.zeros((2, 8))
    )
    assert value[0].tolist() == [7.0, 7.0, 7.0]
    assert known[0].tolist() == [False, False, True]
    assert known[1].tolist() == [False, False, True]
    assert value[1, 2] > 0
    assert value[1, 0] == 0


def _specs():
    return [
        TopicSpec(slug="ml", name="Machine Learning", parent=None, description="learning"),
        TopicSpec(slug="dv", name="Data Valuation", parent="ml", description="worth of data"),
        TopicSpec(slug="pf", name="Protein Folding", parent="ml", description="structures"),
    ]


def test_a_tagger_with_heads_feeds_them_to_its_features_and_without_them_feeds_zeros():
    docs, vecs, labels = _corpus()
    tagger = Tagger(_specs(), neighbours=())
    assert tagger.heads_view() is None
    paper = PaperInput("2501.00001", "Shapley valuation of training data", "shapley valuation")
    before = tagger.pair_features([paper], [["dv", "pf"]])[0]
    assert before["dv"]["head"] == 0
    assert before["dv"]["head_known"] == 0
    dim = tagger.dim
    heads = fit_heads(docs, np.zeros((len(docs), dim), dtype=np.float32), labels, ["dv", "pf"])
    tagger.set_heads(heads)
    after = tagger.pair_features([paper], [["dv", "pf"]])[0]
    assert after["dv"]["head_known"] == 1
    assert after["dv"]["head"] > 0 > after["pf"]["head"]
    tagger.set_heads(None)
    assert tagger.pair_features([paper], [["dv"]])[0]["dv"]["head"] == 0
