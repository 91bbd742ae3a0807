"""Emerging topics (issue 4, item 6; research/tagging.md section 3.7): propose new topics from
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
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone
from django.utils.text import slugify

from papers.models import Paper
from topics.models import PaperTopic, Topic, TopicProposal
from topics.selectors import tagger_get
from topics.services.chips import paper_chips_refresh

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


# --- clustering ----------------------------------------------------------------------------------
def average_linkage(vectors: np.ndarray, cut: float) -> list[np.ndarray]:
    """Average-linkage agglomerative clustering of unit vectors by cosine similarity: merge the
    two clusters with the highest mean pairwise similarity while it is >= ``cut``. O(n^2)
    memory, about 0.5 s for 2,500 papers. Returns member index arrays (singletons included)."""
    n = len(vectors)
    if n == 0:
        return []
    sim = np.asarray(vectors @ vectors.T, dtype=np.float32)
    np.fill_diagonal(sim, -np.inf)
    size = np.ones(n, dtype=np.float32)
    active = np.ones(n, dtype=bool)
    members: list[list[int]] = [[i] for i in range(n)]
    row_arg = np.argmax(sim, axis=1)
    row_best = sim[np.arange(n), row_arg]
    while True:
        i = int(np.argmax(np.where(active, row_best, -np.inf)))
        if not active[i] or row_best[i] < cut:
            break
        j = int(row_arg[i])
        merged = (size[i] * sim[i] + size[j] * sim[j]) / (size[i] + size[j])
        merged[i] = merged[j] = -np.inf
        sim[i, :] = merged
        sim[:, i] = merged
        sim[j, :] = -np.inf
        sim[:, j] = -np.inf
        active[j] = False
        row_best[j] = -np.inf
        size[i] += size[j]
        members[i].extend(members[j])
        members[j] = []
        stale = active & ((row_arg == i) | (row_arg == j))
        stale[i] = True
        for r in np.flatnonzero(stale):
            row_arg[r] = int(np.argmax(sim[r]))
            row_best[r] = sim[r, row_arg[r]]
        better = active & (merged > row_best)
        better[i] = False
        row_best[better] = merged[better]
        row_arg[better] = i
    return [np.asarray(m) for m, a in zip(members, active, strict=True) if a and m]


# --- phrases (c-TF-IDF) --------------------------------------------------------------------------
STOPWORDS = frozenset(
    """
    a about above across after again against all almost along also although among an and another
    any approach approaches are around as at based be been before being below between both but by
    can could did do does doing done due during each either enable enables etc even ever every
    existing few for from further given has have having here how however if in including into is
    it its itself just less like many may might more moreover most much must new not novel of
    often on one only or other our ours out over own paper per present presents propose proposed
    proposes provide provides rather recent recently result results same several shall she should
    show shows shown significant significantly since so some such than that the their them then
    there these they this those through thus to toward towards two three under until up upon us
    use used uses using various very via was we well were what when where whether which while who
    whose why will with within without would yet first second third study studies work works
    method methods framework frameworks task tasks problem problems performance
    results achieve achieves achieved demonstrate demonstrates demonstrated improve
    improves improved improving effective efficient state-of-the-art art benchmark benchmarks
    experiments experimental extensive evaluation outperforms existing key important highlight
    potential introduce introduces introduced address addresses challenge challenges propose
    """.split()  # noqa: SIM905
)
_SPLIT = re.compile(r"[.;:,!?()\[\]{}\"“”‘’/|]+|\s[-–—]+\s")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def _key_word(word: str) -> str:
    from topics.tagger.text import stem

    return stem(word.lower())


def document_phrases(text: str, max_n: int = 3) -> list[tuple[str, str]]:
    """(key, surface) of every 1-3-gram not starting or ending with a stopword and not crossing
    punctuation; keys are lower-cased and plural-stemmed ("Widgets" -> "widget")."""
    out = []
    for chunk in _SPLIT.split(text):
        surface = _WORD.findall(chunk)
        low = [w.lower() for w in surface]
        keys = [_key_word(w) for w in surface]
        for n in range(1, max_n + 1):
            for i in range(len(low) - n + 1):
                first, last = low[i], low[i + n - 1]
                if first in STOPWORDS or last in STOPWORDS:
                    continue
                if n == 1 and len(first) < 3:
                    continue
                if any(len(w) < 2 for w in low[i : i + n]):
                    continue
                out.append((" ".join(keys[i : i + n]), " ".join(surface[i : i + n])))
    return out


def _phrase_key(phrase: str) -> str:
    return " ".join(_key_word(w) for w in _WORD.findall(str(phrase)))


def _paper_text(title: str, abstract: str) -> str:
    from topics.tagger.text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean

    return f"{clean(title, MAX_TITLE_CHARS)}. {clean(abstract, MAX_ABSTRACT_CHARS)}"


def class_phrases(
    clusters: Sequence[Sequence[str]], background: Sequence[str], *, top: int = PHRASES_KEPT
) -> list[tuple[str, list[str]]]:
    """Per cluster (texts): (name, phrases) by c-TF-IDF against the other clusters and the
    background texts (one more class)."""
    counts: list[Counter] = []
    dfs: list[Counter] = []
    surfaces: Counter = Counter()
    for texts in clusters:
        c, df = Counter(), Counter()
        for text in texts:
            phrases = document_phrases(text)
            c.update(k for k, _ in phrases)
            df.update({k for k, _ in phrases})
            surfaces.update(phrases)
        counts.append(c)
        dfs.append(df)
    back = Counter()
    for text in background:
        back.update(k for k, _ in document_phrases(text))
    total = Counter()
    for c in [*counts, back]:
        total.update(c)
    avg = sum(total.values()) / (len(counts) + 1)
    surface_of: dict[str, str] = {}
    for (key, surf), _n in surfaces.most_common():
        surface_of.setdefault(key, surf)
    out = []
    for texts, c, df in zip(clusters, counts, dfs, strict=True):
        n_docs = max(1, len(texts))
        size = sum(c.values()) or 1
        scored = []
        for key, f in c.items():
            if df[key] < max(2, 0.25 * n_docs):
                continue
            words = key.count(" ") + 1
            score = (f / size) * math.log(1 + avg / total[key]) * (1 + 0.5 * (words - 1))
            scored.append((score, key))
        scored.sort(key=lambda x: (-x[0], x[1]))
        kept: list[str] = []
        for _score, key in scored:
            if any(f" {key} " in f" {k} " and df[key] <= 1.5 * df[k] for k in kept if k != key):
                continue  # a part of a phrase already kept, used about as often
            kept.append(key)
            if len(kept) >= top:
                break
        best = {k: s for s, k in scored}
        name_key = kept[0] if kept else ""
        top_score = best.get(name_key, 0.0)
        named = [
            k
            for k in kept
            if " " in k and df[k] >= NAME_MIN_SHARE * n_docs and best[k] >= 0.25 * top_score
        ]
        if named:  # a phrase most members share, without "of"/"and" inside if possible
            name_key = max(
                named,
                key=lambda k: (not _inner_stopword(k), df[k], best[k]),
            )
        out.append((_title_case(surface_of.get(name_key, name_key)), [surface_of[k] for k in kept]))
    return out


def _inner_stopword(key: str) -> bool:
    return any(w in STOPWORDS for w in key.split()[1:-1])


_SMALL = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "via"}


def _title_case(phrase: str) -> str:
    words = []
    for n, word in enumerate(phrase.split()):
        if any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
            words.append(word)  # an acronym or a mixed-case name: as written
        elif n > 0 and word.lower() in _SMALL:
            words.append(word.lower())
        else:
            words.append("-".join(p[:1].upper() + p[1:] for p in word.split("-")))
    return " ".join(words)


# --- finding clusters ----------------------------------------------------------------------------
def _chunks(ids: Sequence[int], size: int = IN_CHUNK):
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _topic_matrix(tagger) -> tuple[list[str], np.ndarray]:
    """Topic prototypes as the tagger scores them (description + examples + feedback)."""
    from topics.tagger.features import normalize_rows, topic_texts

    index = getattr(tagger, "index", None)
    proto = getattr(index, "v_proto", None)
    if proto is not None and len(getattr(index, "slugs", ())) == len(proto):
        return list(index.slugs), np.asarray(proto, dtype=np.float32)
    texts = [topic_texts(t)[0] for t in tagger.topics]
    return [t.slug for t in tagger.topics], normalize_rows(tagger.embedder.encode(texts))


def _first_author(authors) -> str:
    if not authors:
        return ""
    first = authors[0]
    if isinstance(first, dict):
        first = first.get("name", "")
    return " ".join(str(first).lower().split())


def topic_proposals_find(*, days: int = WINDOW_DAYS) -> ProposalRun:
    """Clusters of recent, poorly covered papers with names and parents (nothing stored)."""
    from topics.services.feedback import paper_vectors, paper_vectors_save
    from topics.services.stats import latest_announcement

    run = ProposalRun()
    end = latest_announcement()
    if end is None:
        return run
    start = end - timedelta(days=days - 1)
    run.window_start, run.window_end = start, end
    fields = ("id", "arxiv_id", "title", "abstract", "categories", "authors", "modified_at")
    window = Paper.objects.filter(
        announced__gte=start, announced__lte=end, tagged_at__isnull=False
    ).order_by("-announced", "-id")
    papers = list(window.only(*fields, "primary_category")[:MAX_WINDOW_PAPERS])
    run.window_papers = len(papers)
    if len(papers) < MIN_PAPERS:
        return run

    tagger = tagger_get()
    threshold = float(tagger.params.selection.get("threshold", 0.5))
    confident_tags = PaperTopic.objects.filter(
        paper__announced__gte=start,
        paper__announced__lte=end,
        topic__active=True,
        topic__parent__isnull=False,
        score__gte=threshold,
    )
    confident = dict(
        confident_tags.values("paper_id").annotate(n=Count("id")).values_list("paper_id", "n")
    )
    vectors = paper_vectors(tagger, papers)
    paper_vectors_save()
    slugs, topic_vecs = _topic_matrix(tagger)
    best = (vectors @ topic_vecs.T).max(axis=1) if len(slugs) else np.zeros(len(papers))
    usable = np.any(vectors != 0, axis=1)
    counts = np.array([confident.get(p.id, 0) for p in papers])
    poor = usable & ((counts < MIN_CONFIDENT) | (best < LOW_SIMILARITY))
    pool = np.flatnonzero(poor)
    if len(pool) > MAX_POOL:  # the worst covered first
        order = np.lexsort((best[pool], counts[pool]))
        pool = np.sort(pool[order[:MAX_POOL]])
    run.pool = len(pool)
    if len(pool) < MIN_PAPERS:
        return run

    pool_ids = [papers[i].id for i in pool]
    tags_of: dict[int, set[int]] = {}
    for chunk in _chunks(pool_ids):
        for paper_id, topic_id in confident_tags.filter(paper_id__in=chunk).values_list(
            "paper_id", "topic_id"
        ):
            tags_of.setdefault(paper_id, set()).add(topic_id)
    topic_by_slug = {t.slug: t for t in Topic.objects.filter(active=True)}
    known_phrases = {}  # every active topic's name, aliases and keywords -> its slug
    for t in topic_by_slug.values():
        for phrase in [t.name, *t.aliases, *t.keywords]:
            known_phrases.setdefault(_phrase_key(phrase), t.slug)

    groups = [g for g in average_linkage(vectors[pool], LINKAGE_CUT) if len(g) >= MIN_PAPERS]
    for group in groups:
        members = [papers[pool[k]] for k in group]
        member_vecs = vectors[pool[group]]
        centre = member_vecs.mean(axis=0)
        centre /= np.linalg.norm(centre) or 1.0
        sims = member_vecs @ centre
        cluster = Cluster(paper_ids=[p.id for p in members], cohesion=float(sims.mean()))
        cluster.first_authors = len({a for a in map(_first_author, (p.authors for p in members))})
        central = np.argsort(-sims, kind="stable")[:CENTRAL_TITLES]
        cluster.central = [
            {
                "arxiv_id": members[k].arxiv_id,
                "title": members[k].title,
                "similarity": round(float(sims[k]), 3),
            }
            for k in central
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
        run.clusters.append(cluster)

    named = [c for c in run.clusters if not c.skipped]
    if named:
        inside = {pid for c in named for pid in c.paper_ids}
        text_of = {p.id: _paper_text(p.title, p.abstract) for p in papers}
        background = [text_of[p.id] for p in papers if p.id not in inside]
        results = class_phrases([[text_of[i] for i in c.paper_ids] for c in named], background)
        for cluster, (name, phrases) in zip(named, results, strict=True):
            cluster.name, cluster.phrases = name or "Unnamed cluster", phrases
            known = known_phrases.get(_phrase_key(cluster.name))
            if known:
                cluster.skipped = f"covered: {cluster.name!r} names the topic {known}"
    return run


# --- storing and deciding ------------------------------------------------------------------------
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
    if proposal.status == TopicProposal.Status.ACCEPTED and proposal.accepted_topic_id:
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
    node = parent
    while node is not None:
        ancestors.append(node)
        node = node.parent
    present: dict[int, set[int]] = {}
    last_rank: dict[int, int] = {}
    for chunk in _chunks(member_ids):
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
    from topics.services.tagging import paper_input_from

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
        "parent": topic.parent.slug if topic.parent_id else None,
        "description": topic.description,
        "aliases": list(topic.aliases),
        "keywords": list(topic.keywords),
        "categories": list(topic.categories),
    }
    return yaml.safe_dump([entry], sort_keys=False, allow_unicode=True, width=100)
