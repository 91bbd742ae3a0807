"""OpenAlex enrichment against a fake OpenAlex over real HTTP: batches of 50 by arXiv DOI, the
polite pool, institutions per author and citation counts stored once, and faults (429, 403,
timeouts, resets, 5xx, garbage, works it does not know, no server at all) that lose nothing."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache

from papers.clients.errors import ArxivTransientError
from papers.clients.gate import LocalRequestGate
from papers.clients.http import ArxivHttp
from papers.clients.openalex import TRANSIENT_STATUSES, OpenAlexClient, arxiv_id_of
from papers.models import Paper
from papers.services.enrich import enrich_papers, papers_to_enrich
from papers.tests.factories import paper_create
from tests.fake_openalex import FakeOpenAlex

pytestmark = pytest.mark.django_db

AUTHORS = ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
INSTITUTIONS = [["University of London"], ["University of Manchester", "Bletchley Park"], []]


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def openalex():
    with FakeOpenAlex(stall_seconds=5.0) as fake:
        yield fake


def client_for(fake, *, attempts: int = 4, use_cache: bool = True) -> OpenAlexClient:
    http = ArxivHttp(
        LocalRequestGate(0.0),
        user_agent="Paperscope/test (mailto:ops@example.org)",
        timeout=1.5,  # well past a loaded machine's answer, well short of the fake's 5 s stall
        max_attempts=attempts,
        sleep=lambda seconds: None,
        service="OpenAlex",
        transient_statuses=TRANSIENT_STATUSES,
    )
    return OpenAlexClient(
        http, fake.url, mailto="ops@example.org", cache=cache if use_cache else None
    )


def papers(count: int, *, known: int, fake) -> list[Paper]:
    made = []
    for n in range(count):
        arxiv_id = f"2503.{n + 1:05d}"
        made.append(paper_create(arxiv_id=arxiv_id, authors=AUTHORS))
        if n < known:
            fake.add_work(
                arxiv_id, authors=list(zip(AUTHORS, INSTITUTIONS, strict=True)), cited_by_count=n
            )
    return made


def test_dois_in_openalex_form_map_back_to_arxiv_ids():
    assert arxiv_id_of("https://doi.org/10.48550/arxiv.2503.00001") == "2503.00001"
    assert arxiv_id_of("10.48550/arXiv.hep-th/9901001") == "hep-th/9901001"
    assert arxiv_id_of("https://doi.org/10.1038/nature14539") is None
    assert arxiv_id_of(None) is None


def test_batches_of_50_by_arxiv_doi_in_the_polite_pool(openalex):
    papers(120, known=100, fake=openalex)
    result = enrich_papers(client=client_for(openalex))
    assert (result.asked, result.found, result.unknown, result.requests) == (120, 100, 20, 3)
    assert [len(r.dois) for r in openalex.requests] == [50, 50, 20]
    first = openalex.requests[0]
    assert first.dois[0].startswith("10.48550/arXiv.25")
    assert first.query["mailto"] == ["ops@example.org"]
    assert first.query["per-page"] == ["50"]
    assert first.query["select"] == ["id,doi,cited_by_count,authorships"]
    assert first.headers["user-agent"].startswith("Paperscope/")


def test_institutions_per_author_and_citations_are_stored_once(openalex):
    papers(3, known=2, fake=openalex)
    client = client_for(openalex)
    enrich_papers(client=client)
    paper = Paper.objects.get(arxiv_id="2503.00002")
    assert paper.affiliations == INSTITUTIONS
    assert paper.cited_by_count == 1
    assert paper.openalex_id.startswith("W")
    unknown = Paper.objects.get(arxiv_id="2503.00003")
    assert (unknown.affiliations, unknown.cited_by_count, unknown.openalex_id) == ([], None, "")
    assert unknown.enriched_at is not None
    # Again, for the same papers: the same values, nothing doubled, and no new request (cached).
    asked = len(openalex.requests)
    enrich_papers(client=client, arxiv_ids=["2503.00001", "2503.00002", "2503.00003"])
    assert len(openalex.requests) == asked
    assert Paper.objects.get(arxiv_id="2503.00002").affiliations == INSTITUTIONS
    # Nothing is due now; the unknown one comes back after a few days while it is recent.
    assert papers_to_enrich() == []


@pytest.mark.parametrize("fault", ["429", "403", "500", "timeout", "reset"])
def test_a_fault_is_retried_and_nothing_is_lost_or_doubled(openalex, fault):
    papers(60, known=60, fake=openalex)
    openalex.inject(fault)
    result = enrich_papers(client=client_for(openalex))
    assert (result.found, result.requests) == (60, 2)
    assert openalex.requests[0].fault == fault
    assert all(p.affiliations == INSTITUTIONS for p in Paper.objects.all())
    assert papers_to_enrich() == []


def test_when_faults_outlast_the_retries_the_stored_batches_stay_and_the_rest_stays_due(openalex):
    papers(60, known=60, fake=openalex)
    client = client_for(openalex, attempts=2)
    openalex.inject("", "500", "garbage")  # the first request works, the second batch fails twice
    with pytest.raises(ArxivTransientError):
        enrich_papers(client=client)
    stored = Paper.objects.exclude(enriched_at=None)
    assert stored.count() == 50
    assert len(papers_to_enrich()) == 10
    # The retry (the Celery task's) asks only for what is still due and finishes the job.
    result = enrich_papers(client=client)
    assert (result.asked, result.found) == (10, 10)
    assert Paper.objects.filter(enriched_at=None).count() == 0
    assert all(p.affiliations == INSTITUTIONS for p in Paper.objects.all())
    assert [r.fault for r in openalex.requests] == ["", "500", "garbage", None]


def test_unreachable_openalex_is_said_once_and_nothing_is_marked(caplog):
    paper_create(arxiv_id="2503.00001", authors=AUTHORS)
    http = ArxivHttp(
        LocalRequestGate(0.0), user_agent="t", timeout=0.5, max_attempts=2,
        sleep=lambda s: None, service="OpenAlex",
    )  # fmt: skip
    client = OpenAlexClient(http, "http://127.0.0.1:9", cache=cache)  # the discard port
    with caplog.at_level(logging.WARNING, logger="papers.services.enrich"):
        assert enrich_papers(client=client).unreachable
        assert enrich_papers(client=client).unreachable
    said = [r for r in caplog.records if "is not reachable" in r.getMessage()]
    assert len(said) == 1
    assert papers_to_enrich() == ["2503.00001"]  # still due: asked again later


def test_arxiv_affiliations_win_and_names_match_when_counts_differ(openalex):
    paper = paper_create(
        arxiv_id="2503.00009",
        authors=["Ada Lovelace", "Alan Turing"],
        affiliations=[["Analytical Engine Society"], []],
    )
    openalex.add_work(
        "2503.00009",
        authors=[("A. Lovelace", ["University of London"]), ("Somebody Else", ["MIT"]),
                 ("A. M. Turing", ["University of Manchester"])],
    )  # fmt: skip
    enrich_papers(client=client_for(openalex))
    paper.refresh_from_db()
    assert paper.affiliations == [["Analytical Engine Society"], ["University of Manchester"]]


def test_each_harvest_queues_enrichment_of_its_new_papers(
    openalex, settings, django_capture_on_commit_callbacks
):
    """papers_created (sent after a harvest or import commits) runs the task (eager here)."""
    from django.db import transaction

    from papers.clients.records import PaperRecord
    from papers.services.storage import papers_upsert_records

    settings.OPENALEX_URL = openalex.url
    settings.OPENALEX_TIMEOUT = 1.0
    openalex.add_work("2504.00001", authors=[("Ada Lovelace", ["University of London"])])
    record = PaperRecord(
        arxiv_id="2504.00001", version=1, title="A new paper", authors=("Ada Lovelace",)
    )
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        papers_upsert_records(records=[record])
    paper = Paper.objects.get(arxiv_id="2504.00001")
    assert paper.affiliations == [["University of London"]]
    assert [r.dois for r in openalex.requests] == [["10.48550/arXiv.2504.00001"]]


def test_rows_the_detail_pane_and_the_api_show_what_openalex_said(openalex, client):
    papers(1, known=1, fake=openalex)
    enrich_papers(client=client_for(openalex))
    Paper.objects.filter(arxiv_id="2503.00001").update(cited_by_count=42)
    html = client.get("/search/", {"q": "sparse"}).content.decode()
    row, detail = html.split('<details class="row-more">', 1)
    assert "University of London · University of Manchester <span" in row
    assert ">+1</span>" in row  # Bletchley Park
    assert "University of London · University of Manchester · Bletchley Park" in detail
    assert "cited by 42" in detail
    body = client.get("/api/v1/papers/2503.00001").json()
    assert body["institutions"] == [
        "University of London",
        "University of Manchester",
        "Bletchley Park",
    ]
    assert body["cited_by_count"] == 42
    assert body["affiliations"] == INSTITUTIONS
