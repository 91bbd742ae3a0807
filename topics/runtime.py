"""The tagger at run time: one per process, built from the database, kept current.

- :func:`tagger_get` hands out the process's tagger, rebuilt when the active taxonomy changes or
  the retrain task stores a new scorer or priors, and caught up with newer votes on every use.
- :func:`tagger_build` makes one from the active topics (:func:`topic_specs_active`), the stored
  scorer and priors, and replays the newest judgements and curated tags as examples.
- The paper-vector cache (memory + the data folder) makes that replay cost seconds.
- :func:`paper_input_from` and :func:`topic_specs_active` are the one place database rows become
  the tagger's inputs (:class:`PaperInput`, :class:`TopicSpec`).

Services and tasks call this module; selectors never do (they only query).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Count, Max

from papers.models import Paper
from topics.models import PaperTopic, TagFeedback, Topic
from topics.selectors import feedback_verdicts
from topics.tagger.contextual import REFINED_SCORER_PATH, ContextModelError, ContextualEmbedder
from topics.tagger.engine import PaperInput, Tagger, UnknownTopicError
from topics.tagger.scoring import ScorerParams
from topics.tagger.taxonomy import TopicSpec

logger = logging.getLogger(__name__)

FEEDBACK_REPLAY_LIMIT = 20_000  # newest judgements replayed when a tagger is built
EXAMPLE_REPLAY_LIMIT = 5_000  # newest curated tags replayed as example papers
CATCH_UP_LIMIT = 2_000  # more new votes than this since the build: rebuild instead
VECTOR_CACHE_FILE = "paper_vectors.npz"
VECTOR_CACHE_MAX = 40_000  # paper vectors kept (float16: 0.5 KB each)
PAPER_FIELDS = ("id", "arxiv_id", "title", "abstract", "categories", "authors", "modified_at")

# What the retrain task stores under the data folder (never in the repository).
TAGGER_SCORER_FILE = "scorer.json"
TAGGER_PRIORS_FILE = "priors.json"

_tagger_lock = threading.RLock()
_tagger_cache: dict[tuple, Tagger] = {}
_refined_cache: dict[tuple, Tagger] = {}
_refined_state: dict[str, Any] = {}  # "encoder": the loaded one, "error": why it cannot load


# --- database rows as the tagger's inputs ------------------------------------------------------
def topic_specs_active() -> list[TopicSpec]:
    """The active taxonomy as the tagger sees it, parents before children."""
    topics = list(Topic.objects.filter(active=True).select_related("parent", "area"))
    depth_first = sorted(topics, key=lambda t: (t.depth, t.position))
    return [
        TopicSpec(
            slug=t.slug,
            name=t.name,
            code=t.code,
            parent=t.parent.slug if t.parent else None,
            area=t.area.slug if t.area else t.slug,
            depth=t.depth,
            description=t.description,
            aliases=tuple(t.aliases),
            keywords=tuple(t.keywords),
            categories=tuple(t.categories),
            position=t.position,
        )
        for t in depth_first
    ]


def paper_input_from(paper: Paper) -> PaperInput:
    return PaperInput(
        id=paper.arxiv_id,
        title=paper.title,
        abstract=paper.abstract,
        categories=tuple(paper.category_list),
        authors=tuple(paper.authors),
    )


# --- reading what the last retrain stored --------------------------------------------------------
def shipped_scorer_params() -> ScorerParams:
    """The scorer that ships in the repository (topics/tagger/model/)."""
    return ScorerParams.load()


def _stored_scorer_raw() -> dict | None:
    path = tagger_data_dir() / TAGGER_SCORER_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        logger.warning("ignoring the unreadable stored scorer %s", path, exc_info=True)
        return None


def scorer_params_stored():
    """The retrained scorer if there is one that fits the shipped scorer, else None (the tagger
    then uses the shipped one)."""
    raw = _stored_scorer_raw()
    if raw is None:
        return None
    try:
        params = ScorerParams.from_dict(raw)
    except (TypeError, ValueError):
        logger.warning("ignoring a stored scorer the tagger cannot read", exc_info=True)
        return None
    shipped = shipped_scorer_params()
    same_base = params.fit.get("base_version") == shipped.version
    same_vectors = dict(params.embedding) == dict(shipped.embedding) and dict(
        params.rocchio
    ) == dict(shipped.rocchio)
    if not (same_base and same_vectors):
        logger.info(
            "stored scorer %s was fitted from %s, shipped is %s: using the shipped one",
            params.version,
            params.fit.get("base_version"),
            shipped.version,
        )
        return None
    return params


def priors_stored() -> dict[str, dict[str, float]] | None:
    path = tagger_data_dir() / TAGGER_PRIORS_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        lift = data["lift"]
        return {str(c): {str(s): float(v) for s, v in row.items()} for c, row in lift.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        logger.warning("ignoring unreadable stored priors %s", path, exc_info=True)
        return None


# --- the process's tagger -----------------------------------------------------------------------
def tagger_data_dir() -> Path:
    """Where the retrain task keeps the refitted scorer, priors and cached paper vectors."""
    return Path(settings.DATA_DIR) / "tagger"


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _tagger_key() -> tuple:
    """What a cached tagger depends on: the active topics and what the retrain task stored."""
    row = Topic.objects.filter(active=True).aggregate(changed=Max("modified_at"), n=Count("id"))
    folder = tagger_data_dir()
    return (
        row["changed"],
        row["n"],
        _file_stamp(folder / TAGGER_SCORER_FILE),
        _file_stamp(folder / TAGGER_PRIORS_FILE),
    )


def _tagger_cached(cache: dict[tuple, Tagger], build) -> Tagger:
    key = _tagger_key()
    with _tagger_lock:
        tagger = cache.get(key)
        if tagger is None or not tagger_catch_up(tagger):
            cache.clear()
            tagger = build()
            cache[key] = tagger
    return tagger


def tagger_get() -> Tagger:
    """The process's tagger, rebuilt when a topic was added, edited or retired, or when the
    retrain task stored a new scorer or new priors. A rebuilt tagger replays the stored feedback
    (:func:`tagger_build`); a cached one catches up with newer votes."""
    return _tagger_cached(_tagger_cache, tagger_build)


def refined_tagger_get() -> Tagger | None:
    """The refined stage's tagger (the contextual encoder and the model in
    topics/tagger/model/refined/), kept current as :func:`tagger_get`'s; None when this
    installation cannot run it (turned off by ``TAGGER_REFINED``, or the model cannot be
    loaded: said once in the log)."""
    if not refined_available():
        return None
    return _tagger_cached(_refined_cache, refined_tagger_build)


def tagger_peek() -> Tagger | None:
    """This process's tagger if one was built already (never builds one)."""
    with _tagger_lock:
        return next(iter(_tagger_cache.values()), None)


