"""The HTTP layer and the three clients against a fake arXiv on a real socket."""

import random
import threading
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from papers.arxiv_ids import InvalidArxivId
from papers.clients.atom import QueryClient
from papers.clients.errors import ArxivPermanentError, ArxivTransientError, BadResumptionToken
from papers.clients.gate import LocalRequestGate
from papers.clients.http import ArxivHttp, retry_after_seconds, user_agent
from papers.clients.oai import OaiClient
from papers.clients.rss import RssClient
from tests.fake_arxiv import FakeArxiv, read_fixture

AGENT = user_agent("0.1.0", "ops@example.org")


class RecordingGate:
    """A gate that remembers its turns and whether a turn is open."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.turns: list[tuple[float, float]] = []
        self.open = False

    @contextmanager
    def turn(self):
        assert not self.open, "turns must not nest"
        self.open = True
        start = time.monotonic()
        try:
            yield
        finally:
            self.open = False
            self.turns.append((start, time.monotonic()))


class TopOfRange(random.Random):
    """Backoff without the luck: every jittered wait is its upper bound."""

    def uniform(self, a: float, b: float) -> float:
        return b


@pytest.fixture
def fake():
    with FakeArxiv(stall_seconds=2.0) as server:
        yield server


@pytest.fixture
def gate():
    return RecordingGate()


@pytest.fixture
def sleeps(gate):
    waited: list[float] = []

    def sleep(seconds: float) -> None:
        assert not gate.open, "waits must happen outside the gate"
        waited.append(seconds)

    sleep.waited = waited
    return sleep


@pytest.fixture
def make_http(gate, sleeps):
    made: list[ArxivHttp] = []

    def make(**options) -> ArxivHttp:
        # Generous unless a test times out on purpose (those pass timeout=0.3 against the fake's
        # 2 s stall): at 0.5 s a loaded CI machine timed out a plain 404, the retry got a 200.
        options.setdefault("timeout", 5.0)
        http = ArxivHttp(gate, user_agent=AGENT, sleep=sleeps, **options)
        made.append(http)
        return http

    yield make
    for http in made:
        http.close()


# --- the HTTP layer -----------------------------------------------------------------------------
def test_it_identifies_itself_and_decodes_gzip(fake, make_http):
    body = make_http().get(f"{fake.url}/rss/cs.LG")
    assert body == read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz")
    (request,) = fake.requests
    assert request.headers["user-agent"] == "Paperscope/0.1.0 (mailto:ops@example.org)"
    assert "gzip" in request.headers["accept-encoding"]


def test_every_request_runs_inside_a_turn_of_the_gate(fake, make_http, gate):
    fake.inject("500", "503")
    make_http().get(f"{fake.url}/rss/cs.LG")
    assert len(gate.turns) == len(fake.requests) == 3
    for (start, end), request in zip(gate.turns, fake.requests, strict=True):
        assert start <= request.at <= end


def test_it_honours_the_recorded_retry_after(fake, make_http, sleeps):
    fake.inject("503")
    body = make_http().get(fake.oai_url, params={"verb": "ListRecords", "metadataPrefix": "arXiv"})
    assert sleeps.waited == [10.0]  # the recorded 503 says "Retry-After: 10"
    assert body == read_fixture("oai/oai_2018_listrecords_arXiv_2015-01-01_2015-01-03.xml")
    assert [r.fault for r in fake.requests] == ["503", None]


def test_it_honours_retry_after_on_429(fake, make_http, sleeps):
    fake.inject("429")
    make_http().get(f"{fake.url}/rss/cs.AI")
    assert sleeps.waited == [5.0]


def test_a_retry_after_beyond_the_cap_is_handed_to_the_caller(fake, make_http, sleeps):
    fake.inject("503")
    with pytest.raises(ArxivTransientError) as caught:
        make_http(max_retry_after=5.0).get(f"{fake.url}/rss/cs.AI")
    assert caught.value.retry_after == 10.0
    assert sleeps.waited == []
    assert len(fake.requests) == 1


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    in_a_minute = format_datetime(now + timedelta(seconds=60), usegmt=True)
    assert retry_after_seconds("10", now.timestamp()) == 10.0
    assert retry_after_seconds(in_a_minute, now.timestamp()) == pytest.approx(60.0)
    assert (
        retry_after_seconds(format_datetime(now - timedelta(hours=1), usegmt=True), now.timestamp())
        == 0
    )
    assert retry_after_seconds("soon", now.timestamp()) is None
    assert retry_after_seconds(None, now.timestamp()) is None


def test_backoff_is_exponential_capped_and_bounded(fake, make_http, sleeps):
    fake.inject(*["500"] * 10)
    http = make_http(max_attempts=5, backoff_base=2.0, backoff_max=10.0, rng=TopOfRange())
    with pytest.raises(ArxivTransientError, match="gave up after 5 attempts"):
        http.get(f"{fake.url}/rss/cs.LG")
    assert len(fake.requests) == 5
    assert sleeps.waited == [2.0, 4.0, 8.0, 10.0]


def test_backoff_has_full_jitter(fake, make_http, sleeps):
    fake.inject(*["500"] * 4)
    make_http(max_attempts=5, backoff_base=2.0, rng=random.Random(7)).get(f"{fake.url}/rss/cs.LG")
    caps = [2.0, 4.0, 8.0, 16.0]
    assert len(sleeps.waited) == 4
    assert all(0 <= wait <= cap for wait, cap in zip(sleeps.waited, caps, strict=True))
    assert sleeps.waited != caps


@pytest.mark.parametrize("status", [400, 403, 404, 410])
def test_permanent_errors_are_not_retried(fake, make_http, sleeps, status):
    fake.inject(f"status:{status}")
    with pytest.raises(ArxivPermanentError) as caught:
        make_http().get(f"{fake.url}/rss/cs.LG")
    assert caught.value.code == status
    assert len(fake.requests) == 1
    assert sleeps.waited == []


@pytest.mark.parametrize(
    "fault", ["truncate", "timeout", "reset", "500", "status:502", "503", "429", "status:408"]
)
def test_each_transient_fault_is_transient(fake, make_http, fault):
    fake.inject(fault)
    started = time.monotonic()
    with pytest.raises(ArxivTransientError):
        make_http(max_attempts=1, timeout=0.3).get(f"{fake.url}/rss/cs.LG")
    assert time.monotonic() - started < 1.5  # a timeout is the client's, not the server's stall


@pytest.mark.parametrize("fault", ["truncate", "timeout", "reset"])
def test_a_transient_fault_is_survived(fake, make_http, fault):
    fake.inject(fault)
    body = make_http(timeout=0.3).get(f"{fake.url}/rss/cs.LG")
    assert body == read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz")
    assert [r.fault for r in fake.requests] == [fault, None]


def test_a_refused_connection_is_transient(make_http):
    with FakeArxiv() as gone:
        url = gone.url
    with pytest.raises(ArxivTransientError):
        make_http(max_attempts=2).get(f"{url}/rss/cs.LG")


def test_requests_through_a_local_gate_are_spaced(fake):
    http = ArxivHttp(LocalRequestGate(0.2), user_agent=AGENT, timeout=2.0)
    threads = [
        threading.Thread(target=http.get, args=(f"{fake.url}/rss/physics",)) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    http.close()
    arrivals = sorted(r.at for r in fake.requests)
    assert all(b - a >= 0.19 for a, b in zip(arrivals, arrivals[1:], strict=False))


# --- OAI-PMH client -----------------------------------------------------------------------------
def test_oai_follows_resumption_tokens(fake, make_http):
    pages = list(OaiClient(make_http(), fake.oai_url).list_records("arXivRaw", "cs", None))
    assert [len(p.records) for p in pages] == [200, 187]
    assert [p.resumption_token for p in pages] == ["1403493|201", None]
    first, second = fake.requests
    assert first.query == {"verb": ["ListRecords"], "metadataPrefix": ["arXivRaw"], "set": ["cs"]}
    assert second.query == {"verb": ["ListRecords"], "resumptionToken": ["1403493|201"]}


def test_oai_sends_dates_and_resumes_from_a_stored_token(fake, make_http):
    from datetime import date

    client = OaiClient(make_http(), fake.oai_url)
    next(client.list_records("arXivRaw", None, date(2014, 10, 1), date(2014, 10, 31)))
    assert fake.requests[0].query["from"] == ["2014-10-01"]
    assert fake.requests[0].query["until"] == ["2014-10-31"]
    pages = list(client.list_records(resumption_token="1403493|201"))
    assert [len(p.records) for p in pages] == [187]


def test_oai_expired_token_is_bad_resumption_token(fake, make_http):
    with pytest.raises(BadResumptionToken):
        list(OaiClient(make_http(), fake.oai_url).list_records(resumption_token="726959|1001"))


def test_oai_survives_faults_mid_list_without_losing_or_doubling(fake, make_http):
    fake.inject("503", "timeout", "truncate", route="oai")
    client = OaiClient(make_http(timeout=0.3), fake.oai_url)
    records = [r.arxiv_id for page in client.list_records() for r in page.records]
    assert len(records) == len(set(records)) == 387


def test_oai_broken_record_is_reported_and_the_page_kept(fake, make_http):
    fake.inject("broken_record", route="oai")
    first = next(OaiClient(make_http(), fake.oai_url).list_records())
    assert (len(first.records), len(first.malformed)) == (199, 1)
    assert first.malformed[0].identifier == "0808.3386"
    assert first.resumption_token == "1403493|201"


def test_oai_get_record(fake, make_http):
    client = OaiClient(make_http(), fake.oai_url)
    assert client.get_record("arXiv:1302.2146v2").title.startswith("The Same-Sign Dilepton")
    assert fake.requests[0].query["identifier"] == ["oai:arXiv.org:1302.2146"]
    assert client.get_record("0804.9999") is None


# --- RSS client ---------------------------------------------------------------------------------
def test_rss_joins_categories_in_one_request(fake, make_http):
    fake.rss_feeds["cs.LG+cs.AI"] = "rss/luvata_2024-06-01-cs-lg.xml.gz"
    page = RssClient(make_http(), fake.rss_url + "/").fetch(["cs.LG", "cs.AI"])
    assert len(page.records) == 285
    assert [r.path for r in fake.requests] == ["/rss/cs.LG+cs.AI"]


def test_rss_refuses_names_that_are_not_categories(fake, make_http):
    client = RssClient(make_http(), fake.rss_url)
    for bad in ([], ["cs.LG/../x"], ["cs LG"]):
        with pytest.raises(ValueError, match="categor"):
            client.fetch(bad)
    assert fake.requests == []


# --- query API client ---------------------------------------------------------------------------
def test_query_batches_of_at_most_100(fake, make_http):
    ids = ["1707.08567", "quant-ph/0201082v1", "arXiv:1605.08386"]
    ids += [f"2501.{n:05d}" for n in range(1, 248)]
    page = QueryClient(make_http(), fake.api_url).fetch_ids(ids)
    assert sorted(r.versioned_id for r in page.records) == [
        "1605.08386v1", "1707.08567v1", "quant-ph/0201082v1",
    ]  # fmt: skip
    sent = [r.query["id_list"][0].split(",") for r in fake.requests]
    assert [len(batch) for batch in sent] == [100, 100, 50]
    assert [r.query["max_results"] for r in fake.requests] == [["100"], ["100"], ["50"]]
    assert sent[0][:3] == ["1707.08567", "quant-ph/0201082v1", "1605.08386"]


def test_query_asks_each_id_once_and_validates_first(fake, make_http):
    client = QueryClient(make_http(), fake.api_url)
    client.fetch_ids(["1707.08567", "arXiv:1707.08567", "https://arxiv.org/abs/1707.08567"])
    assert fake.requests[0].query["id_list"] == ["1707.08567"]
    with pytest.raises(InvalidArxivId):
        client.fetch_ids(["1707.08567", "abc"])
    assert len(fake.requests) == 1


def test_query_error_feed_is_permanent_with_arxivs_reason(fake, make_http, sleeps):
    fake.api_rejects.add("1707.08567")
    with pytest.raises(ArxivPermanentError, match="incorrect id format") as caught:
        QueryClient(make_http(), fake.api_url).fetch_ids(["1707.08567"])
    assert caught.value.code == "incorrect_id_format_for_abc"
    assert len(fake.requests) == 1
    assert sleeps.waited == []
