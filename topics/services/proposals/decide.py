"""Storing proposals and an editor's decisions: accepting one makes a topic (tagging its papers
as curated), rejecting one keeps it from being proposed again."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from papers.models import Paper
from topics.models import PaperTopic, Topic, TopicProposal
from topics.runtime import paper_input_from, tagger_get
from topics.services.chips import paper_chips_refresh
from topics.services.proposals.find import (
    DUPLICATE_OVERLAP,
    PROPOSAL_TAXONOMY_VERSION,
    WINDOW_DAYS,
    ProposalRun,
    chunks,
    topic_proposals_find,
)

logger = logging.getLogger(__name__)


def topic_proposals_create(*, days: int = WINDOW_DAYS, dry_run: bool = False) -> ProposalRun:
    """Find clusters and store them as proposals (new, or refreshing an open one)."""
    run = topic_proposals_find(days=days)
    if dry_run:
        return run
    earlier = list(TopicProposal.objects.prefetch_related("papers").order_by("-id")[:500])
    earlier_ids = {p.id: {x.id for x in p.papers.all()} for p in earlier}
    for cluster in run.clusters:
        if cluster.skipped:
            continue
        ids = set(cluster.paper_ids)
        match = None
        for proposal in earlier:
            if len(ids & earlier_ids[proposal.id]) >= DUPLICATE_OVERLAP * len(ids):
                match = proposal
                break
        if match is not None and match.status != TopicProposal.Status.PROPOSED:
            cluster.skipped = f"already {match.status} as proposal {match.id} ({match.name})"
            continue
        with transaction.atomic():
            if match is None:
                proposal = TopicProposal.objects.create(
                    name=cluster.name[:200],
                    parent_id=cluster.parent_id,
                    phrases=cluster.phrases,
                    stats=cluster.stats,
                    window_start=run.window_start,
                    window_end=run.window_end,
                )
            else:  # refresh an open proposal; a person may have edited its name and parent
                proposal = match
                proposal.phrases, proposal.stats = cluster.phrases, cluster.stats
                proposal.window_start, proposal.window_end = run.window_start, run.window_end
                proposal.save(update_fields=["phrases", "stats", "window_start", "window_end"])
            proposal.papers.set(cluster.paper_ids)
        earlier_ids[proposal.id] = ids
        run.proposals.append(proposal)
    logger.info(run.summary())
    return run


def _unique_slug(name: str) -> str:
    base = slugify(name)[:90].strip("-") or "topic"
    slug, n = base, 2
    while Topic.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def proposal_description(name: str, phrases: Sequence[str], titles: Sequence[str]) -> str:
    """A first description for a person to edit: what the members write about and the most
    central titles (the tagger embeds "name: description", so these words matter)."""
    words = [p for p in phrases if p.lower() != name.lower()][:4]
    lead = f"{name} covers recent work on " + (
        ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else (words or [name])[0]
    )
    text = lead + "."
    if titles:
        text += " Representative papers: " + "; ".join(t.rstrip(".") for t in titles) + "."
    return text


def proposal_keywords(name: str, phrases: Sequence[str]) -> list[str]:
    """Phrases of two or more words (single words match too broadly), lower case unless an
    acronym, at most six."""
    from topics.tagger.text import is_acronym

    out = []
    for phrase in phrases:
        if phrase.lower() == name.lower():
            continue
        if " " in phrase or is_acronym(phrase):
            kept = " ".join(w if is_acronym(w) else w.lower() for w in phrase.split())
            if kept not in out:
                out.append(kept)
        if len(out) >= 6:
            break
    return out


@transaction.atomic
def topic_proposal_accept(
    proposal: TopicProposal, *, name: str | None = None, parent: Topic | None = None
) -> Topic:
    """Create the proposed topic and tag its member papers with it ("curated") at once.

    The topic's slug comes from the name; its description and keywords are drafts from the
    phrases and the most central titles. Accepting twice returns the same topic."""
    proposal = TopicProposal.objects.select_for_update().get(pk=proposal.pk)
    if proposal.status == TopicProposal.Status.ACCEPTED and proposal.accepted_topic:
        return proposal.accepted_topic
    parent = parent or proposal.parent
    if parent is None or not parent.active:
        raise ValueError(f"proposal {proposal.id} ({proposal.name}) needs an active parent topic")
    name = " ".join((name or proposal.name).split())[:200]
    if not name:
        raise ValueError(f"proposal {proposal.id} needs a name")
    titles = [c["title"] for c in proposal.stats.get("central_titles", [])]
    position = (Topic.objects.aggregate(m=Max("position"))["m"] or 0) + 1
    topic = Topic.objects.create(
        slug=_unique_slug(name),
        name=name,
        parent=parent,
        area=parent.area or parent,
        depth=parent.depth + 1,
        position=position,
        description=proposal_description(name, proposal.phrases, titles),
        aliases=[],
        keywords=proposal_keywords(name, proposal.phrases),
        categories=list(proposal.stats.get("categories") or parent.categories or []),
        taxonomy_version=PROPOSAL_TAXONOMY_VERSION,
    )
    member_ids = list(proposal.papers.values_list("id", flat=True))
    ancestors = []
    node: Topic | None = parent
    while node is not None:
        ancestors.append(node)
        node = node.parent
    present: dict[int, set[int]] = {}
    last_rank: dict[int, int] = {}
    for chunk in chunks(member_ids):
        for paper_id, topic_id, rank in PaperTopic.objects.filter(paper_id__in=chunk).values_list(
            "paper_id", "topic_id", "rank"
        ):
            present.setdefault(paper_id, set()).add(topic_id)
            last_rank[paper_id] = max(last_rank.get(paper_id, 0), rank)
    evidence = {"proposal": proposal.id, "phrases": [{"text": p} for p in proposal.phrases[:5]]}
    # The ancestors the new topic implies get the model's own score for them (not the
    # curated 1.0 of the new topic: nobody vouched for the parent).
    own = _own_scores(member_ids)
    rows = []
    for paper_id in member_ids:
        rank = last_rank.get(paper_id, 0) + 1
        rows.append(
            PaperTopic(
                paper_id=paper_id,
                topic=topic,
                score=1.0,
                rank=rank,
                source=PaperTopic.Source.CURATED,
                evidence=evidence,
                model_version=f"proposal-{proposal.id}",
            )
        )
        for ancestor in ancestors:  # the new topic implies its ancestors
            if ancestor.id not in present.get(paper_id, set()):
                rank += 1
                rows.append(
                    PaperTopic(
                        paper_id=paper_id,
                        topic=ancestor,
                        score=round(own.get(paper_id, {}).get(ancestor.slug, 0.0), 4),
                        rank=rank,
                        source=PaperTopic.Source.MODEL,
                        evidence={"implied_by": topic.slug},
                        model_version=f"proposal-{proposal.id}",
                    )
                )
    PaperTopic.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
    paper_chips_refresh(paper_ids=member_ids)
    proposal.status = TopicProposal.Status.ACCEPTED
    proposal.accepted_topic = topic
    proposal.name = name
    proposal.parent = parent
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "accepted_topic", "name", "parent", "decided_at"])
    logger.info("proposal %s accepted as topic %s (%d papers)", proposal.id, topic.slug, len(rows))
    return topic


def _own_scores(paper_ids: list[int]) -> dict[int, dict[str, float]]:
    papers = list(Paper.objects.filter(id__in=paper_ids))
    scores = tagger_get().own_scores([paper_input_from(p) for p in papers])
    return {p.id: s for p, s in zip(papers, scores, strict=True)}


def topic_proposal_reject(proposal: TopicProposal) -> None:
    """Mark a proposal rejected; its papers are not proposed again as the same cluster."""
    TopicProposal.objects.filter(pk=proposal.pk).exclude(
        status=TopicProposal.Status.ACCEPTED
    ).update(status=TopicProposal.Status.REJECTED, decided_at=timezone.now())


def proposal_taxonomy_entry(topic: Topic) -> str:
    """The YAML entry to add to topics/taxonomy/<area>.yaml so load_taxonomy keeps the topic."""
    import yaml

    entry = {
        "slug": topic.slug,
        "name": topic.name,
        "parent": topic.parent.slug if topic.parent else None,
        "description": topic.description,
        "aliases": list(topic.aliases),
        "keywords": list(topic.keywords),
        "categories": list(topic.categories),
    }
    return yaml.safe_dump([entry], sort_keys=False, allow_unicode=True, width=100)
