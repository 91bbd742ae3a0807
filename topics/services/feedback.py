"""Learning from people (issue 4, item 3): votes change a paper's tags and the tagger at once.

``accounts.services.feedback.tag_feedback_submit`` stores a vote (and makes a confirmed or added
tag a "user" tag); after the commit it calls :func:`feedback_applied`, which

1. settles the paper's tags in the database at once: the net verdict over everyone's votes
   (:func:`topics.selectors.feedback_verdicts`) either keeps a user tag (plus the ancestors it
   implies) or removes the topic's model and user tags and the model's tags below it;
2. updates the topic's prototype in this process's tagger, if one is loaded (Rocchio + example
   and rejection memory, ``Tagger.apply_feedback``);
3. queues a re-tag of the paper, so the model fills the gap with the updated prototype; the
   re-tag honours rejections (``papers_tag``).

Other processes learn the vote when they rebuild their tagger (:func:`tagger_build` replays the
newest judgements and curated tags) or, between rebuilds, from :func:`tagger_catch_up`, which
``tagger_get`` calls with every use. Paper vectors are cached in memory and under the data
folder, so replaying 20,000 judgements takes seconds, not a re-embedding of every paper.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import transaction
from django.db.models import Max

from papers.models import Paper
from topics.models import PaperTopic, TagFeedback, Topic
from topics.selectors import (
    feedback_verdicts,
    tagger_data_dir,
    tagger_peek,
    topic_descendant_ids,
    topic_specs_active,
)
from topics.services.chips import paper_chips_refresh

if TYPE_CHECKING:
    from topics.tagger.engine import Tagger

logger = logging.getLogger(__name__)

FEEDBACK_REPLAY_LIMIT = 20_000  # newest judgements replayed when a tagger is built
EXAMPLE_REPLAY_LIMIT = 5_000  # newest curated tags replayed as example papers
CATCH_UP_LIMIT = 2_000  # more new votes than this since the build: rebuild instead
VECTOR_CACHE_FILE = "paper_vectors.npz"
VECTOR_CACHE_MAX = 40_000  # paper vectors kept (float16: 0.5 KB each)
PAPER_FIELDS = ("id", "arxiv_id", "title", "abstract", "categories", "authors", "modified_at")


# --- building and catching up ------------------------------------------------------------------
_seen: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def tagger_build() -> Tagger:
    """A tagger for the active topics, with the stored scorer and priors of the retrain task
    (when they fit the shipped model) and the stored feedback and curated tags replayed."""
    from topics.services.retrain import priors_stored, scorer_params_stored
    from topics.tagger.engine import Tagger

    tagger = Tagger(topic_specs_active(), params=scorer_params_stored(), priors=priors_stored())
    latest = TagFeedback.objects.aggregate(m=Max("id"))["m"] or 0
    replayed = tagger_feedback_replay(tagger)
    _seen[tagger] = latest
    logger.info(
        "tagger built: %d topics, scorer %s, %d judgements and examples replayed",
        len(tagger.topics),
        tagger.params.version,
        replayed,
    )
    return tagger


def _judgement_items(
    verdicts: dict, examples: Iterable[tuple[int, int]] = ()
) -> list[tuple[int, int, bool]]:
    """(paper id, topic id, confirm) oldest first: curated examples, then votes by age."""
    items = [(p, t, True) for p, t in examples if (p, t) not in verdicts]
    items += [
        (p, t, v.confirm) for (p, t), v in sorted(verdicts.items(), key=lambda kv: kv[1].last_id)
    ]
    return items


def tagger_feedback_replay(tagger: Tagger, *, limit: int = FEEDBACK_REPLAY_LIMIT) -> int:
    """Apply the newest ``limit`` judgements (net verdict per paper and topic) and the newest
    curated tags (as confirmed examples) to a tagger that no other thread uses yet."""
    verdicts = feedback_verdicts(limit=limit)
    examples = PaperTopic.objects.filter(
        source=PaperTopic.Source.CURATED, topic__active=True
    ).order_by("-id")
    examples = list(examples.values_list("paper_id", "topic_id")[:EXAMPLE_REPLAY_LIMIT])
    items = _judgement_items(verdicts, reversed(examples))
    if not items:
        return 0
    applied = _apply_items(tagger, items, bulk=True)
    paper_vectors_save()
    return applied


def tagger_catch_up(tagger: Tagger) -> bool:
    """Apply votes stored since the tagger was built or last caught up (one cheap query when
    there are none). False when there are too many to apply one by one: rebuild instead.

    Votes changed in place (a person changing their mind) and votes committed out of id order
    wait for the next rebuild; tags in the database never wait (papers_tag reads the verdicts
    itself)."""
    seen = _seen.get(tagger)
    if seen is None:
        return True
    latest = TagFeedback.objects.aggregate(m=Max("id"))["m"] or 0
    if latest <= seen:
        return True
    new = TagFeedback.objects.filter(id__gt=seen, id__lte=latest)
    pairs = set(new.values_list("paper_id", "topic_id")[: CATCH_UP_LIMIT + 1])
    if len(pairs) > CATCH_UP_LIMIT:
        return False
    _apply_items(tagger, _judgement_items(feedback_verdicts(pairs=pairs)), bulk=False)
    _seen[tagger] = latest
    return True


def _apply_items(tagger: Tagger, items: Sequence[tuple[int, int, bool]], *, bulk: bool) -> int:
    slugs = dict(Topic.objects.filter(active=True).values_list("id", "slug"))
    items = [(p, slugs[t], c) for p, t, c in items if t in slugs]
    papers = Paper.objects.only(*PAPER_FIELDS).in_bulk({p for p, _, _ in items})
    items = [(papers[p], s, c) for p, s, c in items if p in papers]
    if not items:
        return 0
    order = list({paper.id: paper for paper, _, _ in items}.values())
    vectors = dict(zip([p.id for p in order], paper_vectors(tagger, order), strict=True))
    rows = [(vectors[p.id], s, c, p.arxiv_id, p.title) for p, s, c in items]
    return _apply_many(tagger, rows) if bulk else _apply_each(tagger, rows)


def _apply_each(tagger: Tagger, rows) -> int:
    from topics.tagger.engine import UnknownTopicError

    applied = 0
    for vec, slug, confirm, arxiv_id, title in rows:
        try:
            tagger.apply_feedback(vec, slug, confirm, paper_id=arxiv_id, title=title)
        except UnknownTopicError:
            continue
        applied += 1
    return applied


def _apply_many(tagger: Tagger, rows) -> int:
    """Replay many judgements into a tagger nobody else uses yet: the same memory updates as
    ``Tagger.apply_feedback``, but each touched prototype is recomputed once instead of once
    per judgement (1 ms each). Falls back to apply_feedback if the engine's internals differ."""
    index = getattr(tagger, "index", None)
    memory = getattr(index, "memory", None)
    if not (hasattr(memory, "add") and hasattr(index, "update_prototype")):
        return _apply_each(tagger, rows)
    touched: set[int] = set()
    for vec, slug, confirm, arxiv_id, title in rows:
        j = index.pos.get(slug)
        if j is None:
            continue
        vec = np.asarray(vec, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vec))
        if norm == 0 or vec.shape[0] != index.dim:
            continue
        memory.add(j, vec / norm, bool(confirm), arxiv_id, title)
        touched.add(j)
    for j in sorted(touched):
        index.update_prototype(j)
    return len(rows)