def tagger_reset() -> None:
    """Forget this process's taggers (tests; the next tagger_get builds a new one)."""
    with _tagger_lock:
        _tagger_cache.clear()
        _refined_cache.clear()
        _refined_state.clear()


# --- building and catching up ------------------------------------------------------------------
_seen: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def tagger_build() -> Tagger:
    """A tagger for the active topics, with the stored scorer and priors of the retrain task
    (when they fit the shipped model) and the stored feedback and curated tags replayed."""
    tagger = Tagger(topic_specs_active(), params=scorer_params_stored(), priors=priors_stored())
    return _with_feedback(tagger, "tagger")


def _with_feedback(tagger: Tagger, what: str) -> Tagger:
    """The stored feedback and curated tags replayed into a new tagger."""
    latest = TagFeedback.objects.aggregate(m=Max("id"))["m"] or 0
    replayed = tagger_feedback_replay(tagger)
    _seen[tagger] = latest
    logger.info(
        "%s built: %d topics, scorer %s, %d judgements and examples replayed",
        what,
        len(tagger.topics),
        tagger.params.version,
        replayed,
    )
    return tagger


def refined_available() -> bool:
    """Whether the refined stage can run here (its model ships and its encoder loads)."""
    if not settings.TAGGER_REFINED:
        return False
    with _tagger_lock:
        if "encoder" not in _refined_state and "error" not in _refined_state:
            try:
                if not REFINED_SCORER_PATH.is_file():
                    raise ContextModelError(f"no refined model in {REFINED_SCORER_PATH.parent}")
                _refined_state["encoder"] = ContextualEmbedder()
            except (ContextModelError, OSError, ImportError) as error:
                _refined_state["error"] = str(error)
                logger.warning("the refined tagging stage is off: %s", error)
        return "encoder" in _refined_state


def refined_off_reason() -> str:
    """Why the refined stage does not run here ("" when it does)."""
    if not settings.TAGGER_REFINED:
        return "TAGGER_REFINED is off"
    return "" if refined_available() else str(_refined_state.get("error", ""))


def refined_tagger_build() -> Tagger:
    """:func:`tagger_build` for the refined stage: the shipped refined scorer (the retrain task
    refits only the fast stage's), the stored priors, the stored feedback replayed."""
    encoder = _refined_state["encoder"]
    tagger = Tagger(topic_specs_active(), priors=priors_stored(), context=encoder)
    return _with_feedback(tagger, "refined tagger")


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
    curated = PaperTopic.objects.filter(
        source=PaperTopic.Source.CURATED, topic__active=True
    ).order_by("-id")
    examples = list(curated.values_list("paper_id", "topic_id")[:EXAMPLE_REPLAY_LIMIT])
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


def tagger_feedback_apply(tagger: Tagger, items: Sequence[tuple[int, int, bool]]) -> int:
    """Apply ``(paper id, topic id, confirm)`` judgements to a tagger in use, one by one."""
    return _apply_items(tagger, items, bulk=False)


def _apply_items(tagger: Tagger, items: Sequence[tuple[int, int, bool]], *, bulk: bool) -> int:
    slugs = dict(Topic.objects.filter(active=True).values_list("id", "slug"))
    by_slug = [(p, slugs[t], c) for p, t, c in items if t in slugs]
    papers = Paper.objects.only(*PAPER_FIELDS).in_bulk({p for p, _, _ in by_slug})
    judged = [(papers[p], s, c) for p, s, c in by_slug if p in papers]
    if not judged:
        return 0
    order = list({paper.id: paper for paper, _, _ in judged}.values())
    vectors = dict(zip([p.id for p in order], paper_vectors(tagger, order), strict=True))
    rows = [(vectors[p.id], s, c, p.arxiv_id, p.title) for p, s, c in judged]
    return tagger.apply_feedback_many(rows) if bulk else _apply_each(tagger, rows)


def _apply_each(tagger: Tagger, rows: Sequence[tuple[np.ndarray, str, bool, str, str]]) -> int:
    applied = 0
    for vec, slug, confirm, arxiv_id, title in rows:
        try:
            tagger.apply_feedback(vec, slug, confirm, paper_id=arxiv_id, title=title)
        except UnknownTopicError:
            continue
        applied += 1
    return applied


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
    modified = paper.modified_at
    return (int(paper.pk), modified.timestamp() if modified else 0.0)


def paper_vectors(tagger: Tagger, papers: Sequence[Paper]) -> np.ndarray:
    """(N, D) tagger vectors of stored papers, from the cache where the paper is unchanged."""
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
    out = np.zeros((len(papers), tagger.dim), dtype=np.float32)
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
