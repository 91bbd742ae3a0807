"""The chip-order model (topics/tagger/chip_order.py): trees exported from scikit-learn score as
scikit-learn does, survive a save and load, and the shipped tagger orders its chips by them."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from topics.tagger.chip_order import CHIP_FEATURES, ChipOrder


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3000, len(CHIP_FEATURES)))
    x[rng.random(x.shape) < 0.02] = np.nan  # missing values take the learnt side
    y = (np.nan_to_num(x[:, 0]) + np.nan_to_num(x[:, 1] * x[:, 2]) > 0.3).astype(int)
    model = HistGradientBoostingClassifier(
        max_iter=60, max_leaf_nodes=15, early_stopping=False, random_state=0
    ).fit(x, y)
    return model, x


def test_exported_trees_score_as_scikit_learn_does_on_both_walks(fitted):
    model, x = fitted
    order = ChipOrder.from_sklearn(model, CHIP_FEATURES, {"made": "in a test"})
    expected = model.predict_proba(x[:500])[:, 1]
    assert np.allclose(order.predict(x[:500]), expected, rtol=0, atol=1e-12)
    rows = np.ascontiguousarray(x[:500])
    assert np.allclose(order._raw_numpy(rows), order._raw_compiled(rows), rtol=0, atol=1e-12)
    assert order.predict(np.zeros((0, len(CHIP_FEATURES)))).shape == (0,)


def test_saved_and_loaded_the_model_is_the_same_and_other_features_load_as_none(fitted, tmp_path):
    model, x = fitted
    path = tmp_path / "chip_order.npz"
    ChipOrder.from_sklearn(model, CHIP_FEATURES, {"cv": {"first_chip_right": 0.8}}).save(path)
    again = tmp_path / "again.npz"
    ChipOrder.load(path).save(again)
    assert path.read_bytes() == again.read_bytes()  # deterministic bytes
    loaded = ChipOrder.load(path)
    assert loaded.info == {"cv": {"first_chip_right": 0.8}}
    assert np.allclose(loaded.predict(x[:100]), model.predict_proba(x[:100])[:, 1], atol=1e-12)
    # a model made for a feature the tagger no longer has is not used (the chips keep the
    # scorer's order)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["features"] = np.array("\n".join([*CHIP_FEATURES[:-1], "a_feature_since_removed"]))
    with open(tmp_path / "other.npz", "wb") as handle:
        np.savez(handle, **arrays)
    assert ChipOrder.load(tmp_path / "other.npz") is None
    assert ChipOrder.load(tmp_path / "missing.npz") is None


def test_a_model_made_before_features_were_added_reads_its_own_by_name(tmp_path):
    # the fast stage's model predates the refined stage's ctx_* features: it keeps working
    rng = np.random.default_rng(5)
    old = [f for f in CHIP_FEATURES if not f.startswith("ctx_")]
    assert len(old) < len(CHIP_FEATURES)
    x = rng.standard_normal((2000, len(CHIP_FEATURES)))
    cols = [CHIP_FEATURES.index(f) for f in old]
    y = (x[:, cols[-1]] + x[:, cols[3]] > 0).astype(int)  # the last old column matters
    model = HistGradientBoostingClassifier(max_iter=30, early_stopping=False, random_state=0)
    model.fit(x[:, cols], y)
    order = ChipOrder.from_sklearn(model, old, {})
    order.save(tmp_path / "old.npz")
    loaded = ChipOrder.load(tmp_path / "old.npz")
    assert loaded is not None
    assert loaded.features == CHIP_FEATURES
    expected = model.predict_proba(x[:300, cols])[:, 1]
    assert np.allclose(loaded.predict(x[:300]), expected, rtol=0, atol=1e-12)


def test_name_relations_tell_the_broader_wording_from_the_narrower():
    from topics.tagger.chip_order import name_relations, name_words

    words = [
        name_words("Inference-Time Scaling"),
        name_words("Diffusion Inference-Time Scaling"),
        name_words("Machine Unlearning"),
        name_words("LLM Unlearning"),
        name_words("Graph Neural Networks"),
    ]
    assert words[0] == {"inference", "time", "scaling"}
    assert words[2] == {"unlearning"}  # "machine" says nothing about the topic
    rel = name_relations(words)  # broader, narrower, shares a word
    assert rel[0].tolist() == [1, 0, 1]
    assert rel[1].tolist() == [0, 1, 1]
    assert rel[2].tolist() == [1, 0, 1]  # {unlearning} < {llm, unlearning}
    assert rel[3].tolist() == [0, 1, 1]
    assert rel[4].tolist() == [0, 0, 0]
    assert name_relations([frozenset({"a"})]).tolist() == [[0, 0, 0]]  # one chip: nothing beside


def test_a_language_model_topic_on_a_paper_that_names_none_is_marked():
    from topics.tagger.chip_order import LM_TOPIC_NAME, chip_matrix, speaks_of_language_models

    names = ["LLM Unlearning", "Machine Unlearning", "Diffusion Language Models"]
    lm_topic = np.array([bool(LM_TOPIC_NAME.search(n)) for n in names], dtype=float)
    assert lm_topic.tolist() == [1, 0, 1]
    vision = "Unlearning's Blind Spots", "We study machine unlearning of image classifiers."
    text = "Forgetting in Llama-3", "We unlearn facts from instruction-tuned models."
    assert not speaks_of_language_models(*vision)
    assert speaks_of_language_models(*text)
    assert speaks_of_language_models("Scaling laws", "for masked language modeling")
    assert speaks_of_language_models("GPT-4o as a judge", "")
    assert not speaks_of_language_models("Sparse LMMSE estimation", "of channels")  # a word

    values = {f: np.zeros((1, 3)) for f in CHIP_FEATURES}
    own = np.array([[0.9, 0.8, 0.3]])
    words = [frozenset({n.lower()}) for n in names]

    def unsaid(said: bool) -> list[float]:
        x = chip_matrix(values, 0, [0, 1, 2], own, np.ones(3), set(), np.zeros((3, 3)), words,
                        lm_topic, said)  # fmt: skip
        return x[:, CHIP_FEATURES.index("lm_unsaid")].tolist()

    assert unsaid(False) == [1, 0, 1]  # the LM-named topics, on a paper naming no LM
    assert unsaid(True) == [0, 0, 0]


def test_judged_priors_and_a_model_without_verdicts():
    from topics.tagger.chip_order import judged_priors, topic_priors

    counts = np.array([[9, 1, 0], [1, 9, 10], [0, 0, 0]])
    priors = judged_priors(counts)
    assert np.allclose(priors[0], [10 / 12, 2 / 12, np.log(11)])
    assert np.allclose(priors[1], [2 / 22, 10 / 12, np.log(21)])
    assert np.allclose(priors[2], [0.5, 0.5, 0.0])  # never judged: no evidence either way
    order = ChipOrder.from_sklearn(
        HistGradientBoostingClassifier(max_iter=2).fit(np.eye(2), [0, 1]),
        ["a", "b"],
        {"judged": {"t1": [9, 1, 0]}},
    )
    assert np.allclose(topic_priors(order, ["t1", "t2"]), [priors[0], priors[2]])
    assert np.allclose(topic_priors(None, ["t1"]), [priors[2]])  # while fitting: none yet


def test_a_chips_verdict_features_never_count_its_own_papers_verdicts():
    # counted with its own paper, a topic's share of "clear" would be higher exactly where the
    # paper carries it: a label leak the trees would learn (docs/tagging.md)
    from types import SimpleNamespace

    from topics.tagger.training.chip_order import out_of_fold_priors, verdict_counts
    from topics.tagger.training.crossval import fold_of

    pos = {"t0": 0, "t1": 1}
    papers = [SimpleNamespace(id=f"2501.{i:05d}") for i in range(40)]
    verdicts = [(["t0"], ["t1"], []) if i % 2 else (["t1"], [], ["t0"]) for i in range(40)]
    folds = 5
    fold = np.array([fold_of(p.id, folds) for p in papers])
    columns = np.zeros(40, dtype=int)  # every row about t0
    before = out_of_fold_priors(verdict_counts(papers, verdicts, pos, folds), columns, fold)
    flipped = list(verdicts)
    flipped[0] = (["t0"], [], [])  # paper 0 now says t0 is its topic
    after = out_of_fold_priors(verdict_counts(papers, flipped, pos, folds), columns, fold)
    own = fold == fold[0]
    assert np.array_equal(before[own], after[own])  # its own fold does not see it
    assert (after[~own, 0] > before[~own, 0]).all()  # the other folds do
    counts = verdict_counts(papers, verdicts, {"t0": 0}, folds)  # t1 not a topic: left out
    assert counts.shape == (folds, 1, 3)
    assert counts.sum() == 40


def test_the_fit_reports_the_first_three_chips_as_readers_see_them_with_the_bar():
    # What fit_chip_order records out of fold: with every chip shown, and with the chips after
    # the first held back below chips.MIN_CHIP_ORDER, as chips_arrange shows them.
    from topics.tagger.training.chip_order import first_rates

    rows = [
        ([0, 1, 2], ["a", "b", "c"], {"a", "b"}, {"a"}),  # c is wrong and unlikely
        ([3, 4], ["d", "e"], {"e"}, {"e"}),  # the model puts e first; d is wrong
    ]
    p = np.array([0.9, 0.6, 0.2, 0.45, 0.7])

    every = first_rates(rows, p)
    held = first_rates(rows, p, min_order=0.5)

    assert every == {
        "first_chip_right": 1.0,
        "first_chip_labelled": 1.0,
        "first_three_right": (2 / 3 + 1 / 2) / 2,
        "chips": 2.5,
    }
    assert held == {
        "first_chip_right": 1.0,
        "first_chip_labelled": 1.0,
        "first_three_right": 1.0,
        "chips": 1.5,
    }