# --- paper vectors (memory + data-folder cache) --------------------------------------------------
_vectors_lock = threading.Lock()
_vectors: OrderedDict[tuple[int, float], np.ndarray] = OrderedDict()
_vectors_state = {"fingerprint": "", "loaded": False, "dirty": False}
_fingerprints: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def _fingerprint(tagger: Tagger) -> str:
    """Identifies the paper-embedding pipeline (model, centring, title weight): a probe text's
    vector, rounded. Cached vectors of another pipeline are never used."""
    fp = _fingerprints.get(tagger)
    if fp is None:
        probe = tagger.embed(
            [{"id": "", "title": "Policy gradient for graph neural networks", "abstract": "Q"}]
        )
        fp = f"{tagger.embedder.__class__.__name__}:{probe.shape[1]}:"
        fp += f"{zlib.crc32(np.round(probe, 3).astype(np.float32).tobytes()):08x}"
        _fingerprints[tagger] = fp
    return fp


def _vector_key(paper: Paper) -> tuple[int, float]:
    modified = getattr(paper, "modified_at", None)
    return (int(paper.pk), modified.timestamp() if modified else 0.0)


def paper_vectors(tagger: Tagger, papers: Sequence[Paper]) -> np.ndarray:
    """(N, D) tagger vectors of stored papers, from the cache where the paper is unchanged."""
    from topics.services.tagging import paper_input_from

    fp = _fingerprint(tagger)
    with _vectors_lock:
        if _vectors_state["fingerprint"] != fp:
            _vectors.clear()
            _vectors_state.update(fingerprint=fp, loaded=False, dirty=False)
        if not _vectors_state["loaded"]:
            _vectors_state["loaded"] = True
            _vectors_load(fp)
        keys = [_vector_key(p) for p in papers]
        missing = [i for i, k in enumerate(keys) if k not in _vectors]
    if missing:
        fresh = tagger.embed([paper_input_from(papers[i]) for i in missing])
    out = np.zeros((len(papers), _dim_of(tagger)), dtype=np.float32)
    with _vectors_lock:
        for n, i in enumerate(missing):
            _vectors[keys[i]] = fresh[n].astype(np.float16)
            _vectors_state["dirty"] = True
        for i, key in enumerate(keys):
            vec = _vectors.get(key)
            if vec is None:  # evicted meanwhile by another thread: only in huge batches
                vec = tagger.embed([paper_input_from(papers[i])])[0]
            else:
                _vectors.move_to_end(key)
            out[i] = vec
        while len(_vectors) > VECTOR_CACHE_MAX:
            _vectors.popitem(last=False)
    return out


