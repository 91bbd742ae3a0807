"""Harvesting against a fake arXiv on a real socket: what is stored after each fault.

Every test asserts the rows afterwards: nothing lost, nothing doubled.
"""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import call_command

from papers.clients.atom import QueryClient
from papers.clients.errors import ArxivTransientError
from papers.clients.http import ArxivHttp
from papers.clients.oai import OaiClient
from papers.clients.rss import RssClient
from papers.models import HarvestWatermark, Paper, PendingLookup
from papers.services.harvest import harvest_ids, harvest_oai, harvest_rss, watermark_get
from tests.fake_arxiv import read_fixture

pytestmark = pytest.mark.django_db(transaction=True)

OAI_TOTAL = 387  # distinct papers on the two recorded arXivRaw pages the fake serves
# Long enough that a loaded CI machine answers a normal 200-paper page within it (at 1 s a page
# sometimes timed out under load, and the retry counted as a second fault), short enough that
# the "timeout" fault's one wait stays cheap.
CLIENT_TIMEOUT = 2.5


class Sleeps(list):
    """Records the waits the client asks for instead of sleeping through a 10 s Retry-After."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps():
    return Sleeps()


@pytest.fixture
def http(sleeps):
    client = ArxivHttp.from_settings(sleep=sleeps, timeout=CLIENT_TIMEOUT, max_attempts=3)
    yield client
    client.close()


def oai(http, fake) -> OaiClient:
    return OaiClient(http, fake.oai_url)


def test_it_harvests_oai_following_the_resumption_token(fake_arxiv, http):
    result = harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    assert (result.created, result.malformed) == (OAI_TOTAL, 0)
    assert Paper.objects.count() == OAI_TOTAL
    assert watermark_get(source="oai:arXivRaw:cs") == {"until": "2016-10-21"}
    assert fake_arxiv.requests[0].headers["user-agent"].startswith("Paperscope/")
    assert "mailto:" in fake_arxiv.requests[0].headers["user-agent"]


def test_harvesting_twice_changes_nothing(fake_arxiv, http):
    harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    before = list(Paper.objects.order_by("arxiv_id").values())
    again = harvest_oai(set_spec="cs", client=oai(http, fake_arxiv))
    assert (again.created, again.updated, again.unchanged) == (0, 0, OAI_TOTAL)
    assert list(Paper.objects.order_by("arxiv_id").values()) == before
    # The second run looked back RECHECK_DAYS from the watermark.
    assert "from=2016-10-18" in fake_arxiv.requests[-2].path


def test_the_recorded_503_with_retry_after_is_waited_out(fake_arxiv, http, sleeps):
    fake_arxiv.inject("503", route="oai")
    harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    assert sleeps[0] == 10.0
    assert Paper.objects.count() == OAI_TOTAL


@pytest.mark.parametrize("fault", ["timeout", "reset", "truncate", "500", "429"])
def test_transient_faults_are_retried_and_nothing_is_doubled(fake_arxiv, http, sleeps, fault):
    fake_arxiv.stall_seconds = CLIENT_TIMEOUT + 1.5  # past the client's timeout
    fake_arxiv.inject(fault, route="oai")
    result = harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    assert result.created == OAI_TOTAL
    assert Paper.objects.count() == OAI_TOTAL
    assert len(sleeps) == 1


def test_a_harvest_killed_after_its_first_page_resumes_without_loss_or_duplicates(fake_arxiv, http):
    # The second page fails on every attempt: the run dies after committing page one.
    fake_arxiv.inject("500", "500", "500", route="oai")
    fake_arxiv.inject()  # nothing else queued
    client = oai(http, fake_arxiv)
    first_page_then_fail = _fail_after_first_page(fake_arxiv)
    with pytest.raises(ArxivTransientError):
        harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=first_page_then_fail)
    assert Paper.objects.count() == 200
    state = watermark_get(source="oai:arXivRaw:cs")
    assert state["token"] == "1403493|201"
    # The next run resumes from the stored token and stores only the rest.
    result = harvest_oai(set_spec="cs", client=client)
    assert result.created == OAI_TOTAL - 200
    assert Paper.objects.count() == OAI_TOTAL
    assert watermark_get(source="oai:arXivRaw:cs") == {"until": "2016-10-21"}


def _fail_after_first_page(fake):
    """An OaiClient whose server breaks after the first page, on every retry."""
    failing_http = ArxivHttp.from_settings(
        sleep=lambda _: None, timeout=CLIENT_TIMEOUT, max_attempts=3
    )
    client = OaiClient(failing_http, fake.oai_url)
    original = client._fetch
    calls = {"n": 0}

    def fetch(params):
        calls["n"] += 1
        if calls["n"] == 2:
            fake.inject("500", "500", "500", route="oai")
        return original(params)

    fake._faults.clear()
    client._fetch = fetch
    return client


def test_an_expired_resumption_token_restarts_the_list_without_duplicates(fake_arxiv, http):
    client = oai(http, fake_arxiv)
    pages = iter(
        [None, "bad_token"]  # the first request is fine, the token request answers expired
    )
    original = client._fetch

    def fetch(params):
        fault = next(pages, None)
        if fault:
            fake_arxiv.inject(fault, route="oai")
        return original(params)

    client._fetch = fetch
    result = harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=client)
    assert Paper.objects.count() == OAI_TOTAL
    assert result.created == OAI_TOTAL
    assert result.unchanged == 200  # page one came again after the restart
    assert watermark_get(source="oai:arXivRaw:cs") == {"until": "2016-10-21"}


def test_a_broken_record_is_counted_and_the_rest_of_its_page_is_kept(fake_arxiv, http):
    fake_arxiv.inject("broken_record", route="oai")
    result = harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    assert result.malformed == 1
    assert Paper.objects.count() == OAI_TOTAL - 1


def test_a_permanent_error_is_not_retried_and_stores_nothing(fake_arxiv, http, sleeps):
    fake_arxiv.inject("status:400", route="oai")
    with pytest.raises(Exception, match="400"):
        harvest_oai(set_spec="cs", from_date=date(2016, 10, 20), client=oai(http, fake_arxiv))
    assert sleeps == []
    assert len(fake_arxiv.requests) == 1
    assert Paper.objects.count() == 0
    assert not HarvestWatermark.objects.exists()


def test_it_harvests_the_rss_feed_once(fake_arxiv, http):
    client = RssClient(http, fake_arxiv.rss_url)
    result = harvest_rss(categories=["cs.LG"], client=client)
    assert result.created == 285
    assert Paper.objects.filter(announced=date(2024, 5, 31)).exists()
    again = harvest_rss(categories=["cs.LG"], client=client)
    assert (again.created, again.updated) == (0, 0)
    assert Paper.objects.count() == 285


def test_it_fetches_ids_and_marks_unknown_ones(fake_arxiv, http):
    PendingLookup.objects.bulk_create(
        [PendingLookup(arxiv_id="1707.08567"), PendingLookup(arxiv_id="2501.99999")]
    )
    client = QueryClient(http, fake_arxiv.api_url)
    result = harvest_ids(arxiv_ids=["1707.08567", "2501.99999"], client=client)
    assert result.created == 1
    assert Paper.objects.filter(arxiv_id="1707.08567").exists()
    assert list(PendingLookup.objects.values_list("arxiv_id", "not_found")) == [
        ("2501.99999", True)
    ]


def test_import_arxiv_stores_saved_files_and_a_second_run_changes_nothing(tmp_path, capsys):
    feed = tmp_path / "cs-lg.xml.gz"
    feed.write_bytes(
        __import__("gzip").compress(read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz"))
    )
    oai_file = tmp_path / "oai.xml"
    oai_file.write_bytes(read_fixture("oai/oai_2015_getrecord_arXivRaw_1302.2146.xml"))
    call_command("import_arxiv", str(feed), str(oai_file))
    assert "created 286" in capsys.readouterr().out
    call_command("import_arxiv", str(feed), str(oai_file))
    assert "created 0, updated 0, unchanged 286" in capsys.readouterr().out
    assert Paper.objects.count() == 286


def test_import_arxiv_refuses_a_file_that_is_not_an_arxiv_response(tmp_path):
    good = tmp_path / "a.xml"
    good.write_bytes(read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz"))
    bad = tmp_path / "b.html"
    bad.write_text("<html><body>not a feed</body></html>")
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="not an OAI-PMH, RSS or Atom file"):
        call_command("import_arxiv", str(bad), str(good))
    assert Paper.objects.count() == 0


def test_a_paper_saved_before_we_had_it_is_linked_when_it_arrives(fake_arxiv, http):
    from django.contrib.auth import get_user_model

    from accounts.models import ListItem, ReadingList
    from accounts.services.lists import list_item_save

    reader = get_user_model().objects.create_user("reader", password="long enough pw 1")
    reading_list = ReadingList.objects.get(user=reader)
    item, _ = list_item_save(user=reader, list_id=reading_list.id, arxiv_id="1707.08567v2")
    assert item.paper_id is None
    harvest_ids(arxiv_ids=["1707.08567"], client=QueryClient(http, fake_arxiv.api_url))
    item = ListItem.objects.get(pk=item.pk)
    assert item.paper == Paper.objects.get(arxiv_id="1707.08567")


def test_an_unknown_id_from_the_extension_is_fetched_tagged_and_then_known(
    fake_arxiv, client, settings
):
    from django.core.management import call_command as run

    run("load_taxonomy", verbosity=0)
    settings.ARXIV_FETCH_ON_DEMAND = True
    settings.ARXIV_API_URL = fake_arxiv.api_url
    first = client.post(
        "/api/v1/papers/lookup", {"ids": ["arXiv:1707.08567v1"]}, content_type="application/json"
    ).json()
    assert first["pending"] == ["1707.08567"]
    # The on-demand fetch ran (eagerly here; a worker in production) and the tagger read the
    # paper. It is a workshop's front matter, which a tagger fit may leave with no topic above
    # the floor (fit-24 does): tagged means read and stored, topics or none.
    paper = Paper.objects.get(arxiv_id="1707.08567")
    assert paper.tagged_at is not None
    assert paper.tags_json is not None
    assert not PendingLookup.objects.exists()
    second = client.post(
        "/api/v1/papers/lookup", {"ids": ["1707.08567"]}, content_type="application/json"
    ).json()
    assert second["pending"] == []
    assert second["papers"][0]["arxiv_id"] == "1707.08567"
    assert len(second["papers"][0]["tags"]) == paper.tags.count()  # what was stored, topics or none
