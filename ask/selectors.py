"""Reading for Ask: hybrid retrieval of passages (the tagger's embeddings + the database's
full-text search, fused by reciprocal rank), newest papers first on ties, and at most one
passage per paper among the first few."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date

import numpy as np
from django.db import connection
from django.db.models import Count, Max

from ask import embeddings
from ask.models import Passage

TOPIC_PAPER_LIMIT = 3000  # newest papers of a topic that Ask searches
CANDIDATES = 200  # from each ranking, before fusion
RRF_K = 60  # reciprocal rank fusion: score = sum 1 / (k + rank); Cormack et al. 2009
DISTINCT_FIRST = 5  # the first passages come from distinct papers
MAX_TERMS = 24
# Question words that carry no topic: left out of the full-text query so that "which papers
# address X" ranks by X. The database's own stemmer and stop list do the rest.
_STOP_TEXT = """
    a about above after again all also am an and any are as at be been before being between
    both but by can could did do does doing done each few for from had has have having he her here
    how i if in into is it its itself just me more most my no nor not now of off on once only or
    other our out over own same she should so some such than that the their them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your paper papers work works study studies address addresses
    addressed approach approaches method methods propose proposed proposes use used using show
    shows does did kind kinds way ways give gives there any"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Hit:
    """One retrieved passage with its paper, ready to show and to cite."""

    id: int
    paper_id: int
    arxiv_id: str
    paper_title: str
    announced: date | None
    kind: str
    section: str
    text: str
    position: int = 0
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)  # rank in each list, 1-based


def query_terms(question: str) -> list[str]:
    seen: list[str] = []
    for word in _WORD.findall(question.lower()):
        if len(word) > 1 and word not in STOP_WORDS and word not in seen:
            seen.append(word)
    return seen[:MAX_TERMS]


def query_phrases(question: str) -> list[tuple[str, str]]:
    """Pairs of neighbouring topic words ("credit assignment", "multi turn"): a passage that has
    the phrase ranks above one that has both words apart."""
    words = _WORD.findall(question.lower())
    return [
        (a, b)
        for a, b in zip(words, words[1:], strict=False)
        if a not in STOP_WORDS and b not in STOP_WORDS and len(a) > 1 and len(b) > 1
    ][:MAX_TERMS]


def topic_paper_ids(*, topic_id: int, limit: int = TOPIC_PAPER_LIMIT) -> list[int]:
    """The topic's newest papers (its page's order)."""
    from topics.models import PaperTopic

    return list(
        PaperTopic.objects.filter(topic_id=topic_id)
        .order_by("-announced", "-paper_id")
        .values_list("paper_id", flat=True)[:limit]
    )