def paper_vectors_reset() -> None:
    """Forget the in-memory vectors (tests; the data-folder cache is read again when needed)."""
    with _vectors_lock:
        _vectors.clear()
        _vectors_state.update(fingerprint="", loaded=False, dirty=False)


def _dim_of(tagger: Tagger) -> int:
    return int(getattr(getattr(tagger, "index", None), "dim", 0) or tagger.embedder.dim)


def _vectors_path() -> Path:
    return tagger_data_dir() / VECTOR_CACHE_FILE


def _vectors_load(fp: str) -> None:
    path = _vectors_path()
    if not path.is_file():
        return
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["fingerprint"]) != fp:
                return
            for pk, stamp, vec in zip(data["pk"], data["stamp"], data["vec"], strict=True):
                _vectors[(int(pk), float(stamp))] = vec
    except Exception:  # a damaged cache only costs re-embedding
        logger.warning("ignoring the unreadable paper vector cache %s", path, exc_info=True)
        _vectors.clear()


def paper_vectors_save() -> None:
    """Write the vector cache to the data folder if it grew (atomic replace)."""
    with _vectors_lock:
        if not _vectors_state["dirty"] or not _vectors:
            return
        keys = list(_vectors)
        pk = np.array([k[0] for k in keys], dtype=np.int64)
        stamp = np.array([k[1] for k in keys], dtype=np.float64)
        vec = np.stack([_vectors[k] for k in keys]).astype(np.float16)
        fp = _vectors_state["fingerprint"]
        _vectors_state["dirty"] = False
    path = _vectors_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=".npz")
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, fingerprint=np.array(fp), pk=pk, stamp=stamp, vec=vec)
        os.replace(tmp, path)
    except OSError:
        logger.warning("could not write the paper vector cache %s", path, exc_info=True)


# --- one vote ----------------------------------------------------------------------------------
def feedback_applied(paper_id: int, topic_slug: str, vote: str) -> None:
    """Called by the accounts app after a vote is committed. See the module docstring."""
    paper = Paper.objects.filter(pk=paper_id).first()
    topic = Topic.objects.filter(slug=topic_slug).first()
    if paper is None or topic is None:
        return
    verdict = feedback_verdicts(pairs=[(paper.pk, topic.pk)]).get((paper.pk, topic.pk))
    if verdict is None:  # the vote is gone again
        return
    paper_tags_settle(paper=paper, topic=topic, confirm=verdict.confirm)
    tagger = tagger_peek()
    if tagger is not None:
        _apply_items(tagger, [(paper.pk, topic.pk, verdict.confirm)], bulk=False)
    logger.info("feedback %s on %s / %s: net %s", vote, paper.arxiv_id, topic.slug, verdict.confirm)
    from topics.tasks import tag_papers_task

    transaction.on_commit(lambda: tag_papers_task.delay([paper.pk]))


@transaction.atomic
def paper_tags_settle(*, paper: Paper, topic: Topic, confirm: bool) -> None:
    """The paper's stored tags after a verdict on one topic. Rejected: the topic's model and
    user tags go, and so do the model's tags below it (a child implies its parent); curated tags
    are an editor's decision and stay. Confirmed: a user tag (kept by re-tagging) and its
    ancestors (as model tags, so that the hierarchy holds until the next re-tag)."""
    _settle(paper=paper, topic=topic, confirm=confirm)
    paper_chips_refresh(paper_ids=[paper.pk])


def _settle(*, paper: Paper, topic: Topic, confirm: bool) -> None:
    tags = PaperTopic.objects.filter(paper=paper)
    if not confirm:
        tags.filter(topic=topic).exclude(source=PaperTopic.Source.CURATED).delete()
        below = topic_descendant_ids([topic.pk])
        if below:
            tags.filter(topic_id__in=below, source=PaperTopic.Source.MODEL).delete()
        return
    tag = tags.filter(topic=topic).first()
    last = tags.aggregate(m=Max("rank"))["m"] or 0
    if tag is None:
        tag = PaperTopic.objects.create(
            paper=paper,
            topic=topic,
            score=1.0,
            rank=last + 1,
            source=PaperTopic.Source.USER,
            evidence={"feedback": "confirm"},
        )
        last += 1
    elif tag.source == PaperTopic.Source.MODEL:
        tag.source = PaperTopic.Source.USER
        tag.save(update_fields=["source"])
    present = set(tags.values_list("topic_id", flat=True))
    rejected = {t for (_, t), v in feedback_verdicts(paper_ids=[paper.pk]).items() if not v.confirm}
    node = topic.parent
    while node is not None:
        if node.pk not in present and node.pk not in rejected:
            last += 1
            PaperTopic.objects.create(
                paper=paper,
                topic=node,
                # Not the child's score: the re-tag queued by feedback_applied gives the
                # ancestor the model's own score for it; until then it claims nothing.
                score=0.0,
                rank=last,
                source=PaperTopic.Source.MODEL,
                evidence={"implied_by": topic.slug},
            )
        node = node.parent
