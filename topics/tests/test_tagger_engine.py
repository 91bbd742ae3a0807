"""The tagger on a small hand-written taxonomy, shipped static model (no DB, no ../shared)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from topics.tagger import PaperInput, Priors, Tag, Tagger, TopicSpec, UnknownTopicError
from topics.tagger.chips import MIN_CHIP_ORDER
from topics.tagger.embedding import HashingEmbedder, StaticEmbedder


def spec(slug, name, parent=None, description="", aliases=(), keywords=(), categories=()):
    return TopicSpec(
        slug=slug,
        name=name,
        parent=parent,
        description=description,
        aliases=tuple(aliases),
        keywords=tuple(keywords),
        categories=tuple(categories),
    )


TOPICS = [
    spec(
        "rl",
        "Reinforcement Learning",
        description="Reinforcement learning studies agents that learn to act by trial and error "
        "to maximise reward in an environment, with value functions and policies.",
        aliases=["RL"],
        keywords=["reinforcement learning", "reward", "markov decision process"],
        categories=["cs.LG", "cs.AI"],
    ),
    spec(
        "policy-gradient",
        "Policy Gradient",
        "rl",
        "Policy gradient methods optimise a parameterised policy directly by gradient ascent on "
        "expected return, including REINFORCE and actor-critic algorithms.",
        aliases=["PG"],
        keywords=["policy gradient", "actor-critic", "REINFORCE", "advantage estimation"],
        categories=["cs.LG"],
    ),
    spec(
        "ppo",
        "Proximal Policy Optimization",
        "policy-gradient",
        "Proximal policy optimization constrains each policy update with a clipped surrogate "
        "objective; work studies its clipping, stability and implementation details.",
        aliases=["PPO"],
        keywords=["clipped surrogate objective", "trust region"],
        categories=["cs.LG"],
    ),
    spec(
        "offline-rl",
        "Offline RL",
        "rl",
        "Offline reinforcement learning learns policies from a fixed dataset of logged "
        "transitions without further interaction, fighting distribution shift.",
        keywords=["offline reinforcement learning", "conservative Q-learning", "logged data"],
        categories=["cs.LG"],
    ),
    spec(
        "ml",
        "Machine Learning",
        description="Machine learning studies algorithms that improve from data.",
        aliases=["ML"],
        keywords=["machine learning", "neural network"],
        categories=["cs.LG", "stat.ML"],
    ),
    spec(
        "gnn",
        "Graph Neural Networks",
        "ml",
        "Graph neural networks learn representations of nodes and graphs by message passing "
        "between neighbours, applied to molecules, social networks and recommendation.",
        aliases=["GNN"],
        keywords=["graph neural network", "message passing", "node classification"],
        categories=["cs.LG", "cs.SI"],
    ),
    spec(
        "diffusion",
        "Diffusion Models",
        "ml",
        "Diffusion models generate images and other data by learning to reverse a gradual "
        "noising process with a denoising network.",
        keywords=["diffusion model", "denoising", "score matching"],
        categories=["cs.LG", "cs.CV"],
    ),
    spec(
        "nlp",
        "Natural Language Processing",
        description="Natural language processing studies computational models of human "
        "language: translation, parsing, question answering and language models.",
        aliases=["NLP"],
        keywords=["machine translation", "language model"],
        categories=["cs.CL"],
    ),
    spec(
        "mt",
        "Machine Translation",
        "nlp",
        "Machine translation converts text from one language to another with neural "
        "sequence-to-sequence models, evaluated with BLEU on WMT benchmarks.",
        aliases=["MT", "NMT"],
        keywords=["machine translation", "BLEU", "low-resource languages"],
        categories=["cs.CL"],
    ),
]
SLUGS = {t.slug for t in TOPICS}
PARENT = {t.slug: t.parent for t in TOPICS}

RL_PAPER = PaperInput(
    id="2501.00001",
    title="Stabilizing Proximal Policy Optimization with Adaptive Clipping",
    abstract=(
        "Policy gradient methods such as PPO are the workhorse of deep reinforcement learning. "
        "We show that the clipped surrogate objective of proximal policy optimization becomes "
        "unstable when advantage estimation is noisy, and propose an adaptive clipping rule. "
        "On continuous-control benchmarks our agents reach higher reward with fewer samples."
    ),
    categories=("cs.LG", "cs.AI"),
)
GNN_PAPER = PaperInput(
    id="2501.00002",
    title="Message Passing Graph Neural Networks for Molecules",
    abstract="We propose a graph neural network with edge-aware message passing for molecular "
    "property prediction and node classification benchmarks.",
    categories=("cs.LG",),
)

BAD_INPUTS = [
    PaperInput(id="", title=""),
    PaperInput(id="a", title="   ", abstract=""),
    PaperInput(id="b", title="Policy gradient without an abstract"),
    PaperInput(id="c", title=r"$\pi_0$: a \textbf{PPO}-style \emph{policy} with $\mathcal{O}(1)$"),
    PaperInput(
        id="d", title="强化学习中的策略梯度方法", abstract="我们提出了一种新的强化学习算法。"
    ),
    PaperInput(id="e", title="Обучение с подкреплением", abstract="Мы предлагаем новый метод."),
    PaperInput(id="f", title="Long", abstract="We study policy gradient methods. " * 3200),
    PaperInput(id="g", title="\x00\x01\u200b", abstract="\ufeff\n\t"),
    PaperInput(id="h", title="12345 67890", abstract="$$ {} \\\\ $$"),
    PaperInput(id="i", title="RL", abstract="RL", categories="cs.LG cs.AI"),  # type: ignore[arg-type]
]


@pytest.fixture(scope="module")
def embedder():
    return StaticEmbedder.load()


@pytest.fixture(scope="module")
def tagger(embedder):
    return Tagger(TOPICS, embedder)


@pytest.fixture(scope="module")
def shipped_tagger(embedder):
    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import load_taxonomy_files

    return Tagger(load_taxonomy_files(TAXONOMY_DIR).topics, embedder)


def assert_well_formed(tags: list[Tag]):
    assert isinstance(tags, list)
    assert [t.rank for t in tags] == list(range(1, len(tags) + 1))
    scores = [t.score for t in tags]
    assert all(0.0 <= s <= 1.0 for s in scores)
    chips = [t for t in tags if t.shown]
    assert tags[: len(chips)] == chips  # display order: the chips first, best first
    assert [t.score for t in chips] == sorted((t.score for t in chips), reverse=True)
    assert len(chips) <= 7
    by_slug = {t.slug: t for t in tags}
    assert len(by_slug) == len(tags)
    for t in tags:
        assert t.slug in SLUGS
        if PARENT[t.slug] is None:
            assert not t.shown, f"area {t.slug} shown as a chip"
        parent = PARENT[t.slug]
        if parent is not None:  # hierarchy: ancestors included, implied, never chips
            assert parent in by_slug, f"{t.slug} without its parent {parent}"
            assert by_slug[parent].implied
            assert not by_slug[parent].shown
        assert t.implied == any(PARENT[o.slug] == t.slug for o in tags)
        assert isinstance(t.evidence, dict)
        assert "similarity" in t.evidence


def test_a_clear_rl_paper_gets_the_rl_tags_with_evidence(tagger):
    tags = tagger.tag(RL_PAPER)
    assert_well_formed(tags)
    slugs = [t.slug for t in tags]
    assert {"ppo", "policy-gradient", "rl"} <= set(slugs)
    assert not {"gnn", "diffusion", "mt", "nlp"} & set(slugs)
    assert slugs[0] == "ppo"  # the most specific tag first when scores tie
    ppo = tags[0]
    assert ppo.score >= 0.5
    phrases = {(p["text"], p["where"]) for p in ppo.evidence["phrases"]}
    assert ("Proximal Policy Optimization", "title") in phrases
    assert ("PPO", "abstract") in phrases
    assert tags[slugs.index("rl")].evidence.get("categories") == ["cs.LG", "cs.AI"]


def test_a_gnn_paper_gets_the_gnn_tag_and_its_area(tagger):
    tags = tagger.tag(GNN_PAPER)
    assert_well_formed(tags)
    assert [t.slug for t in tags][:2] == ["gnn", "ml"]


@pytest.mark.parametrize("paper", BAD_INPUTS, ids=lambda p: p.id or "empty")
def test_bad_input_never_raises(tagger, paper):
    started = time.perf_counter()
    tags = tagger.tag(paper)
    assert time.perf_counter() - started < 2.0
    assert_well_formed(tags)


def test_empty_and_unreadable_papers_get_no_tags(tagger):
    assert tagger.tag(PaperInput(id="", title="")) == []
    assert tagger.tag(PaperInput(id="g", title="\x00\u200b", abstract="\ufeff")) == []


def test_a_title_alone_or_tex_is_enough(tagger, shipped_tagger):
    assert "policy-gradient" in {t.slug for t in tagger.tag(BAD_INPUTS[2])}
    # TeX stripped, the acronym found: the best candidate even for the fallback scorer of a
    # taxonomy without labelled papers, which scores a bare title below its fill-up floor;
    assert tagger.candidates(BAD_INPUTS[3], 1)[0][0] == "ppo"
    # with the shipped taxonomy, labelled papers and heads it is a tag.
    shipped_tags = {t.slug for t in shipped_tagger.tag(BAD_INPUTS[3])}
    assert "proximal-policy-optimization" in shipped_tags


def test_the_shipped_tagger_has_heads_and_a_taxonomy_of_its_own_has_none(tagger, shipped_tagger):
    view = shipped_tagger.heads_view()
    assert view is not None
    assert len(view) >= 500  # topics with enough labelled papers for a head
    assert tagger.heads_view() is None  # another taxonomy: not its labels, not its heads


def test_odd_objects_and_mappings_are_accepted(tagger):
    results = tagger.tag_batch(
        [
            {"id": 1, "title": RL_PAPER.title, "abstract": None, "categories": None},
            {"title": None},
            None,
            42,
            RL_PAPER,
        ]
    )
    assert len(results) == 5
    for tags in results:
        assert_well_formed(tags)
    assert results[1] == []
    assert results[2] == []
    assert results[3] == []
    assert results[0][0].slug == "ppo"


def test_batch_equals_one_by_one_and_is_deterministic(embedder):
    papers = [RL_PAPER, GNN_PAPER, *BAD_INPUTS]
    first = Tagger(TOPICS, embedder).tag_batch(papers)
    again = Tagger(TOPICS, embedder).tag_batch(papers, batch_size=3)
    single = [Tagger(TOPICS, embedder).tag(p) for p in papers]

    def key(results):
        return [[(t.slug, round(t.score, 3), t.rank) for t in tags] for tags in results]

    assert key(first) == key(again) == key(single)
    assert [[t.evidence for t in tags] for tags in first] == [
        [t.evidence for t in tags] for tags in again
    ]


def test_feedback_updates_the_prototype_and_shows_the_example(embedder):
    tagger = Tagger(TOPICS, embedder)
    paper = PaperInput(
        id="2501.00003",
        title="Learning from logged transitions",
        abstract="We learn a policy from a fixed dataset of transitions without interaction.",
    )
    before = {t.slug: t for t in tagger.tag(paper)}
    proto_before = tagger.index.v_proto[tagger.index.pos["offline-rl"]].copy()
    tagger.apply_feedback(paper, "offline-rl", True)
    assert not np.allclose(proto_before, tagger.index.v_proto[tagger.index.pos["offline-rl"]])
    after = {t.slug: t for t in tagger.tag(paper)}
    assert "offline-rl" in after
    assert after["offline-rl"].score > before.get("offline-rl", Tag("", "", 0.0, 0)).score
    assert after["offline-rl"].evidence["examples"][0]["id"] == "2501.00003"

    tagger.apply_feedback(paper, "offline-rl", False)  # a later rejection replaces the confirm
    rejected = {t.slug: t for t in tagger.tag(paper)}
    assert rejected.get("offline-rl", Tag("", "", 0.0, 0)).score < after["offline-rl"].score

    with pytest.raises(UnknownTopicError, match="unknown topic slug 'nope'"):
        tagger.apply_feedback(paper, "nope", True)


def test_feedback_accepts_vectors_and_examples_at_construction(embedder):
    base = Tagger(TOPICS, embedder)
    vec = base.embed([GNN_PAPER])[0]
    base.apply_feedback(vec, "gnn", True, paper_id="x", title="x")
    with pytest.raises(ValueError, match="dimensions"):
        base.apply_feedback(np.ones(3), "gnn", True)
    seeded = Tagger(
        TOPICS, embedder, examples={"gnn": [GNN_PAPER]}, feedback=[(RL_PAPER, "mt", False)]
    )
    tags = {t.slug: t for t in seeded.tag(GNN_PAPER)}
    assert tags["gnn"].evidence["examples"][0]["id"] == GNN_PAPER.id


def test_category_priors_are_used(embedder):
    priors = Priors.estimate([(("cs.CL",), ["mt"])] * 5 + [(("cs.LG",), ["gnn"])] * 5)
    assert priors.lift["cs.CL"]["mt"] > 0 > priors.lift["cs.CL"]["gnn"]
    tagger = Tagger(TOPICS, embedder, priors=priors)
    feats = tagger.pair_features([PaperInput("x", "Neural MT", categories=("cs.CL",))], [["mt"]])
    assert feats[0]["mt"]["prior"] > 0


def test_it_runs_without_the_static_model():
    tagger = Tagger(TOPICS, HashingEmbedder(64))
    tags = tagger.tag(RL_PAPER)
    assert_well_formed(tags)
    assert "ppo" in {t.slug for t in tags}


def test_candidates_and_pair_features(tagger):
    cands = tagger.candidates(RL_PAPER, k=5)
    assert cands[0][0] in {"ppo", "policy-gradient"}
    assert len(cands) <= 5
    feats = tagger.pair_features([RL_PAPER], [["ppo", "gnn", "nope"]])[0]
    assert set(feats) == {"ppo", "gnn"}
    assert feats["ppo"]["kw_title"] > 0 == feats["gnn"]["kw_title"]


def test_labelled_papers_give_knn_candidates_features_and_leave_themselves_out(embedder):
    from dataclasses import replace

    from topics.tagger import ScorerParams

    params = ScorerParams.load()
    params = replace(params, candidates={**params.candidates, "knn_k": 3})
    labelled = [
        (GNN_PAPER, ["gnn"]),
        (PaperInput("n2", GNN_PAPER.title, GNN_PAPER.abstract), ["gnn", "diffusion"]),
        (RL_PAPER, ["ppo"]),
        (PaperInput("n4", "Unknown", "x"), ["not-a-topic"]),  # unknown slugs are dropped
    ]
    tagger = Tagger(TOPICS, embedder, params=params, neighbours=labelled)
    memory = tagger.neighbour_memory()
    assert len(memory) == 3
    j = tagger.index.pos
    # ancestors are carried: a "ppo" paper also counts for policy-gradient and rl
    assert memory.labels[memory.row_of[RL_PAPER.id], j["rl"]] == 1

    query = PaperInput("q", GNN_PAPER.title, GNN_PAPER.abstract)
    feats = tagger.pair_features([query, GNN_PAPER], [["gnn", "diffusion"], ["gnn", "diffusion"]])
    # an unseen paper: both look-alike papers vote for gnn, one for diffusion
    assert feats[0]["gnn"]["knn_vote"] > feats[0]["diffusion"]["knn_vote"] > 0
    assert feats[0]["gnn"]["knn_sim"] > 0
    # a labelled paper is not its own neighbour, and its base rate comes from the other folds'
    # labelled papers (scaled to the whole memory), never from its own labels
    assert feats[1]["diffusion"]["knn_vote"] > 0  # from n2, not from itself
    from topics.tagger.memory import COUNT_FOLDS, fold_of

    own_fold = fold_of(GNN_PAPER.id, COUNT_FOLDS)
    others = [pid for pid in memory.ids if fold_of(pid, COUNT_FOLDS) != own_fold]
    gnn_others = sum(memory.labels[memory.row_of[pid], j["gnn"]] for pid in others)
    expected = np.log1p(gnn_others * COUNT_FOLDS / (COUNT_FOLDS - 1))
    assert feats[1]["gnn"]["base_rate"] == pytest.approx(expected, abs=1e-6)
    assert feats[0]["gnn"]["base_rate"] == pytest.approx(np.log1p(2), abs=1e-6)
    assert "diffusion" in tagger.candidate_slugs([query])[0]  # a kNN candidate
    # the labelled GNN papers name their topic, the one "diffusion" paper does not: a paper
    # that names no GNN phrase misses what most GNN papers say
    assert memory.named[memory.row_of[GNN_PAPER.id], j["gnn"]]
    plain = PaperInput("q2", "A study of networks", "We study some networks.")
    missing = tagger.pair_features([plain], [["gnn", "diffusion"]])[0]
    assert missing["gnn"]["phrase_missing"] == pytest.approx((2 + 1) / (2 + 2))
    assert missing["diffusion"]["phrase_missing"] == pytest.approx((0 + 1) / (1 + 2))
    assert feats[0]["gnn"]["phrase_missing"] == 0  # the query names it

    # no labelled papers, or knn_k 0: the kNN features are 0
    tagger.set_neighbours([])
    assert tagger.neighbour_memory() is None
    assert tagger.pair_features([query], [["gnn"]])[0]["gnn"]["knn_vote"] == 0
    assert tagger.set_neighbours(memory) == 3
    tagger.set_params(replace(params, candidates={**params.candidates, "knn_k": 0}))
    assert tagger.pair_features([query], [["gnn"]])[0]["gnn"]["knn_vote"] == 0


def test_shipped_labelled_papers_load_and_match_the_taxonomy():
    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import load_taxonomy_files
    from topics.tagger.engine import load_labelled_papers

    rows = load_labelled_papers()
    assert len(rows) >= 500
    slugs = {t.slug for t in load_taxonomy_files(TAXONOMY_DIR).topics}
    assert all(topics and set(topics) <= slugs for _, topics in rows)
    gold = set()
    from topics.evaluation import load_set

    gold = {p["id"] for p in load_set("gold").papers}
    assert not gold & {paper["id"] for paper, _ in rows}  # nothing from the gold set
    assert load_labelled_papers("/nonexistent/file.jsonl.gz") == []


def test_an_implied_ancestor_keeps_its_own_score_and_is_no_chip(tagger):
    """Issue 13: the parent a chip implies is scored by the model for itself, not lifted to its
    child's score, and it is not shown; the area never is."""
    tags = tagger.tag(RL_PAPER)
    own = tagger.own_scores([RL_PAPER])[0]

    for tag in tags:
        assert tag.score == pytest.approx(own.get(tag.slug, 0.0), abs=1e-4), tag.slug
    implied = [t for t in tags if t.implied]
    chips = [t for t in tags if t.shown]
    assert implied
    assert chips
    assert not any(t.shown for t in implied)
    assert chips[0].slug in {"policy-gradient", "ppo"}  # the most specific RL topics
    assert by_slug_score(tags, "rl") < chips[0].score  # the area's own, lower score


