"""load_taxonomy_files: every validation error names the file and the slug."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from topics.tagger.taxonomy import (
    TaxonomyError,
    TopicSpec,
    check_topic_specs,
    load_taxonomy_files,
)

REPO_TAXONOMY = Path(__file__).resolve().parents[1] / "taxonomy"
NAMES_FILE = Path(__file__).resolve().parent / "fixtures" / "topics_md_names.txt"


def area(slug="rl", **extra):
    return {
        "slug": slug,
        "code": slug.upper()[:4],
        "name": f"Area {slug}",
        "description": "What it studies. How. Where evaluated.",
        "aliases": [],
        "keywords": [f"{slug} keyword"],
        "categories": ["cs.LG"],
        **extra,
    }


def topic(slug, parent="rl", **extra):
    return {
        "slug": slug,
        "name": extra.pop("name", f"Topic {slug}"),
        "parent": parent,
        "description": f"About {slug}.",
        "aliases": [],
        "keywords": [],
        "categories": ["cs.LG"],
        **extra,
    }


def write(folder: Path, files: dict[str, dict], version: str | None = "3") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if version is not None:
        (folder / "VERSION").write_text(version + "\n")
    for name, data in files.items():
        (folder / name).write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def load_error(tmp_path, files, version="3") -> str:
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy_files(write(tmp_path / "tax", files, version))
    return str(info.value)


def test_it_loads_areas_and_topics_with_depth_area_and_position(tmp_path):
    files = {
        "a.yaml": {"area": area("rl"), "topics": [topic("pg"), topic("ppo", parent="pg")]},
        "b.yaml": {"area": area("ml"), "topics": [topic("gnn", parent="ml")]},
    }
    tax = load_taxonomy_files(write(tmp_path / "tax", files))
    assert tax.version == "3"
    assert [t.slug for t in tax] == ["rl", "pg", "ppo", "ml", "gnn"]
    ppo = tax["ppo"]
    assert (ppo.parent, ppo.area, ppo.depth, ppo.position) == ("pg", "rl", 2, 2)
    assert tax["rl"].is_area
    assert tax["rl"].code == "RL"
    assert tax["rl"].parent is None
    assert [a.slug for a in tax.areas] == ["rl", "ml"]
    assert [t.slug for t in tax.ancestors("ppo")] == ["pg", "rl"]
    assert isinstance(ppo.keywords, tuple)
    assert isinstance(ppo, TopicSpec)


def test_it_requires_a_version_file(tmp_path):
    assert "VERSION" in load_error(tmp_path, {"a.yaml": {"area": area()}}, version=None)


def test_it_reports_invalid_yaml_with_the_file(tmp_path):
    folder = write(tmp_path / "tax", {})
    (folder / "bad.yaml").write_text("area: [unclosed\n")
    with pytest.raises(TaxonomyError, match=r"bad\.yaml: invalid YAML"):
        load_taxonomy_files(folder)


@pytest.mark.parametrize("field", ["name", "description", "parent"])
def test_it_reports_a_missing_required_field_with_file_and_slug(tmp_path, field):
    bad = topic("pg")
    del bad[field]
    message = load_error(tmp_path, {"a.yaml": {"area": area(), "topics": [bad]}})
    assert message.startswith("a.yaml: pg:")
    assert f"'{field}'" in message


def test_an_area_needs_a_code(tmp_path):
    bad = area()
    del bad["code"]
    assert "a.yaml: rl: missing required field 'code'" in load_error(
        tmp_path, {"a.yaml": {"area": bad}}
    )


@pytest.mark.parametrize(
    "slug", ["Policy-Gradient", "policy_gradient", "pg-", "-pg", "p g", "a--b"]
)
def test_it_rejects_slugs_outside_the_pattern(tmp_path, slug):
    message = load_error(tmp_path, {"a.yaml": {"area": area(), "topics": [topic(slug)]}})
    assert f"a.yaml: {slug}: slug must be" in message


def test_it_rejects_a_duplicate_slug_in_one_file(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("pg"), topic("pg", name="Other")]}}
    assert "a.yaml: pg: duplicate slug" in load_error(tmp_path, files)


def test_it_rejects_a_duplicate_slug_across_files(tmp_path):
    files = {
        "a.yaml": {"area": area("rl"), "topics": [topic("pg")]},
        "b.yaml": {"area": area("ml"), "topics": [topic("pg", parent="ml", name="Other")]},
    }
    assert "b.yaml: pg: duplicate slug (also in a.yaml)" in load_error(tmp_path, files)


def test_it_rejects_a_duplicate_display_name(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("pg"), topic("pg2", name="Topic pg")]}}
    assert "a.yaml: pg2: duplicate name 'Topic pg'" in load_error(tmp_path, files)


def test_it_rejects_a_parent_that_does_not_exist(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("pg", parent="nope")]}}
    message = load_error(tmp_path, files)
    assert "a.yaml: pg: parent 'nope' must be the area's slug or a topic of this file" in message


def test_it_rejects_a_parent_that_comes_after_its_child(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("ppo", parent="pg"), topic("pg")]}}
    assert "a.yaml: ppo: parent 'pg' must come before its children" in load_error(tmp_path, files)


def test_it_rejects_a_parent_in_another_file(tmp_path):
    files = {
        "a.yaml": {"area": area("rl"), "topics": [topic("pg")]},
        "b.yaml": {"area": area("ml"), "topics": [topic("gnn", parent="pg")]},
    }
    assert "b.yaml: gnn: parent 'pg'" in load_error(tmp_path, files)


def test_it_rejects_cycles(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("pg", parent="pg")]}}
    assert "a.yaml: pg: a topic cannot be its own parent (cycle)" in load_error(tmp_path, files)
    # A longer cycle cannot be written at all: a parent must come first, so one link is "later".
    files = {"a.yaml": {"area": area(), "topics": [topic("x", parent="y"), topic("y", parent="x")]}}
    assert "a.yaml: x: parent 'y' must come before its children" in load_error(tmp_path, files)


def test_it_rejects_unknown_fields_and_bad_types(tmp_path):
    files = {"a.yaml": {"area": area(), "topics": [topic("pg", keyowrds=["x"])]}}
    assert "a.yaml: pg: unknown field(s) keyowrds" in load_error(tmp_path, files)
    files = {"a.yaml": {"area": area(), "topics": [topic("pg", keywords="policy gradient")]}}
    assert "a.yaml: pg: 'keywords' must be a list" in load_error(tmp_path, files)
    files = {"a.yaml": {"area": area(), "topics": [topic("pg", categories=["machine learning"])]}}
    assert "is not an arXiv category" in load_error(tmp_path, files)
    files = {"a.yaml": {"topics": []}}
    assert "a.yaml: expected a mapping with 'area' and 'topics'" in load_error(tmp_path, files)


def test_check_topic_specs_validates_rows_built_elsewhere():
    rl = TopicSpec("rl", "RL", area="rl")
    pg = TopicSpec("pg", "PG", parent="rl", area="rl", depth=1)
    check_topic_specs([rl, pg])
    with pytest.raises(TaxonomyError, match="pg: parent 'rl' is missing"):
        check_topic_specs([pg, rl])
    with pytest.raises(TaxonomyError, match="rl: duplicate slug"):
        check_topic_specs([rl, rl])


def test_the_repository_taxonomy_is_valid_and_large_enough():
    tax = load_taxonomy_files(REPO_TAXONOMY)
    assert len(tax) >= 400
    assert all(t.description for t in tax)


def test_the_repository_taxonomy_has_every_name_users_know():
    names = {t.name for t in load_taxonomy_files(REPO_TAXONOMY)}
    wanted = [
        line.strip()
        for line in NAMES_FILE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(wanted) == 84
    missing = [name for name in wanted if name not in names]
    assert not missing, f"missing from topics/taxonomy: {missing}"
