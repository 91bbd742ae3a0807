"""Word keys for phrase matching: spelling (light key) and inflection (phrase key) rules."""

from __future__ import annotations

import pytest

from topics.tagger.stemming import light_key, measure, phrase_key
from topics.tagger.text import stem


@pytest.mark.parametrize(
    ("word", "key"),
    [
        ("regularisation", "regularization"),
        ("parameterisations", "parameterization"),
        ("parametrization", "parameterization"),
        ("optimised", "optimized"),
        ("analyse", "analyze"),
        ("behaviour", "behavior"),
        ("neighbours", "neighbor"),
        ("modelling", "modeling"),
        ("labelled", "labeled"),
        ("centre", "center"),
        ("policies", "policy"),
        ("losses", "loss"),
        ("anomalies", "anomaly"),
        # A lone word keeps its inflection: "reasoning" is no "reason", "optimized" no
        # "optimization".
        ("reasoning", "reasoning"),
        ("optimization", "optimization"),
        ("learned", "learned"),
    ],
)
def test_light_key_normalises_plural_and_british_spelling_only(word, key):
    assert light_key(word) == key


@pytest.mark.parametrize(
    "family",
    [
        ("parameterization", "parameterizations", "parameterized", "parameterizing",
         "parameterize", "parametrisation"),
        ("learned", "learning", "learn"),
        ("detection", "detected", "detecting", "detect"),
        ("estimation", "estimated", "estimating", "estimate"),
        ("generation", "generated", "generating", "generate"),
        ("optimization", "optimized", "optimizing", "optimise", "optimisation"),
        ("tuned", "tuning", "tune"),
        ("based", "base"),
        ("embedded", "embedding", "embeddings", "embed"),
        ("planned", "planning", "plan"),
        ("controlled", "controlling", "control"),
        ("modelling", "modeling", "modeled", "model"),
        ("augmentation", "augmented", "augment"),
        ("compression", "compressed", "compress"),
        ("applied", "apply"),
        ("studies", "study"),
        ("exploration", "explored", "explore"),
        ("scaling", "scaled", "scale"),
        ("pretraining", "pretrained"),
    ],
)  # fmt: skip
def test_phrase_key_merges_inflections_and_derivations(family):
    keys = {phrase_key(w) for w in family}
    assert len(keys) == 1, {w: phrase_key(w) for w in family}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("meaning", "mean"),  # not an inflection
        ("evening", "even"),
        ("generative", "general"),  # Porter's -ive and -al rules are left out
        ("generative", "generation"),
        ("distribution", "distributed"),  # distribution learning is not distributed learning
        ("precision", "precise"),
        ("setting", "set"),  # "test setting" is not "test set"
        ("relation", "relate"),  # too short a stem (m = 1) to strip -ation
        ("action", "act"),
        ("optimizer", "optimization"),  # learned optimizers are not optimization
        ("note", "not"),
        ("plane", "plan"),
        ("string", "str"),
    ],
)
def test_phrase_key_keeps_apart_words_that_only_look_alike(a, b):
    assert phrase_key(a) != phrase_key(b)


def test_short_and_odd_tokens_are_left_alone():
    for word in ("using", "used", "red", "need", "speed", "v1.5", "gpt4", "rlhf", "x"):
        assert phrase_key(word) in (word, stem(word))


def test_porter_measure():
    assert [measure(w) for w in ("tree", "trouble", "private", "oaten", "y")] == [0, 1, 2, 2, 0]
