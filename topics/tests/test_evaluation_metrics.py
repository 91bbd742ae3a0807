"""topics.evaluation.metrics on tiny hand-computed cases, and the label loader."""

from __future__ import annotations

import gzip
import json

import pytest

from topics.evaluation import load_set
from topics.evaluation.metrics import (
    PaperEval,
    Pred,
    ancestors,
    bootstrap_ci,
    candidate_recall,
    coverage,
    evaluate,
    example_f1,
    expand,
    expected_calibration_error,
    hierarchy_violations,
    lenient_precision,
    macro_f1,
    micro_f1_ci,
    micro_prf,
    per_topic,
    precision_at_k,
    precision_at_k_bound,
    recall_at_k,
    reliability,
    shown_precision_at_k,
    unknown_slugs,
)

# rl -> pg -> ppo, rl -> offline; ml -> gnn
PARENTS = {"rl": None, "pg": "rl", "ppo": "pg", "offline": "rl", "ml": None, "gnn": "ml"}


def test_expand_adds_ancestors_and_drops_unknown_slugs():
    assert ancestors("ppo", PARENTS) == ["pg", "rl"]
    assert ancestors("rl", PARENTS) == []
    assert expand(["ppo", "gnn"], PARENTS) == {"ppo", "pg", "rl", "gnn", "ml"}
    assert expand(["nope"], PARENTS) == set()
    assert unknown_slugs(["ppo", "nope", "gone"], PARENTS) == ["nope", "gone"]


def test_micro_macro_and_example_f1():
    gold = [{"a", "b"}, {"c"}]
    pred = [["a", "x"], ["c", "b"]]
    m = micro_prf(gold, pred)
    # tp = 1 + 1 = 2, predicted 4, gold 3
    assert m["precision"] == pytest.approx(0.5)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    # per paper: 2*1/(2+2) = 0.5 and 2*1/(1+2) = 2/3
    assert example_f1(gold, pred) == pytest.approx((0.5 + 2 / 3) / 2)
    assert example_f1([set()], [[]]) == 1.0
    table = per_topic(gold, pred)
    assert table["b"] == {
        "support": 1,
        "predicted": 1,
        "tp": 0,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
    }
    assert table["a"]["f1"] == 1.0
    assert table["x"]["support"] == 0
    # macro over topics with support >= 1: a (1.0), b (0.0), c (1.0)
    assert macro_f1(gold, pred, min_support=1) == (pytest.approx(2 / 3), 3)
    assert macro_f1(gold, pred, min_support=5) == (0.0, 0)


def test_lenient_precision_counts_acceptable_topics():
    gold = [{"a"}]
    acceptable = [{"b"}]
    assert lenient_precision(gold, acceptable, [["a", "b", "c", "d"]]) == pytest.approx(0.5)
    assert lenient_precision([set()], [set()], [[]]) == 0.0


def test_ranking_metrics():
    gold = [{"a", "b"}, {"c"}, set()]
    ranking = [["a", "x", "b", "y"], ["y", "c"], ["z"]]
    assert precision_at_k(gold, ranking, 1) == pytest.approx((1 + 0) / 2)
    assert precision_at_k(gold, ranking, 3) == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert recall_at_k(gold, ranking, 1) == pytest.approx((0.5 + 0) / 2)
    assert recall_at_k(gold, ranking, 5) == pytest.approx(1.0)
    # a short ranking is not padded: 1 right out of k = 3
    assert precision_at_k([{"a"}], [["a"]], 3) == pytest.approx(1 / 3)
    assert precision_at_k_bound([{"a"}, {"a", "b", "c", "d"}], 3) == pytest.approx((1 / 3 + 1) / 2)
    # shown tags: divide by min(k, shown)
    assert shown_precision_at_k([{"a"}, {"b"}], [["a"], ["x", "b", "y", "b2"]], 3) == (
        pytest.approx((1.0 + 1 / 3) / 2)
    )


def test_candidate_recall():
    gold = [{"a", "b"}, {"c"}, set()]
    cands = [["a", "q"], ["c"], ["z"]]
    r = candidate_recall(gold, cands)
    assert r["micro"] == pytest.approx(2 / 3)
    assert r["macro"] == pytest.approx((0.5 + 1.0) / 2)
    assert r["missed"] == 1


