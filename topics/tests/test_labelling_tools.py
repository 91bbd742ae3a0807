"""The labelling tools' own rules (topics/tagger/tools): what a new batch's labels keep."""

from topics.tagger.tools.add_labelled_batch import drop_implied

PARENTS = {"rl": None, "policy-learning": "rl", "policy-gradient": "policy-learning", "mbrl": "rl"}


def test_drop_implied_removes_ancestors_of_clear_topics_from_both_lists():
    row = {
        "id": "2501.00001",
        "topics": ["policy-gradient", "policy-learning"],
        "acceptable": ["rl", "mbrl", "policy-gradient"],
        "note": "",
    }
    label, clear, acceptable = drop_implied(row, PARENTS)
    assert label["topics"] == ["policy-gradient"]  # its parent is implied
    assert label["acceptable"] == ["mbrl"]  # an ancestor and a clear topic are not acceptable
    assert (clear, acceptable) == (1, 2)
    assert label["id"] == "2501.00001"


def test_drop_implied_keeps_a_label_without_ancestors_as_it_is():
    row = {"id": "x", "topics": ["mbrl"], "acceptable": ["policy-learning"], "note": "n"}
    assert drop_implied(row, PARENTS) == (row, 0, 0)
