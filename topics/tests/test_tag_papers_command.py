"""manage.py tag_papers: offline JSONL in and out (no database papers needed), and tagging the
stored papers: the untagged ones, or all of them again with --all."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic
from topics.tests.learning_setup import GNN_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db


def write_lines(path, rows) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def test_offline_tagging_writes_ranked_tags_with_evidence_per_input_line(topics, tmp_path):
    source, target = tmp_path / "papers.jsonl", tmp_path / "tags.jsonl"
    ppo_title, ppo_abstract = PPO_PAPER
    write_lines(
        source,
        [
            {"id": "a", "title": ppo_title, "abstract": ppo_abstract, "categories": ["cs.LG"]},
            {"id": "b", "title": GNN_PAPER[0]},  # only a title
            {"id": "c", "title": ""},  # nothing to go on
        ],
    )

    call_command("tag_papers", "--input", str(source), "--output", str(target))

    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["a", "b", "c"]
    first = lines[0]["tags"]
    assert "proximal-policy-optimization" in [t["slug"] for t in first]
    fields = {"slug", "name", "score", "confidence", "shown", "implied", "evidence"}
    assert all(fields <= set(t) for t in first)
    scores = [t["score"] for t in first] + [t["confidence"] for t in first]
    assert all(0 <= s <= 1 for s in scores)
    # A tag the chip-order model did not rank (an implied parent) shows its own score.
    assert all(t["confidence"] == t["score"] for t in first if t["implied"])
    # Display order: the chips first; no area (here "rl") is ever one; the parents they imply
    # are there, marked implied and not shown.
    shown = [t["shown"] for t in first]
    assert shown == sorted(shown, reverse=True)
    assert shown[0]
    by_slug = {t["slug"]: t for t in first}
    assert by_slug["proximal-policy-optimization"]["shown"]
    assert (by_slug["rl"]["shown"], by_slug["rl"]["implied"]) == (False, True)
    assert lines[1]["tags"]  # a title alone is enough
    assert lines[2]["tags"] == []  # an empty title: an empty list, not an error
    assert not Paper.objects.exists()  # offline: nothing stored


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("{not json", "papers.jsonl:2: not JSON"),
        (json.dumps({"id": "x", "abstract": "no title"}), "papers.jsonl:2: each line needs"),
        (json.dumps(["a", "list"]), "papers.jsonl:2: each line needs"),
    ],
)
def test_a_bad_input_line_is_named_and_nothing_is_written(topics, tmp_path, bad_line, message):
    source, target = tmp_path / "papers.jsonl", tmp_path / "tags.jsonl"
    write_lines(source, [{"id": "a", "title": "Fine"}, bad_line])

    with pytest.raises(CommandError, match=message):
        call_command("tag_papers", "--input", str(source), "--output", str(target))

    assert not target.exists()


def test_a_missing_input_file_is_a_clear_error(topics, tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("tag_papers", "--input", str(tmp_path / "absent.jsonl"))


def test_without_input_it_tags_the_untagged_papers_and_with_all_every_paper(topics):
    tagged, untagged = (
        paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]),
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
    )
    call_command("tag_papers", "--all")  # both get tags
    PaperTopic.objects.filter(paper=untagged).delete()
    Paper.objects.filter(id=untagged.id).update(tagged_at=None)
    before = Paper.objects.get(id=tagged.id).tagged_at

    call_command("tag_papers")

    assert PaperTopic.objects.filter(paper=untagged).exists()
    assert Paper.objects.get(id=tagged.id).tagged_at == before  # left alone

    call_command("tag_papers", "--all")

    assert Paper.objects.get(id=tagged.id).tagged_at > before  # tagged again
    assert PaperTopic.objects.filter(paper=tagged).exists()


def test_all_does_not_go_with_input(topics, tmp_path):
    source = tmp_path / "papers.jsonl"
    write_lines(source, [{"id": "a", "title": "Fine"}])
    with pytest.raises(CommandError, match="--all"):
        call_command("tag_papers", "--input", str(source), "--all")
