"""The topic-audit table (``topics.tagger.tools.audit_pools table``): precision of a page's judged
papers, recall estimated from its pool, and the split by how page papers carry the topic."""

import json

from topics.tagger.inputs import Tag
from topics.tagger.tools.audit_pools import carried, table, unjudged


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def write_verdicts(path, pairs, yes):
    """One verdict line per (topic, id) pair: "yes" for the pairs in ``yes``."""
    write_jsonl(
        path,
        [{"topic": t, "id": i, "verdict": "yes" if (t, i) in yes else "no"} for t, i in pairs],
    )


def block(slug, page, pool, *, page_size, pool_size):
    papers = [{"id": i, "kind": "page", **({"carries": c} if c else {})} for i, c in page]
    papers += [{"id": i, "kind": "pool"} for i in pool]
    return {"topic": slug, "name": slug.title(), "page_size": page_size, "pool_size": pool_size,
            "papers": papers}  # fmt: skip


def test_carried_names_how_a_page_paper_has_the_topic():
    def tag(**flags):
        return Tag(slug="x", name="X", score=0.6, rank=1, **flags)

    assert carried(tag(shown=True)) == "chip"
    assert carried(tag(implied=True)) == "implied"
    assert carried(tag()) == "held back"


def test_table_reports_precision_recall_and_the_split_by_carries(tmp_path, capsys):
    pools, verdicts = tmp_path / "pools", tmp_path / "verdicts"
    pools.mkdir()
    verdicts.mkdir()
    write_jsonl(
        pools / "audit_01.jsonl",
        [
            block(
                "alpha",
                [("a1", "chip"), ("a2", "held back"), ("a3", "implied"), ("a4", "chip")],
                ["p1", "p2"],
                page_size=40,
                pool_size=10,
            ),
            block("beta", [("b1", "chip"), ("b2", "held back")], [], page_size=2, pool_size=0),
            block("gamma", [("c1", None)], ["q1"], page_size=1, pool_size=1),  # q1 unjudged
        ],
    )
    yes = {("alpha", "a1"), ("alpha", "a3"), ("alpha", "a4"), ("alpha", "p1"), ("beta", "b1")}
    pairs = [("alpha", i) for i in ("a1", "a2", "a3", "a4", "p1", "p2")]
    pairs += [("beta", "b1"), ("beta", "b2"), ("gamma", "c1")]
    write_verdicts(verdicts / "verdicts_01.jsonl", pairs, yes)
    table(pools, [verdicts])
    out = capsys.readouterr().out
    # alpha: 3 of 4 right; 30 right on the page of 40, pool half right -> 5 missed: 30 / 35
    assert "| Alpha | 40 | 4 | 0.75 | 10 | 2 | 0.50 | 0.86 |" in out
    assert "| Beta | 2 | 2 | 0.50 | 0 | 0 | 0.00 | 1.00 |" in out
    assert "Gamma" not in out  # a pool paper nobody judged: the topic is left out
    assert "2 topics judged; median precision 0.62" in out
    assert "chip 3 of 3 right (1.00); held back 0 of 2 right (0.00); implied 1 of 1 right" in out


def test_unjudged_keeps_only_new_pairs_and_hides_how_the_tagger_carries_them():
    blocks = [
        block("alpha", [("a1", "chip"), ("a2", "held back")], ["p1"], page_size=2, pool_size=1),
        block("beta", [("b1", "implied")], [], page_size=1, pool_size=0),
    ]
    blocks[0]["papers"][1]["score"] = 0.41  # the tagger's score: the judges must not see it
    todo = unjudged(blocks, {("alpha", "a1"), ("beta", "b1")})
    assert [b["topic"] for b in todo] == ["alpha"]  # beta: nothing left to judge
    assert todo[0]["papers"] == [{"id": "a2", "kind": "page"}, {"id": "p1", "kind": "pool"}]
    assert blocks[0]["papers"][1]["carries"] == "held back"  # the record keeps it
    assert blocks[0]["papers"][1]["score"] == 0.41


def test_table_measures_pages_without_the_held_back_tags_below_a_score(tmp_path, capsys):
    pools, verdicts = tmp_path / "pools", tmp_path / "verdicts"
    pools.mkdir()
    verdicts.mkdir()
    alpha = block("alpha", [("a1", "chip"), ("a2", "held back"), ("a3", "held back")], [],
                  page_size=30, pool_size=0)  # fmt: skip
    delta = block("delta", [("d1", "chip"), ("d2", "held back")], ["p1"], page_size=10,
                  pool_size=4)  # fmt: skip
    for b, scores in ((alpha, [0.9, 0.4, 0.7]), (delta, [0.8, 0.3])):
        for paper, score in zip(b["papers"], scores, strict=False):
            paper["score"] = score
    write_jsonl(pools / "audit_01.jsonl", [alpha, delta])
    yes = {("alpha", "a1"), ("alpha", "a3"), ("delta", "d1"), ("delta", "d2")}
    pairs = [("alpha", "a1"), ("alpha", "a2"), ("alpha", "a3"), ("delta", "d1"), ("delta", "d2")]
    pairs += [("delta", "p1")]
    write_verdicts(verdicts / "verdicts_01.jsonl", pairs, yes)
    table(pools, [verdicts])
    every = capsys.readouterr().out
    assert "| Alpha | 30 | 3 | 0.67 | 0 | 0 | 0.00 | 1.00 |" in every
    assert "| Delta | 10 | 2 | 1.00 | 4 | 1 | 0.00 | 1.00 |" in every

    table(pools, [verdicts], held_back_below=0.5)
    rule = capsys.readouterr().out
    # alpha: a2 (wrong, 0.4) leaves, a3 (0.7) stays: 2 of 2 right on a page of 20
    assert "| Alpha | 20 | 2 | 1.00 | 0 | 0 | 0.00 | 1.00 |" in rule
    # delta: d2 was right and leaves: 5 right on the page, 5 more missed -> recall 0.50
    assert "| Delta | 5 | 1 | 1.00 | 4 | 1 | 0.00 | 0.50 |" in rule
