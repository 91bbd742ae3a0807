"""Loading the versioned taxonomy files into the database."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from topics.models import PaperTopic, Topic
from topics.services.chips import paper_chips_refresh
from topics.services.proposals import PROPOSAL_TAXONOMY_VERSION
from topics.tagger.taxonomy import Taxonomy, load_taxonomy_files

TAXONOMY_DIR = Path(__file__).resolve().parent.parent / "taxonomy"


@dataclass
class TaxonomyLoadResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    version: str = ""

    def summary(self) -> str:
        return (
            f"taxonomy v{self.version}: created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}, retired {self.retired}"
        )


@transaction.atomic
def taxonomy_load(*, taxonomy: Taxonomy | None = None) -> TaxonomyLoadResult:
    """Make the Topic table match the taxonomy files. Idempotent.

    Topics are matched by slug, so a rename or a move keeps its follows and tags; a topic that
    left the files is retired (inactive), never deleted. A retired topic that comes back is
    reactivated.
    """
    taxonomy = taxonomy or load_taxonomy_files(TAXONOMY_DIR)
    result = TaxonomyLoadResult(version=taxonomy.version)
    by_slug = {topic.slug: topic for topic in Topic.objects.all()}
    shown_changed: set[int] = set()  # topics whose chips read differently now
    for position, spec in enumerate(taxonomy.topics):
        values = {
            "name": spec.name,
            "code": spec.code or "",
            "depth": spec.depth,
            "position": position,
            "description": spec.description,
            "aliases": list(spec.aliases),
            "keywords": list(spec.keywords),
            "categories": list(spec.categories),
            "parent_id": by_slug[spec.parent].id if spec.parent else None,
            # An area is its own area; a new one gets its id only once saved (fixed below).
            "area_id": by_slug[spec.area].id if spec.area in by_slug else None,
            "active": True,
            "taxonomy_version": taxonomy.version,
        }
        topic = by_slug.get(spec.slug)
        if topic is None:
            topic = Topic(slug=spec.slug, **values)
            topic.full_clean(exclude=["parent", "area"])
            topic.save()
            if topic.area_id is None:
                topic.area_id = topic.id
                topic.save(update_fields=["area"])
            by_slug[spec.slug] = topic
            result.created += 1
        else:
            changed = [name for name, value in values.items() if getattr(topic, name) != value]
            if changed:
                if {"name", "parent_id", "area_id", "active"} & set(changed):
                    shown_changed.add(topic.id)
                for name in changed:
                    setattr(topic, name, values[name])
                topic.save(update_fields=[n.removesuffix("_id") for n in changed] + ["modified_at"])
                result.updated += 1
            else:
                result.unchanged += 1
    wanted = {spec.slug for spec in taxonomy.topics}
    # Topics accepted from emerging-topic proposals live in the database until an editor copies
    # them into the files; a reload must not retire them.
    retiring = (
        Topic.objects.filter(active=True)
        .exclude(taxonomy_version=PROPOSAL_TAXONOMY_VERSION)
        .exclude(slug__in=wanted)
    )
    shown_changed.update(retiring.values_list("id", flat=True))
    result.retired = retiring.update(active=False)
    if shown_changed:  # the stored chips name, order and flag these topics: rebuild them
        tagged = PaperTopic.objects.filter(topic_id__in=shown_changed)
        paper_chips_refresh(paper_ids=tagged.values_list("paper_id", flat=True).distinct())
    return result
