"""What the encoder's fine-tuning pulls a paper towards (topics/tagger/tools/finetune_encoder.py
``paper_targets``): every topic that applies, or only the ones it is filed under."""

from topics.tagger.tools.finetune_encoder import paper_targets

# area "ml" (no column) > rl > agentic-rl > rl-for-tool-use; rl > policy-gradient
PARENTS = {
    "ml": None,
    "rl": "ml",
    "agentic-rl": "rl",
    "rl-for-tool-use": "agentic-rl",
    "policy-gradient": "rl",
    "tool-use": "ml",
}
COLUMN = {s: j for j, s in enumerate(s for s, p in PARENTS.items() if p is not None)}


def names(columns):
    slug = {j: s for s, j in COLUMN.items()}
    return {slug[j] for j in columns}


def test_all_pulls_towards_the_clear_topics_and_their_ancestors_and_masks_acceptable_ones():
    pos, masked = paper_targets(["rl-for-tool-use"], ["policy-gradient"], PARENTS, COLUMN, "all")
    assert names(pos) == {"rl-for-tool-use", "agentic-rl", "rl"}
    assert names(masked) == {"policy-gradient"}


def test_clear_pulls_towards_the_clear_topics_only_and_leaves_acceptable_ones_negative():
    pos, masked = paper_targets(
        ["rl-for-tool-use"], ["policy-gradient", "tool-use"], PARENTS, COLUMN, "clear"
    )
    assert names(pos) == {"rl-for-tool-use"}
    assert names(masked) == {"agentic-rl", "rl"}  # implied ancestors: never a chip
    assert not names(pos | masked) & {"policy-gradient", "tool-use"}  # negatives


def test_an_area_is_never_a_target():
    pos, masked = paper_targets(["ml"], [], PARENTS, COLUMN, "clear")
    assert not pos
    assert not masked
