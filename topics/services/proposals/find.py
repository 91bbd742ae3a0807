"""Finding proposals (nothing stored).

Emerging topics (issue 4, item 6; research/tagging.md section 3.7): propose new topics from
recent papers the taxonomy covers poorly, for a person to accept or reject in the admin.

1. **Window**: papers announced in the last 28 days up to the newest announcement (tagged ones,
   at most the newest 20,000).
2. **Residual pool**: papers with fewer than 3 confident non-area tags (score at the tagger's
   threshold or tags people gave) or whose best cosine to any topic prototype is low; the worst
   covered 3,000 at most.
3. **Clusters**: average-linkage agglomerative clustering on the tagger's paper vectors (cosine,
   numpy only), merging while clusters are on average closer than 0.35 (random pairs of papers:
   0.01 median, 0.29 at the 99th percentile). Kept: >= 5 papers from >= 3 distinct first
   authors, not already covered (no existing topic is a confident tag of half the members, and
   the centre is not close to an existing topic's prototype).
4. **Names**: c-TF-IDF (BERTopic's class-based TF-IDF: term frequency in the cluster x
   log(1 + average class size / frequency over all classes), with the rest of the window as one
   class) over 1-3-grams of titles and abstracts; the name is the best phrase of two or more
   words that most members use, else the best word. Parent: the topic nearest the centre.
5. A cluster that mostly repeats an open proposal refreshes it; one that repeats an accepted or
   rejected proposal is skipped (a person already decided).

Accepting (:func:`topic_proposal_accept`) creates the topic (slug from the name, description
drafted from the phrases and the most central titles, for a person to edit), tags the member
papers at once as "curated" (the tagger replays curated tags as examples, so the new topic is
taggable straight away), and the topic-edit signal re-tags the papers it may concern.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
from django.db.models import Count

from papers.models import Paper
from topics.models import PaperTopic, Topic, TopicProposal
from topics.runtime import paper_vectors, paper_vectors_save, tagger_get
from topics.selectors import latest_announcement
from topics.services.proposals.clustering import average_linkage
from topics.services.proposals.phrases import class_phrases, paper_text, phrase_key

logger = logging.getLogger(__name__)

WINDOW_DAYS = 28
MAX_WINDOW_PAPERS = 20_000
MAX_POOL = 3_000
MIN_CONFIDENT = 3  # fewer confident non-area tags than this: poorly covered
LOW_SIMILARITY = 0.30  # best cosine to a topic below this (~10th percentile of cs.LG papers)
LINKAGE_CUT = 0.35  # average cosine within a cluster at which merging stops
MIN_PAPERS = 5
MIN_FIRST_AUTHORS = 3
COVERED_SHARE = 0.5  # an existing topic confidently tags this share of members: covered
COVERED_SIMILARITY = 0.70  # the centre is this close to an existing topic: covered
DUPLICATE_OVERLAP = 0.5  # share of a cluster's papers already in an earlier proposal
PROPOSAL_TAXONOMY_VERSION = "proposal"  # Topic.taxonomy_version of accepted proposals
CENTRAL_TITLES = 3
PHRASES_KEPT = 10
NAME_MIN_SHARE = 0.3  # a multi-word name must be used by this share of the members
IN_CHUNK = 900  # ids per IN (...) query


@dataclass
class Cluster:
    paper_ids: list[int]
    name: str = ""
    phrases: list[str] = field(default_factory=list)
    parent_id: int | None = None
    nearest: list[dict] = field(default_factory=list)  # [{slug, name, similarity}]
    central: list[dict] = field(default_factory=list)  # [{arxiv_id, title, similarity}]
    cohesion: float = 0.0
    first_authors: int = 0
    categories: list[str] = field(default_factory=list)
    skipped: str = ""  # why it is not proposed ("" = proposed)

    @property
    def stats(self) -> dict:
        return {
            "papers": len(self.paper_ids),
            "cohesion": round(self.cohesion, 3),
            "first_authors": self.first_authors,
            "nearest_topics": self.nearest,
            "central_titles": self.central,
            "categories": self.categories,
        }


@dataclass
class ProposalRun:
    window_start: date | None = None
    window_end: date | None = None
    window_papers: int = 0
    pool: int = 0
    clusters: list[Cluster] = field(default_factory=list)  # every cluster of >= MIN_PAPERS
    proposals: list[TopicProposal] = field(default_factory=list)  # created or refreshed

    def summary(self) -> str:
        if self.window_end is None:
            return "no papers: nothing to propose"
        kept = sum(1 for c in self.clusters if not c.skipped)
        return (
            f"window {self.window_start}..{self.window_end}: {self.window_papers} papers, "
            f"{self.pool} poorly covered, {len(self.clusters)} clusters of >= {MIN_PAPERS}, "
            f"{kept} proposed"
        )


def chunks(ids: Sequence[int], size: int = IN_CHUNK):
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _first_author(authors) -> str:
    if not authors:
        return ""
    first = authors[0]
    if isinstance(first, dict):
        first = first.get("name", "")
    return " ".join(str(first).lower().split())


def topic_proposals_find(*, days: int = WINDOW_DAYS) -> ProposalRun:
    """Clusters of recent, poorly covered papers with names and parents (nothing stored)."""
    run = ProposalRun()
    papers = _window_papers(run, days)
    if len(papers) < MIN_PAPERS:
        return run
    tagger = tagger_get()
    threshold = float(tagger.params.selection.get("threshold", 0.5))
    confident_tags = PaperTopic.objects.filter(
        paper__announced__gte=run.window_start,
        paper__announced__lte=run.window_end,
        topic__active=True,
        topic__parent__isnull=False,
        score__gte=threshold,
    )
    vectors = paper_vectors(tagger, papers)
    paper_vectors_save()
    slugs, topic_vecs = tagger.topic_vectors()
    pool = _residual_pool(papers, vectors, topic_vecs, confident_tags)
    run.pool = len(pool)
    if len(pool) < MIN_PAPERS:
        return run
    tags_of: dict[int, set[int]] = {}
    for chunk in chunks([papers[i].id for i in pool]):
        for paper_id, topic_id in confident_tags.filter(paper_id__in=chunk).values_list(
            "paper_id", "topic_id"
        ):
            tags_of.setdefault(paper_id, set()).add(topic_id)
    topic_by_slug = {t.slug: t for t in Topic.objects.filter(active=True)}
    nearby = (slugs, topic_vecs, topic_by_slug)
    for group in average_linkage(vectors[pool], LINKAGE_CUT):
        if len(group) >= MIN_PAPERS:
            members = [papers[pool[k]] for k in group]
            run.clusters.append(_cluster(members, vectors[pool[group]], nearby, tags_of))
    _name_clusters(run, papers, topic_by_slug)
    return run


def _window_papers(run: ProposalRun, days: int) -> list[Paper]:
    """The window's tagged papers, newest first (sets the run's window)."""
    end = latest_announcement()
    if end is None:
        return []
    start = end - timedelta(days=days - 1)
    run.window_start, run.window_end = start, end
    fields = ("id", "arxiv_id", "title", "abstract", "categories", "authors", "modified_at")
    window = Paper.objects.filter(
        announced__gte=start, announced__lte=end, tagged_at__isnull=False
    ).order_by("-announced", "-id")
    papers = list(window.only(*fields, "primary_category")[:MAX_WINDOW_PAPERS])
    run.window_papers = len(papers)
    return papers


def _residual_pool(papers, vectors, topic_vecs, confident_tags) -> np.ndarray:
    """Indices of the poorly covered papers: few confident tags or far from every topic."""
    confident = dict(
        confident_tags.values("paper_id").annotate(n=Count("id")).values_list("paper_id", "n")
    )
    best = (vectors @ topic_vecs.T).max(axis=1) if len(topic_vecs) else np.zeros(len(papers))
    usable = np.any(vectors != 0, axis=1)
    counts = np.array([confident.get(p.id, 0) for p in papers])
    pool = np.flatnonzero(usable & ((counts < MIN_CONFIDENT) | (best < LOW_SIMILARITY)))
    if len(pool) > MAX_POOL:  # the worst covered first
        order = np.lexsort((best[pool], counts[pool]))
        pool = np.sort(pool[order[:MAX_POOL]])
    return pool


def _cluster(members, member_vecs, nearby, tags_of) -> Cluster:
    """One group of papers described: cohesion, central titles, categories, nearest topics,
    and why it is skipped if an existing topic covers it or too few authors wrote it."""
    slugs, topic_vecs, topic_by_slug = nearby
    centre = member_vecs.mean(axis=0)
    centre /= np.linalg.norm(centre) or 1.0
    sims = member_vecs @ centre
    cluster = Cluster(paper_ids=[p.id for p in members], cohesion=float(sims.mean()))
    cluster.first_authors = len({a for a in map(_first_author, (p.authors for p in members))})
    cluster.central = [
        {
            "arxiv_id": members[k].arxiv_id,
            "title": members[k].title,
            "similarity": round(float(sims[k]), 3),
        }
        for k in np.argsort(-sims, kind="stable")[:CENTRAL_TITLES]
    ]
    cats = Counter(p.primary_category or (p.category_list or [""])[0] for p in members)
    cluster.categories = [c for c, n in cats.most_common(3) if c and n >= 0.3 * len(members)]
    if len(slugs):
        topic_sims = topic_vecs @ centre
        near = np.argsort(-topic_sims, kind="stable")[:3]
        cluster.nearest = [
            {
                "slug": slugs[j],
                "name": topic_by_slug[slugs[j]].name if slugs[j] in topic_by_slug else "",
                "similarity": round(float(topic_sims[j]), 3),
            }
            for j in near
        ]
        parent = topic_by_slug.get(slugs[near[0]])
        cluster.parent_id = parent.id if parent else None
    shared = Counter(t for p in members for t in tags_of.get(p.id, ()))
    covered_share = shared.most_common(1)[0][1] / len(members) if shared else 0.0
    if cluster.first_authors < MIN_FIRST_AUTHORS:
        cluster.skipped = f"{cluster.first_authors} distinct first authors"
    elif covered_share >= COVERED_SHARE:
        cluster.skipped = f"covered: one topic tags {covered_share:.0%} of the papers"
    elif cluster.nearest and cluster.nearest[0]["similarity"] >= COVERED_SIMILARITY:
        cluster.skipped = f"covered: close to the topic {cluster.nearest[0]['slug']}"
    return cluster


def _name_clusters(run: ProposalRun, papers, topic_by_slug) -> None:
    """Name the clusters not skipped (c-TF-IDF against the rest of the window); a name that is
    an existing topic's name, alias or keyword means the cluster is covered after all."""
    named = [c for c in run.clusters if not c.skipped]
    if not named:
        return
    known_phrases: dict[
        str, str
    ] = {}  # every active topic's name, aliases and keywords -> its slug
    for t in topic_by_slug.values():
        for phrase in [t.name, *t.aliases, *t.keywords]:
            known_phrases.setdefault(phrase_key(phrase), t.slug)
    inside = {pid for c in named for pid in c.paper_ids}
    text_of = {p.id: paper_text(p.title, p.abstract) for p in papers}
    background = [text_of[p.id] for p in papers if p.id not in inside]
    results = class_phrases([[text_of[i] for i in c.paper_ids] for c in named], background)
    for cluster, (name, phrases) in zip(named, results, strict=True):
        cluster.name, cluster.phrases = name or "Unnamed cluster", phrases
        known = known_phrases.get(phrase_key(cluster.name))
        if known:
            cluster.skipped = f"covered: {cluster.name!r} names the topic {known}"