def _fulltext_ranking(question: str, paper_ids: list[int], limit: int) -> list[int]:
    terms = query_terms(question)
    if not terms or not paper_ids:
        return []
    ids = ",".join(str(int(i)) for i in paper_ids)  # integers from our own query, never input
    if connection.vendor == "postgresql":
        # Terms are [a-z0-9]+ only, so the tsquery cannot be malformed: any term (OR), ranked by
        # ts_rank with the title weighted lower than the passage (migration 0002).
        sql = (
            "SELECT p.id FROM ask_passage p, to_tsquery('english', %s) q "  # noqa: S608
            f"WHERE p.paper_id IN ({ids}) AND p.search_vector @@ q "
            "ORDER BY ts_rank(p.search_vector, q) DESC, p.id DESC LIMIT %s"
        )
        phrases = [f"({a} <-> {b})" for a, b in query_phrases(question)]
        params = [" | ".join(terms + phrases), limit]
    else:
        # Each term quoted: an FTS5 string, never an operator. bm25() is lower for better.
        sql = (
            "SELECT ask_passage_fts.rowid FROM ask_passage_fts "  # noqa: S608
            "JOIN ask_passage p ON p.id = ask_passage_fts.rowid "
            f"WHERE ask_passage_fts MATCH %s AND p.paper_id IN ({ids}) "
            "ORDER BY bm25(ask_passage_fts, 1.0, 0.4), ask_passage_fts.rowid DESC LIMIT %s"
        )
        phrases = [f'"{a} {b}"' for a, b in query_phrases(question)]
        params = [" OR ".join([f'"{t}"' for t in terms] + phrases), limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


_MATRICES: OrderedDict[tuple, tuple[list[int], np.ndarray]] = OrderedDict()
_MATRICES_LOCK = threading.Lock()
MATRIX_CACHE_SIZE = 6  # corpora (topics) whose passage vectors stay in memory, ~9 MB each at most


def _passage_matrix(paper_ids: list[int]) -> tuple[list[int], np.ndarray]:
    """(passage ids, their vectors as float16 rows) of these papers, kept in this process while
    the passages stay the same (same count, same newest id): a topic's vectors are read from
    the database once, not with every question."""
    passages = Passage.objects.filter(paper_id__in=paper_ids)
    stamp = passages.aggregate(n=Count("id"), newest=Max("id"))
    key = (hash(tuple(paper_ids)), stamp["n"], stamp["newest"])
    with _MATRICES_LOCK:
        if key in _MATRICES:
            _MATRICES.move_to_end(key)
            return _MATRICES[key]
    rows = list(passages.values_list("id", "vector"))
    ids = [pid for pid, _ in rows]
    matrix = embeddings.matrix_from_bytes([v for _, v in rows])
    with _MATRICES_LOCK:
        _MATRICES[key] = (ids, matrix)
        while len(_MATRICES) > MATRIX_CACHE_SIZE:
            _MATRICES.popitem(last=False)
    return ids, matrix


def _embedding_ranking(question: str, paper_ids: list[int], limit: int) -> list[int]:
    if not paper_ids:
        return []
    ids, matrix = _passage_matrix(paper_ids)
    if not ids:
        return []
    query = embeddings.encode([question])[0]
    if not np.any(query):
        return []
    scores = matrix.astype(np.float32) @ query
    top = np.argsort(-scores, kind="stable")[:limit]
    return [ids[i] for i in top if scores[i] > 0]


def passages_search(
    *,
    question: str,
    paper_ids: list[int],
    limit: int = 8,
    method: str = "hybrid",
    distinct_first: int = DISTINCT_FIRST,
) -> list[Hit]:
    """The best passages of these papers for the question, best first.

    ``method`` is "hybrid" (both rankings fused by reciprocal rank), "embedding" or "fulltext"
    (one ranking alone, for the evaluation). Ties go to the newer paper. Among the first
    ``distinct_first`` passages no paper appears twice (its other passages follow them)."""
    rankings: dict[str, list[int]] = {}
    if method in ("hybrid", "embedding"):
        rankings["embedding"] = _embedding_ranking(question, paper_ids, CANDIDATES)
    if method in ("hybrid", "fulltext"):
        rankings["fulltext"] = _fulltext_ranking(question, paper_ids, CANDIDATES)
    fused: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, ranking in rankings.items():
        for rank, passage_id in enumerate(ranking, start=1):
            fused[passage_id] = fused.get(passage_id, 0.0) + 1.0 / (RRF_K + rank)
            ranks.setdefault(passage_id, {})[name] = rank
    if not fused:
        return []
    hits = {
        row["id"]: Hit(
            id=row["id"], paper_id=row["paper_id"], arxiv_id=row["paper__arxiv_id"],
            paper_title=row["paper__title"], announced=row["paper__announced"],
            kind=row["kind"], section=row["section"], text=row["text"], position=row["position"],
            score=round(fused[row["id"]], 6), ranks=ranks[row["id"]],
        )
        for row in Passage.objects.filter(id__in=list(fused)).values(
            "id", "paper_id", "paper__arxiv_id", "paper__title", "paper__announced", "kind",
            "section", "text", "position",
        )
    }  # fmt: skip
    ordered = sorted(
        hits.values(),
        key=lambda h: (-h.score, -(h.announced.toordinal() if h.announced else 0), -h.paper_id,
                       h.id),
    )  # fmt: skip
    return _distinct_first(ordered, distinct_first)[:limit]


def _overlaps(hit: Hit, chosen: list[Hit]) -> bool:
    """Abstract passages are overlapping windows of sentences: show one of a run, not three."""
    from ask.services.passages import ABSTRACT_WINDOW

    return hit.kind == "abstract" and any(
        c.paper_id == hit.paper_id and c.kind == "abstract"
        and abs(c.position - hit.position) < ABSTRACT_WINDOW
        for c in chosen
    )  # fmt: skip


def _distinct_first(hits: list[Hit], count: int) -> list[Hit]:
    first: list[Hit] = []
    later: list[Hit] = []
    papers: set[int] = set()
    for hit in hits:
        if _overlaps(hit, first) or _overlaps(hit, later):
            continue
        if len(first) < count and hit.paper_id not in papers:
            first.append(hit)
            papers.add(hit.paper_id)
        else:
            later.append(hit)
    return first + later