def test_coverage_counts_confident_tags_at_all_levels():
    tags = [
        [Pred("rl", 0.9), Pred("pg", 0.9), Pred("ppo", 0.9)],
        [Pred("rl", 0.9), Pred("pg", 0.4, True), Pred("ppo", 0.4, True)],
        [],
    ]
    assert coverage(tags) == pytest.approx(1 / 3)
    assert coverage(tags, min_tags=1) == pytest.approx(2 / 3)
    assert coverage([]) == 0.0


def test_expected_calibration_error_by_hand():
    # two bins (2 bins of width 0.5): [0.2, 0.4] -> mean 0.3, 1 of 2 right -> |0.3-0.5| = 0.2
    # [0.9, 0.9] -> mean 0.9, 2 of 2 right -> 0.1; weighted: 0.5*0.2 + 0.5*0.1 = 0.15
    scores = [0.2, 0.4, 0.9, 0.9]
    correct = [True, False, True, True]
    assert expected_calibration_error(scores, correct, bins=2) == pytest.approx(0.15)
    assert expected_calibration_error([1.0], [True], bins=15) == pytest.approx(0.0)
    assert expected_calibration_error([], []) == 0.0
    bands = reliability(scores, correct, edges=(0, 0.5))
    assert [b["n"] for b in bands] == [2, 2]
    assert bands[1]["accuracy"] == 1.0


def test_hierarchy_violations():
    ok = [Pred("ppo", 0.8), Pred("pg", 0.8), Pred("rl", 0.9)]
    assert hierarchy_violations(ok, PARENTS) == 0
    missing_parent = [Pred("ppo", 0.8), Pred("rl", 0.9)]  # pg absent
    assert hierarchy_violations(missing_parent, PARENTS) == 1
    # An implied parent carries its own score, which may be below its child's (issue 13).
    parent_lower = [Pred("pg", 0.8), Pred("rl", 0.5)]
    assert hierarchy_violations(parent_lower, PARENTS) == 0
    assert hierarchy_violations([Pred("unknown", 0.5)], PARENTS) == 0


def test_bootstrap_ci_brackets_the_statistic():
    gold = [{"a"}] * 10 + [{"b"}] * 10
    pred = [["a"]] * 10 + [["x"]] * 10  # micro-F1 0.5 overall
    lo, hi = micro_f1_ci(gold, pred, reps=200, seed=1)
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0
    assert lo < hi
    assert bootstrap_ci(5, lambda idx: 1.0, reps=10) == (1.0, 1.0)
    assert bootstrap_ci(0, lambda idx: 1.0) == (0.0, 0.0)


def test_evaluate_separates_areas_from_the_rest():
    papers = [
        PaperEval(
            id="1",
            gold=expand(["ppo"], PARENTS),  # ppo, pg, rl
            acceptable=expand(["offline"], PARENTS) - expand(["ppo"], PARENTS),
            tags=[Pred("ppo", 0.9), Pred("pg", 0.9), Pred("rl", 0.95), Pred("offline", 0.6)],
            ranking=["rl", "ppo", "pg", "offline", "gnn"],
            candidates=["rl", "ppo", "pg", "offline", "gnn", "ml"],
        ),
        PaperEval(
            id="2",
            gold=expand(["gnn"], PARENTS),  # gnn, ml
            tags=[Pred("ml", 0.7, True)],
            ranking=["ml", "ppo"],
            candidates=["ml", "ppo"],
        ),
    ]
    m = evaluate(papers, PARENTS, bootstrap_reps=50, table_min_support=1)
    na = m["non_area"]
    # non-area: gold {ppo, pg} + {gnn}; predicted {ppo, pg, offline} + {} -> tp 2
    assert (na["tp"], na["predicted"], na["gold"]) == (2, 3, 3)
    assert na["lenient_precision"] == pytest.approx(1.0)
    al = m["all_levels"]
    assert (al["tp"], al["predicted"], al["gold"]) == (4, 5, 5)
    # rankings without areas: [ppo, pg, offline, gnn] and [ppo]
    assert m["p_at_1"] == pytest.approx((1 + 0) / 2)
    assert m["r_at_5"] == pytest.approx((1.0 + 0.0) / 2)
    assert m["candidate_recall_at_50"]["micro"] == pytest.approx(2 / 3)  # gnn missed
    assert m["coverage"] == pytest.approx(0.5)
    assert m["hierarchy_violations"] == 0
    assert set(m["per_topic"]) == {"ppo", "pg", "gnn"}  # offline: no gold support
    assert 0.0 <= m["ece"] <= 1.0
    elo, ehi = m["ece_ci95"]
    assert 0.0 <= elo <= ehi <= 1.0
    lo, hi = na["micro_f1_ci95"]
    assert 0.0 <= lo <= hi <= 1.0


