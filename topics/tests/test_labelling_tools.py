"""The labelling tools' own rules (topics/tagger/tools): what a new batch's labels keep."""

import json
import shutil
from pathlib import Path

from topics.tagger import load_taxonomy_files
from topics.tagger.tools.add_labelled_batch import TAXONOMY_DIR, drop_implied
from topics.tagger.tools.parts import write_parts
from topics.tagger.tools.rss_corpus import read_file
from topics.tagger.tools.sample_for_labelling import crc, gold_batch, known_names

FIXTURES = Path(__file__).resolve().parent / "fixtures"
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


def test_known_names_reads_the_whole_wrapped_list_and_none_of_the_prose(tmp_path):
    """TOPICS.md's prose has commas on several lines, and its list's last line has only one
    ("World Model Learning, World Models"): every listed name is read, nothing else."""
    names = (FIXTURES / "topics_md_names.txt").read_text(encoding="utf-8").split("\n")
    names = [n for n in names if n and not n.startswith("#")]
    listing = ", ".join(names)
    lines, line = [], ""
    for word in listing.split(" "):  # wrapped at 100 columns, as the real file is
        if line and len(line) + 1 + len(word) > 100:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    assert lines[-1].count(",") < 3  # the case the parser once dropped
    prose = (
        "# Topic names users already know\n\n"
        "The taxonomy must contain every topic below, under exactly these display names (slugs\n"
        "are yours to choose), placed in a sensible hierarchy, each with its own description,\n"
        "aliases and keywords, so that these names compete with many others, always.\n\n"
    )
    path = tmp_path / "TOPICS.md"
    path.write_text(prose + "\n".join(lines) + "\n", encoding="utf-8")

    assert known_names(path) == set(names)


def test_a_gold_batch_is_blind_random_and_from_the_gold_window_only(tmp_path):
    """``sample_for_labelling --gold``: cs.LG-primary ``new`` announcements of the gold window in
    no labelled set, in crc32 order of the id, with no tagger candidates for the judge."""
    sample = Path(__file__).resolve().parents[2] / "data" / "sample" / "rss"
    # A paper is announced the day before its capture file's date: 05-16 (before the window),
    # 05-20 (inside), and a real day's file renamed to 06-29, announced after the window's end.
    shutil.copy(sample / "2025-05-17-cs-lg.xml.gz", tmp_path / "2025-05-17-cs-lg.xml.gz")
    shutil.copy(sample / "2025-05-21-cs-lg.xml.gz", tmp_path / "2025-05-21-cs-lg.xml.gz")
    shutil.copy(sample / "2025-05-16-cs-lg.xml.gz", tmp_path / "2025-06-29-cs-lg.xml.gz")
    in_window = [p for p in read_file(tmp_path / "2025-05-21-cs-lg.xml.gz")]
    eligible = [p for p in in_window if p.announce_type == "new" and p.categories[0] == "cs.LG"]
    taken = {eligible[0].id}

    rows = gold_batch(tmp_path, taken, count=len(eligible))

    ids = [r["id"] for r in rows]
    assert set(ids) == {p.id for p in eligible} - taken
    assert ids == sorted(ids, key=crc)
    assert {r["announced"] for r in rows} == {"2025-05-20"}
    assert all(r["candidates"] == [] and r["drawn_for"] == "gold:crc32" for r in rows)
    assert [r["id"] for r in gold_batch(tmp_path, taken, count=3)] == ids[:3]


def test_write_parts_splits_rows_in_order_over_named_files(tmp_path):
    """The judges' files of every tool: ``parts`` files, rows in order, the last ones shorter."""
    rows = [{"id": str(i)} for i in range(7)]
    write_parts(rows, tmp_path / "out", 3, "audit_{n:02d}.jsonl")

    files = sorted((tmp_path / "out").iterdir())
    assert [f.name for f in files] == ["audit_01.jsonl", "audit_02.jsonl", "audit_03.jsonl"]
    read = [[json.loads(line)["id"] for line in f.read_text().splitlines()] for f in files]
    assert read == [["0", "1", "2"], ["3", "4", "5"], ["6"]]
