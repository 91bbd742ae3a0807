"""Ask's fixtures: the fake model server, a fake arXiv that also serves full texts, and a topic
whose papers are real ones from the bundled sample (titles and abstracts as arXiv gave them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from papers.tests.factories import paper_create
from tests.fake_arxiv import FakeArxiv, _Reply
from tests.fake_llm import FakeLlm
from topics.tests.factories import area_create, tag_create, topic_create

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLE = json.loads((FIXTURES / "sample_papers.json").read_text())


class FakeArxivFullText(FakeArxiv):
    """The fake arXiv plus /html/<id>v<n> (LaTeXML pages) and /pdf/<id>v<n> from Ask's fixtures;
    404 for a paper without one, like arXiv for papers it could not render."""

    def reply(self, path: str, query: dict[str, list[str]]) -> _Reply:
        for prefix, kind, content_type in (("/html/", "html", "text/html; charset=utf-8"),
                                           ("/pdf/", "pdf", "application/pdf")):  # fmt: skip
            if path.startswith(prefix):
                arxiv_id = path[len(prefix) :].rsplit("v", 1)[0]
                name = FIXTURES / f"{kind}_{arxiv_id}.{kind}"
                if name.is_file():
                    return _Reply(body=name.read_bytes(), content_type=content_type)
                return _Reply(404, b"No HTML for this paper", content_type="text/html")
        return super().reply(path, query)


@pytest.fixture
def fake_fulltext(settings) -> Iterator[FakeArxivFullText]:
    with FakeArxivFullText() as server:
        settings.ARXIV_HTML_URL = f"{server.url}/html"
        settings.ARXIV_PDF_URL = f"{server.url}/pdf"
        settings.ARXIV_REQUEST_DELAY = 0.0
        yield server


@pytest.fixture
def fake_llm(settings) -> Iterator[FakeLlm]:
    with FakeLlm() as server:
        settings.LLM_BASE_URL = server.url
        settings.LLM_MODEL = "fake-model"
        settings.LLM_API_KEY = "test-key"
        settings.LLM_TIMEOUT = 3.0
        yield server


def sample_paper(arxiv_id: str, **changes):
    row = {**SAMPLE[arxiv_id], **changes}
    return paper_create(
        arxiv_id=arxiv_id,
        title=row["title"],
        abstract=row["abstract"],
        announced=date.fromisoformat(row["announced"]),
        version=row.get("version", 1),
    )


@pytest.fixture
def agent_topic():
    """Topic "agentic-rl" with six real papers of the sample: three on credit assignment in
    agent training, three on other things."""
    area = area_create()
    topic = topic_create(parent=area, slug="agentic-rl", name="Agentic RL")
    papers = {arxiv_id: sample_paper(arxiv_id) for arxiv_id in SAMPLE}
    for paper in papers.values():
        tag_create(paper=paper, topic=topic)
    return {"topic": topic, "papers": papers}


@pytest.fixture(autouse=True)
def _fresh_passage_vectors():
    """Each test's database starts again from the same ids (rolled back, SQLite reuses them):
    vectors kept in memory by an earlier test must not answer for this one."""
    from ask.selectors import _MATRICES

    _MATRICES.clear()
    yield
    _MATRICES.clear()