def test_the_shown_chips_calibration_reads_their_confidence_not_their_score():
    # Two chips scored 0.6: the right one's chip order says 1.0, the wrong one's 0.0. By score
    # they are off by 0.4 on average; by the confidence a reader sees, exactly right.
    papers = [
        PaperEval(
            id=str(n),
            gold=expand([gold], PARENTS),
            tags=[Pred("ppo", 0.6, shown=True, confidence=1.0 if gold == "ppo" else 0.0)],
            ranking=["ppo"],
            candidates=["ppo"],
        )
        for n, gold in enumerate(["ppo", "gnn"])
    ]
    m = evaluate(papers, PARENTS, bootstrap_reps=10)
    assert m["ece"] == pytest.approx(0.0)
    assert m["ece_chip_scores"] == pytest.approx(0.1)  # one bin: mean 0.6, half right
    assert [b["mean_score"] for b in m["reliability"]] == [0.0, 1.0]


def write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_manifest(folder, files: dict[str, str]) -> None:
    """files: path -> kind; the set is the first folder of the path."""
    entries = [{"file": f, "set": f.split("/")[0], "kind": k} for f, k in files.items()]
    (folder / "manifest.json").write_text(json.dumps({"files": entries}))


def test_load_set_merges_label_files_and_reports_unknown_slugs(tmp_path):
    write_jsonl(
        tmp_path / "gold/papers.jsonl",
        [{"id": "1", "title": "A"}, {"id": "2", "title": "B"}, {"id": "3", "title": "C"}],
    )
    write_jsonl(
        tmp_path / "gold/labels/a.jsonl",
        [
            {"id": "1", "topics": ["ppo"], "acceptable": ["offline"], "note": "x"},
            {"id": "2", "topics": ["gnn", "brand-new"], "acceptable": []},
        ],
    )
    write_jsonl(
        tmp_path / "gold/labels/pooled.jsonl",
        [
            {"id": "1", "topics": ["offline"], "acceptable": ["gnn"], "judged": ["x"]},
            {"id": "9", "topics": ["gnn"]},
        ],
    )
    write_manifest(
        tmp_path,
        {
            "gold/papers.jsonl": "papers",
            "gold/labels/a.jsonl": "labels",
            "gold/labels/pooled.jsonl": "labels",
        },
    )
    s = load_set("gold", tmp_path)
    assert [p["id"] for p in s.papers] == ["1", "2"]  # paper 3 is unlabelled
    assert s.label_files == ["gold/labels/a.jsonl", "gold/labels/pooled.jsonl"]
    assert (s.duplicate_ids, s.unlabelled, s.orphan_labels) == (1, 1, 1)
    assert s.labels["1"].topics == ["ppo", "offline"]
    assert s.labels["1"].acceptable == ["gnn"]  # offline became a topic
    gold, acceptable, unknown = s.gold(PARENTS)
    assert gold[0] == {"ppo", "pg", "rl", "offline"}
    assert acceptable[0] == {"gnn", "ml"}
    assert gold[1] == {"gnn", "ml"}
    assert unknown == ["brand-new"]
    with pytest.raises(ValueError, match="unknown set"):
        load_set("test", tmp_path)


def test_the_shipped_sets_load():
    gold, train = load_set("gold"), load_set("train")
    assert len(gold.papers) >= 300
    assert len(train.papers) >= 150
    assert not {p["id"] for p in gold.papers} & {p["id"] for p in train.papers}
    assert max(p["announced"] for p in train.papers) < min(p["announced"] for p in gold.papers)


