"""taxonomy_load: the Topic table follows the YAML files; slugs keep follows and tags."""

from __future__ import annotations

from datetime import date

import pytest
import yaml
from django.core.management import call_command

from papers.models import Paper
from topics.models import PaperTopic, Topic
from topics.services.taxonomy import TAXONOMY_DIR, taxonomy_load
from topics.tagger.taxonomy import load_taxonomy_files

pytestmark = pytest.mark.django_db


def write_taxonomy(folder, topics, version="7"):
    write_files(folder, topics, version)
    return load_taxonomy_files(folder)


def write_files(folder, topics, version="7"):
    folder.mkdir(exist_ok=True)
    (folder / "VERSION").write_text(version)
    area = {
        "slug": "rl",
        "code": "RL",
        "name": "Reinforcement Learning",
        "description": "Learning to act. Agents. Rewards.",
        "keywords": ["reinforcement learning"],
    }
    (folder / "rl.yaml").write_text(yaml.safe_dump({"area": area, "topics": topics}))


def topic(slug, name, parent="rl", **extra):
    return {"slug": slug, "name": name, "parent": parent, "description": f"{name}. A. B.", **extra}


def test_the_repository_taxonomy_loads_and_a_second_load_changes_nothing(capsys):
    call_command("load_taxonomy")
    first = capsys.readouterr().out
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    assert f"created {len(taxonomy.topics)}" in first
    assert Topic.objects.count() >= 400
    rows = list(Topic.objects.order_by("slug").values())
    call_command("load_taxonomy")
    assert f"unchanged {len(taxonomy.topics)}, retired 0" in capsys.readouterr().out
    assert list(Topic.objects.order_by("slug").values()) == rows


def test_areas_point_at_themselves_and_topics_at_their_area(tmp_path):
    taxonomy = write_taxonomy(
        tmp_path / "t",
        [
            topic("policy-gradient", "Policy Gradient"),
            topic("grpo", "GRPO", parent="policy-gradient"),
        ],
    )
    taxonomy_load(taxonomy=taxonomy)
    area = Topic.objects.get(slug="rl")
    grpo = Topic.objects.get(slug="grpo")
    assert area.area_id == area.id
    assert area.area_label == "RL: Reinforcement Learning"
    assert (grpo.area_id, grpo.parent.slug, grpo.depth) == (area.id, "policy-gradient", 2)
    assert grpo.taxonomy_version == "7"


def test_a_rename_and_a_move_keep_the_topic_and_its_tags(tmp_path):
    folder = tmp_path / "t"
    taxonomy_load(
        taxonomy=write_taxonomy(
            folder, [topic("policy-gradient", "Policy Gradient"), topic("grpo", "GRPO")]
        )
    )
    grpo = Topic.objects.get(slug="grpo")
    paper = Paper.objects.create(arxiv_id="2501.00001", title="t", announced=date(2025, 1, 6))
    PaperTopic.objects.create(paper=paper, topic=grpo, score=0.9, rank=1)
    result = taxonomy_load(
        taxonomy=write_taxonomy(
            folder,
            [
                topic("policy-gradient", "Policy Gradient"),
                topic("grpo", "Group Relative Policy Optimization", parent="policy-gradient"),
            ],
            version="8",
        )
    )
    assert result.updated >= 1
    moved = Topic.objects.get(slug="grpo")
    assert moved.id == grpo.id
    assert (moved.name, moved.parent.slug) == (
        "Group Relative Policy Optimization",
        "policy-gradient",
    )
    assert PaperTopic.objects.get().topic_id == grpo.id


def test_a_removed_topic_is_retired_not_deleted_and_comes_back_when_restored(tmp_path):
    folder = tmp_path / "t"
    both = [topic("policy-gradient", "Policy Gradient"), topic("grpo", "GRPO")]
    taxonomy_load(taxonomy=write_taxonomy(folder, both))
    result = taxonomy_load(taxonomy=write_taxonomy(folder, both[:1]))
    assert result.retired == 1
    assert Topic.objects.get(slug="grpo").active is False
    taxonomy_load(taxonomy=write_taxonomy(folder, both))
    assert Topic.objects.get(slug="grpo").active is True


def test_a_broken_taxonomy_file_stops_the_command_and_writes_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "t"
    write_files(folder, [topic("grpo", "GRPO", parent="no-such-parent")])
    from django.core.management.base import CommandError

    import topics.services.taxonomy as service

    monkeypatch.setattr(service, "TAXONOMY_DIR", folder)
    with pytest.raises(CommandError, match="no-such-parent"):
        call_command("load_taxonomy")
    assert Topic.objects.count() == 0


def test_a_topic_accepted_from_a_proposal_survives_a_reload(tmp_path):
    from topics.services.proposals import PROPOSAL_TAXONOMY_VERSION

    folder = tmp_path / "t"
    taxonomy_load(taxonomy=write_taxonomy(folder, [topic("grpo", "GRPO")]))
    Topic.objects.create(
        slug="quantum-sea-ice",
        name="Quantum Sea-Ice Widgets",
        parent=Topic.objects.get(slug="rl"),
        area=Topic.objects.get(slug="rl"),
        depth=1,
        taxonomy_version=PROPOSAL_TAXONOMY_VERSION,
    )
    result = taxonomy_load(taxonomy=write_taxonomy(folder, [topic("grpo", "GRPO")]))
    assert result.retired == 0
    assert Topic.objects.get(slug="quantum-sea-ice").active is True
