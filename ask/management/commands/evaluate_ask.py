"""Measure Ask's retrieval on the evaluation set (ask/evaluation/questions.jsonl): recall@5 and
MRR for the hybrid, embeddings alone and full-text search alone. Needs the bundled sample
(make run, or import_arxiv data/sample/rss + tag_papers); paper questions read the full texts
in ask/tests/fixtures, stored for their papers first."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ask.evaluation.metrics import load_questions, recall_at, reciprocal_rank
from ask.models import PaperText
from ask.selectors import passages_search, topic_paper_ids
from ask.services.fulltext import paper_text_store
from ask.services.passages import passages_index_papers
from ask.text import sections_from_html, sections_from_pdf
from papers.models import Paper
from topics.models import Topic

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
METHODS = ("hybrid", "embedding", "fulltext")


def _fixture_text(paper: Paper) -> None:
    if PaperText.objects.filter(paper=paper, version=paper.version).exclude(source="none").exists():
        return
    html = FIXTURES / f"html_{paper.arxiv_id}.html"
    pdf = FIXTURES / f"pdf_{paper.arxiv_id}.pdf"
    if html.is_file():
        paper_text_store(paper=paper, source="html", sections=sections_from_html(html.read_bytes()))
    elif pdf.is_file():
        paper_text_store(paper=paper, source="pdf", sections=sections_from_pdf(pdf.read_bytes()))
    else:
        raise CommandError(f"no full-text fixture for {paper.arxiv_id}")


class Command(BaseCommand):
    help = "Retrieval recall@5 and MRR of Ask on the evaluation set, per method and scope."

    def add_arguments(self, parser):
        parser.add_argument("--verbose-misses", action="store_true", help="list questions missed")

    def handle(self, *args, verbose_misses: bool = False, **options):
        questions = load_questions()
        corpus: dict[str, list[int]] = {}
        for q in questions:
            if q.target in corpus:
                continue
            if q.scope == "topic":
                topic = Topic.objects.filter(slug=q.target).first()
                if topic is None:
                    raise CommandError(f"{q.id}: no topic {q.target}; load the sample first")
                ids = topic_paper_ids(topic_id=topic.id)
            else:
                paper = Paper.objects.filter(arxiv_id=q.target).first()
                if paper is None:
                    raise CommandError(f"{q.id}: no paper {q.target}; load the sample first")
                _fixture_text(paper)
                ids = [paper.id]
            passages_index_papers(papers=Paper.objects.filter(id__in=ids))
            corpus[q.target] = ids
        known = {
            pid: aid
            for pid, aid in Paper.objects.filter(
                id__in={i for ids in corpus.values() for i in ids}
            ).values_list("id", "arxiv_id")
        }
        for q in questions:
            missing = [a.arxiv_id for a in q.answers if a.arxiv_id not in
                       {known[i] for i in corpus[q.target]}]  # fmt: skip
            if missing:
                raise CommandError(f"{q.id}: {missing} not among the papers of {q.target}")
        rows = []
        for method in METHODS:
            per_scope: dict[str, list[tuple[float, float]]] = {}
            started = time.monotonic()
            for q in questions:
                hits = passages_search(question=q.question, paper_ids=corpus[q.target],
                                       limit=10, method=method,
                                       distinct_first=5 if q.scope == "topic" else 0)  # fmt: skip
                ranked = [(h.arxiv_id, h.text) for h in hits]
                recall, rr = recall_at(q, ranked), reciprocal_rank(q, ranked)
                per_scope.setdefault(q.scope, []).append((recall, rr))
                per_scope.setdefault("all", []).append((recall, rr))
                if verbose_misses and recall < 1:
                    self.stdout.write(f"  {method:9} {q.id} recall@5={recall:.2f} {q.question}")
            elapsed = (time.monotonic() - started) / len(questions) * 1000
            for scope in ("topic", "paper", "all"):
                values = per_scope.get(scope, [])
                if values:
                    recall = sum(r for r, _ in values) / len(values)
                    mrr = sum(m for _, m in values) / len(values)
                    rows.append((method, scope, len(values), recall, mrr, elapsed))
        self.stdout.write("| method | questions | n | recall@5 | MRR | ms / question |")
        self.stdout.write("|---|---|---|---|---|---|")
        for method, scope, n, recall, mrr, ms in rows:
            self.stdout.write(f"| {method} | {scope} | {n} | {recall:.3f} | {mrr:.3f} | {ms:.0f} |")