def by_slug_score(tags, slug: str) -> float:
    return next(t.score for t in tags if t.slug == slug)


def test_loose_phrase_matches_make_candidates_with_their_own_features(tagger):
    # "machine translation" in another order: no exact phrase of "mt", a reordered one.
    paper = PaperInput(
        "x-loose", "Translation by machine of rare languages", "We translate text.", ("cs.CL",)
    )
    feats = tagger.pair_features([paper], [["mt"]])[0]["mt"]
    assert feats["kw_any"] == 0.0
    assert feats["kw_reordered"] > 0.0
    assert "mt" in tagger.candidate_slugs([paper])[0]


TOKENIZER_CASES = [
    "Group Relative Policy Optimization (GRPO) for LLMs: a 3.5x speed-up, e.g. in Q-learning",
    "naïve Bayes — “quoted” 中文字符 e\u0301cole x\u200by a\tb\nc  d  ",  # accents, CJK, Cf, tabs
    "A" * 300 + " z",  # a word past WordPiece's 100 characters: one unknown token
    " ".join(["word"] * 700),  # past max_tokens: cut at the same token
    "",
    "\u2028x\u00a0y\u3000z ab\vcd ef\x1cgh \x85i",  # whitespace the two disagree on
]


def test_token_ids_from_remembered_chunks_equal_whole_text_tokenization():
    # token_ids tokenizes each space-separated chunk once; the ids must be those of the
    # tokenizer run on the whole text (truncated, unknown tokens left out), also once the
    # chunk cache is full and starts afresh.
    fresh = StaticEmbedder.load()
    tokenizer, unk = fresh.tokenizer, fresh._unk

    def whole(texts):
        tokenizer.enable_truncation(fresh.max_tokens)
        encodings = tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        return [[i for i in e.ids if i != unk] for e in encodings]

    expected = whole(TOKENIZER_CASES)
    assert fresh.token_ids(TOKENIZER_CASES) == expected
    assert fresh.token_ids(TOKENIZER_CASES) == expected  # from the cache alone
    assert len(expected[3]) == fresh.max_tokens
    import topics.tagger.embedding as embedding

    saved = embedding.CHUNK_CACHE
    embedding.CHUNK_CACHE = 5
    try:
        assert fresh.token_ids(TOKENIZER_CASES[:2]) == expected[:2]
        assert len(fresh._chunk_ids) <= 40  # cleared, then this batch's chunks only
    finally:
        embedding.CHUNK_CACHE = saved


