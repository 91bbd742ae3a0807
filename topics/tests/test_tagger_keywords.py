"""Keyword matcher: acronyms case-sensitive, plurals, hyphens, TeX; text clean-up helpers."""

from __future__ import annotations

from topics.tagger.keywords import KeywordMatcher, word_quality
from topics.tagger.taxonomy import TopicSpec
from topics.tagger.text import clean, clip, stem, strip_tex

TOPICS = [
    TopicSpec("grpo", "Group Relative Policy Optimization", aliases=("GRPO",)),
    TopicSpec(
        "moe",
        "Mixture-of-Experts Language Models",
        aliases=("MoE", "mixture of experts"),
        keywords=("expert routing", "sparse MoE layer"),
    ),
    TopicSpec("pg", "Policy Gradient", keywords=("policy gradient", "actor-critic", "REINFORCE")),
    TopicSpec("pt", "Pretraining", keywords=("pre-training", "self-supervised learning")),
    TopicSpec("llm", "Large Language Models", aliases=("LLM",), keywords=("policy gradient",)),
    TopicSpec("ml", "Machine Learning", aliases=("ML",), keywords=("ml",)),
]
MATCHER = KeywordMatcher(TOPICS, word_coherence={})


def hits(title, abstract=""):
    found = MATCHER.match(clean(title, 600), clean(abstract, 4000))
    return {TOPICS[j].slug: sorted({(h.phrase, h.where) for h in hs}) for j, hs in found.items()}


def test_acronyms_match_case_sensitively():
    assert hits("GRPO for reasoning")["grpo"] == [("GRPO", "title")]
    assert "grpo" not in hits("grpo for reasoning")
    assert "grpo" not in hits("Grpo for reasoning")
    assert hits("Sparse MoE", "a MoE model")["moe"] == [("MoE", "abstract"), ("MoE", "title")]
    assert "moe" not in hits("The moe of it")


def test_acronym_plurals_match():
    assert hits("Scaling LLMs")["llm"] == [("LLM", "title")]
    assert hits("Routing in MoEs")["moe"] == [("MoE", "title")]


def test_short_lower_case_keywords_are_ignored_but_acronyms_kept():
    assert hits("ML in practice")["ml"] == [("ML", "title")]
    assert "ml" not in hits("ml in practice")


def test_phrases_match_lower_cased_with_plural_stemming():
    assert hits("Policy Gradients Revisited")["pg"] == [("Policy Gradient", "title")]
    assert hits("", "We compare actor-critic methods")["pg"] == [("actor-critic", "abstract")]
    assert hits("Self-Supervised Learnings")["pt"] == [("self-supervised learning", "title")]


def test_hyphens_are_tolerated_both_ways():
    for text in ("pre-training", "pre training", "Pre-Training"):
        assert ("pre-training", "title") in hits(f"Better {text} recipes")["pt"], text
    # "pretraining" is also the topic's name, which is reported rather than the keyword.
    assert hits("Better pretraining recipes")["pt"] == [("Pretraining", "title")]
    assert hits("Mixture of Experts at scale")["moe"] == [("mixture of experts", "title")]
    assert ("Mixture-of-Experts Language Models", "title") in hits(
        "Mixture-of-Experts language models"
    )["moe"]
    assert hits("actor critic")["pg"] == [("actor-critic", "title")]


def test_a_phrase_listed_by_two_topics_hits_both_with_half_specificity():
    found = MATCHER.match("policy gradient methods", "")
    specs = {TOPICS[j].slug: hs[0].specificity for j, hs in found.items()}
    assert specs == {"pg": 0.5, "llm": 0.5}


def test_acronym_inside_a_phrase_stays_case_sensitive():
    assert ("sparse MoE layer", "abstract") in hits("", "each sparse MoE layers routes")["moe"]
    assert "moe" not in hits("", "each sparse moe layers routes")


def test_keyword_in_tex_markup_is_found():
    assert hits(r"$\texttt{GRPO}$-style training")["grpo"] == [("GRPO", "title")]
    assert hits(r"\emph{Policy} \textbf{gradient} theorem")["pg"] == [("Policy Gradient", "title")]


def test_common_single_words_are_weaker_evidence():
    coherence = {"generator": 0.2, "bandit": 0.3}
    assert word_quality("generator", coherence) < word_quality("bandit", coherence) < 1.0
    assert word_quality("unseenword", coherence) == 1.0


def test_text_helpers():
    assert stem("policies") == "policy"
    assert stem("losses") == "loss"
    assert stem("analysis") == ("analysis")
    assert strip_tex(r"Schr\"odinger $\pi_0$").split() == ["Schrodinger", "pi", "_0"]
    assert clean("a\x00b\u200bc  d", 100) == "a b c d"
    assert len(clip("word " * 10_000, 4000)) <= 4000
    assert clean(None, 10) == ""
    assert clean(12, 10) == "12"
