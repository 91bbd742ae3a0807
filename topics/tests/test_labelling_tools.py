"""The labelling tools' own rules (topics/tagger/tools): what a new batch's labels keep."""

import json

from topics.tagger import load_taxonomy_files
from topics.tagger.tools.add_labelled_batch import TAXONOMY_DIR, drop_implied

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


def test_validator_reads_the_listing_tree_and_flags_ancestors_and_areas(tmp_path):
    from topics.evaluation.labelling.validate import check
    from topics.tagger.tools.taxonomy_listing import listing

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    listed = tmp_path / "taxonomy.txt"
    listed.write_text("\n".join(listing(taxonomy.topics)) + "\n", encoding="utf-8")
    pool = tmp_path / "part.jsonl"
    pool.write_text('{"id": "a"}\n{"id": "b"}\n', encoding="utf-8")
    areas = {t.slug for t in taxonomy.topics if t.is_area}
    child = next(t for t in taxonomy.topics if t.parent and t.parent not in areas)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"id": "a", "topics": [child.slug], "acceptable": [], "note": "n"})
        + "\n"
        + json.dumps({"id": "b", "topics": [child.slug], "acceptable": [child.parent], "note": "n"})
        + "\n",
        encoding="utf-8",
    )
    done, total, problems = check(str(pool), str(labels), str(listed))
    assert (done, total) == (2, 2)
    assert problems == [f"line 2: ancestors of another listed topic: ['{child.parent}']"]
    labels.write_text(
        json.dumps({"id": "a", "topics": [child.area], "acceptable": [], "note": "n"}) + "\n",
        encoding="utf-8",
    )
    assert check(str(pool), str(labels), str(listed))[2] == [
        f"line 1: an area is never a clear topic: ['{child.area}']"
    ]