def test_the_shipped_tagger_orders_each_papers_chips_by_the_chip_order_model(shipped_tagger):
    from topics.evaluation import load_set

    assert shipped_tagger.chip_order is not None  # model/chip_order.npz ships with the scorer
    papers = [PaperInput.coerce(p) for p in load_set("gold").papers[:40]]
    several = alone = 0
    held_back = 0
    for tags in shipped_tagger.tag_batch(papers):
        chips = [t for t in tags if t.shown]
        ordered = [t for t in tags if t.chip_order is not None]  # the chips it was asked about
        assert not any(t.implied for t in ordered)
        assert [t.rank for t in tags] == list(range(1, len(tags) + 1))
        if not ordered:  # no specific topic above the floor (a few gold papers): no chips,
            assert not chips  # at most an area, which is never a chip
            areas = {t.slug for t in shipped_tagger.topics if t.parent is None}
            assert {t.slug for t in tags} <= areas
            continue
        if len(ordered) == 1:  # a paper's only chip: the model's P(right) is its confidence
            assert chips == ordered
            assert chips[0].confidence == chips[0].chip_order != chips[0].score
            alone += 1
            continue
        several += 1
        orders = [t.chip_order for t in ordered]
        assert all(0 < o < 1 for o in orders)  # type: ignore[operator]
        assert orders == sorted(orders, reverse=True)  # the most likely right chip first
        # the first always a chip; after it only those the model finds likely (chips.py)
        assert chips == [ordered[0]] + [t for t in ordered[1:] if t.chip_order >= MIN_CHIP_ORDER]
        held_back += len(ordered) - len(chips)
    assert several >= 10
    assert alone >= 3
    assert held_back >= 1  # some papers have a chip the model holds back


def test_a_tagger_without_the_shipped_labels_keeps_chips_in_score_order(tagger):
    assert tagger.chip_order is None  # fitted for other chips: not used
    tags = tagger.tag(PaperInput(id="x", title="Policy gradient methods", abstract="PPO."))
    chips = [t for t in tags if t.shown]
    assert all(t.chip_order is None for t in tags)
    assert [t.score for t in chips] == sorted((t.score for t in chips), reverse=True)
