"""Retrieval quality on the evaluation set: recall@k (the share of a question's answering papers
with an answering passage among the first k) and MRR (1 / rank of the first answering passage
among the first ten, 0 when none is)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ask.text import squash

QUESTIONS = Path(__file__).resolve().parent / "questions.jsonl"
MRR_DEPTH = 10


@dataclass(frozen=True)
class Answer:
    arxiv_id: str
    texts: tuple[str, ...]  # any passage of the paper holding one of these answers


@dataclass(frozen=True)
class Question:
    id: str
    scope: str  # "topic" or "paper"
    target: str  # topic slug or arXiv id
    question: str
    answers: tuple[Answer, ...]
    source: str


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            Question(
                id=row["id"],
                scope=row["scope"],
                target=row["topic"] if row["scope"] == "topic" else row["arxiv_id"],
                question=row["question"],
                answers=tuple(Answer(a["arxiv_id"], tuple(a["texts"])) for a in row["answers"]),
                source=row["source"],
            )
        )
    return out


def answers_passage(answer: Answer, arxiv_id: str, text: str) -> bool:
    text = squash(text)
    return arxiv_id == answer.arxiv_id and any(squash(t) in text for t in answer.texts)


def recall_at(question: Question, ranked: list[tuple[str, str]], k: int = 5) -> float:
    """``ranked``: (arxiv_id, passage text) best first."""
    found = sum(1 for a in question.answers if any(answers_passage(a, i, t) for i, t in ranked[:k]))
    return found / min(len(question.answers), k)


def reciprocal_rank(question: Question, ranked: list[tuple[str, str]]) -> float:
    for rank, (arxiv_id, text) in enumerate(ranked[:MRR_DEPTH], start=1):
        if any(answers_passage(a, arxiv_id, text) for a in question.answers):
            return 1.0 / rank
    return 0.0
