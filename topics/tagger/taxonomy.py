"""Load and validate the topic taxonomy files (topics/taxonomy/*.yaml + VERSION).

Pure Python (PyYAML only). The format is described in topics/taxonomy/README.md: one file per
area, an ``area`` mapping and a ``topics`` list where parents come before their children.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CATEGORY_RE = re.compile(r"^[a-z][a-z-]*(?:\.[A-Za-z][A-Za-z-]*)?$")
AREA_FIELDS = {"slug", "code", "name", "description", "aliases", "keywords", "categories"}
TOPIC_FIELDS = {"slug", "name", "parent", "description", "aliases", "keywords", "categories"}
LIST_FIELDS = ("aliases", "keywords", "categories")

try:  # the libyaml loader is ~10x faster; fall back to the pure-Python one
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class TaxonomyError(ValueError):
    """A taxonomy file is malformed; the message names the file and the slug."""


@dataclass(frozen=True)
class TopicSpec:
    """One node of the topic tree, independent of Django (built from files or from DB rows)."""

    slug: str
    name: str
    parent: str | None = None  # None for an area (a root)
    area: str = ""  # slug of the root of this topic's tree (itself for an area)
    depth: int = 0
    code: str = ""  # areas only, e.g. "RL"
    description: str = ""
    aliases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    position: int = 0

    @property
    def is_area(self) -> bool:
        return self.parent is None


@dataclass(frozen=True)
class Taxonomy:
    version: str
    topics: tuple[TopicSpec, ...]
    files: tuple[str, ...] = ()
    _by_slug: dict[str, TopicSpec] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_slug.update({t.slug: t for t in self.topics})

    def __len__(self) -> int:
        return len(self.topics)

    def __iter__(self) -> Iterator[TopicSpec]:
        return iter(self.topics)

    def __contains__(self, slug: object) -> bool:
        return slug in self._by_slug

    def get(self, slug: str) -> TopicSpec | None:
        return self._by_slug.get(slug)

    def __getitem__(self, slug: str) -> TopicSpec:
        return self._by_slug[slug]

    @property
    def areas(self) -> list[TopicSpec]:
        return [t for t in self.topics if t.is_area]

    def children(self, slug: str) -> list[TopicSpec]:
        return [t for t in self.topics if t.parent == slug]

    def ancestors(self, slug: str) -> list[TopicSpec]:
        """Parent first, area last."""
        out = []
        topic = self._by_slug[slug]
        while topic.parent is not None:
            topic = self._by_slug[topic.parent]
            out.append(topic)
        return out


def _err(file: str, slug: str | None, message: str) -> TaxonomyError:
    where = f"{file}: {slug}" if slug else file
    return TaxonomyError(f"{where}: {message}")


def _clean_list(value: Any, file: str, slug: str, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _err(file, slug, f"'{name}' must be a list of strings, got {type(value).__name__}")
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise _err(file, slug, f"'{name}' must contain only strings, got {item!r}")
        text = " ".join(str(item).split())
        if text and text not in out:
            out.append(text)
    return tuple(out)


def _entry(raw: Any, file: str, index: str, *, is_area: bool) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _err(file, index, f"expected a mapping, got {type(raw).__name__}")
    slug = raw.get("slug")
    if not isinstance(slug, str) or not slug:
        raise _err(file, index, "missing required field 'slug'")
    if not SLUG_RE.match(slug):
        raise _err(file, slug, "slug must be lowercase letters, digits and single hyphens")
    allowed = AREA_FIELDS if is_area else TOPIC_FIELDS
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise _err(file, slug, f"unknown field(s) {', '.join(unknown)}")
    required = ["name", "description"] + (["code"] if is_area else ["parent"])
    for name in required:
        value = raw.get(name)
        if not isinstance(value, str) or not value.strip():
            raise _err(file, slug, f"missing required field '{name}'")
    entry = {
        "slug": slug,
        "name": " ".join(raw["name"].split()),
        "description": " ".join(raw["description"].split()),
        "code": raw.get("code", "").strip() if is_area else "",
        "parent": None if is_area else raw["parent"].strip(),
    }
    for name in LIST_FIELDS:
        entry[name] = _clean_list(raw.get(name), file, slug, name)
    for cat in entry["categories"] or ():
        if not CATEGORY_RE.match(cat):
            raise _err(file, slug, f"'{cat}' is not an arXiv category such as cs.LG")
    return entry


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - safe loader
    except yaml.YAMLError as exc:
        raise _err(path.name, None, f"invalid YAML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise _err(path.name, None, f"cannot read: {exc}") from exc


def parse_taxonomy_file(path: Path) -> list[dict[str, Any]]:
    """The validated entries of one area file (area first), without cross-file checks."""
    file = path.name
    data = _read_yaml(path)
    if not isinstance(data, dict) or "area" not in data:
        raise _err(file, None, "expected a mapping with 'area' and 'topics'")
    unknown = sorted(set(data) - {"area", "topics"})
    if unknown:
        raise _err(file, None, f"unknown top-level key(s) {', '.join(unknown)}")
    area = _entry(data["area"], file, "area", is_area=True)
    topics = data.get("topics") or []
    if not isinstance(topics, list):
        raise _err(file, area["slug"], "'topics' must be a list")
    entries = [area]
    seen = {area["slug"]}
    for i, raw in enumerate(topics):
        entry = _entry(raw, file, f"topics[{i}]", is_area=False)
        slug, parent = entry["slug"], entry["parent"]
        if slug in seen:
            raise _err(file, slug, "duplicate slug")
        if parent == slug:
            raise _err(file, slug, "a topic cannot be its own parent (cycle)")
        if parent not in seen:
            later = any(isinstance(t, dict) and t.get("slug") == parent for t in topics[i + 1 :])
            hint = (
                "must come before its children"
                if later
                else "must be the area's slug or a topic of this file"
            )
            raise _err(file, slug, f"parent '{parent}' {hint}")
        seen.add(slug)
        entries.append(entry)
    return entries


def build_topic_specs(
    entries_by_file: Iterable[tuple[str, list[dict[str, Any]]]],
) -> list[TopicSpec]:
    """Cross-file checks (unique slugs and names, no cycles) and depth/area/position."""
    specs: list[TopicSpec] = []
    where: dict[str, str] = {}
    names: dict[str, tuple[str, str]] = {}
    by_slug: dict[str, TopicSpec] = {}
    for file, entries in entries_by_file:
        for entry in entries:
            slug = entry["slug"]
            if slug in where:
                raise _err(file, slug, f"duplicate slug (also in {where[slug]})")
            key = entry["name"].casefold()
            if key in names:
                other_file, other_slug = names[key]
                raise _err(
                    file,
                    slug,
                    f"duplicate name '{entry['name']}' (also {other_slug} in {other_file})",
                )
            where[slug] = file
            names[key] = (file, slug)
            parent = entry["parent"]
            if parent is None:
                area, depth = slug, 0
            else:
                parent_spec = by_slug.get(parent)
                if parent_spec is None:  # cannot happen after parse_taxonomy_file
                    raise _err(file, slug, f"parent '{parent}' does not exist")
                area, depth = parent_spec.area, parent_spec.depth + 1
            spec = TopicSpec(
                slug=slug,
                name=entry["name"],
                parent=parent,
                area=area,
                depth=depth,
                code=entry["code"],
                description=entry["description"],
                aliases=entry["aliases"],
                keywords=entry["keywords"],
                categories=entry["categories"],
                position=len(specs),
            )
            by_slug[slug] = spec
            specs.append(spec)
    check_topic_specs(specs)
    return specs


def check_topic_specs(topics: Iterable[TopicSpec]) -> None:
    """Validate TopicSpecs built elsewhere (DB rows): unique slugs, parents first, no cycles."""
    seen: set[str] = set()
    for t in topics:
        if not SLUG_RE.match(t.slug):
            raise TaxonomyError(f"{t.slug}: invalid slug")
        if t.slug in seen:
            raise TaxonomyError(f"{t.slug}: duplicate slug")
        if t.parent is not None and t.parent not in seen:
            raise TaxonomyError(
                f"{t.slug}: parent '{t.parent}' is missing or does not come before it"
            )
        seen.add(t.slug)


def load_taxonomy_files(folder: str | Path) -> Taxonomy:
    """Read every ``*.yaml`` of ``folder`` (sorted by name) and its ``VERSION``, validated."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TaxonomyError(f"{folder}: not a directory")
    version_file = folder / "VERSION"
    if not version_file.is_file():
        raise TaxonomyError(f"{folder / 'VERSION'}: missing VERSION file")
    version = version_file.read_text(encoding="utf-8").strip()
    if not version or len(version) > 20 or any(c.isspace() for c in version):
        raise TaxonomyError("VERSION: must be one short token (at most 20 characters)")
    paths = sorted(folder.glob("*.yaml"))
    if not paths:
        raise TaxonomyError(f"{folder}: no *.yaml taxonomy files")
    specs = build_topic_specs((p.name, parse_taxonomy_file(p)) for p in paths)
    return Taxonomy(version=version, topics=tuple(specs), files=tuple(p.name for p in paths))