def test_label_files_merge_by_paper_and_the_kinder_verdict_wins(tmp_path):
    from topics.evaluation import load_labels

    rows = {
        "gold/b.jsonl": [{"id": "1", "topics": ["ppo"], "acceptable": ["rl"], "note": "a"}],
        "gold/a.jsonl": [
            {"id": "1", "topics": ["dpo"], "acceptable": ["ppo"], "rejected": ["gan", "rl"]},
            {"id": "2", "topics": [], "acceptable": [], "rejected": ["gan"]},
        ],
    }
    for name, lines in rows.items():
        write_jsonl(tmp_path / name, lines)
    write_manifest(tmp_path, {"gold/b.jsonl": "labels", "gold/a.jsonl": "labels"})

    labels, files, duplicates = load_labels("gold", tmp_path)

    assert files == ["gold/b.jsonl", "gold/a.jsonl"]  # manifest order, not name order
    assert duplicates == 1
    first = labels["1"]
    assert first.topics == ["ppo", "dpo"]
    assert first.acceptable == ["rl"]  # ppo is clear elsewhere: clear wins over acceptable
    assert first.rejected == ["gan"]  # rl was found acceptable in another pass
    assert labels["2"].rejected == ["gan"]


def test_a_label_file_the_manifest_does_not_list_is_an_error(tmp_path):
    write_jsonl(tmp_path / "gold/papers.jsonl", [{"id": "1", "title": "A"}])
    write_jsonl(tmp_path / "gold/labels/a.jsonl", [{"id": "1", "topics": ["ppo"]}])
    write_jsonl(tmp_path / "gold/labels/forgotten.jsonl", [{"id": "1", "topics": ["gnn"]}])
    write_manifest(tmp_path, {"gold/papers.jsonl": "papers", "gold/labels/a.jsonl": "labels"})

    with pytest.raises(ValueError, match="does not list gold/labels/forgotten.jsonl"):
        load_set("gold", tmp_path)


def test_the_manifest_lists_every_shipped_file_with_its_line_count():
    from topics.evaluation import EVAL_DIR

    manifest = json.loads((EVAL_DIR / "manifest.json").read_text())
    on_disk = {p.relative_to(EVAL_DIR).as_posix() for p in EVAL_DIR.glob("*/*/*.jsonl")}
    on_disk |= {p.relative_to(EVAL_DIR).as_posix() for p in EVAL_DIR.glob("weak/*.jsonl.gz")}
    assert on_disk == {e["file"] for e in manifest["files"]}
    for entry in manifest["files"]:
        path = EVAL_DIR / entry["file"]
        text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else None
        lines = (text if text is not None else path.read_text()).count("\n")
        assert lines == entry["papers"], entry["file"]


def test_weak_labels_name_known_topics_and_never_a_judged_paper():
    from topics.evaluation import load_set, load_weak
    from topics.services.taxonomy import TAXONOMY_DIR
    from topics.tagger import load_taxonomy_files
    from topics.tagger.training.weak import weak_training

    rows, files = load_weak()
    assert files == ["weak/01-title-names-jan-may-2025.jsonl.gz"]
    judged = {p["id"] for name in ("train", "gold") for p in load_set(name).papers}
    assert not judged & {r["id"] for r in rows}
    assert all(r["announced"] < "2025-05-17" for r in rows)  # before the gold window
    topics = load_taxonomy_files(TAXONOMY_DIR).topics
    parents = {t.slug: t.parent for t in topics}
    assert all(r["topics"] and set(r["topics"]) <= parents.keys() for r in rows)
    # the labels a fit reads: each paper's topics with their ancestors, judged papers left out
    papers, y = weak_training(rows[:50], topics, parents, exclude={rows[0]["id"]})
    assert [p.id for p in papers] == [r["id"] for r in rows[1:50]]
    slug_col = {t.slug: j for j, t in enumerate(topics)}
    first = rows[1]["topics"][0]
    assert y[0, slug_col[first]]
    if parents[first]:
        assert y[0, slug_col[parents[first]]]
