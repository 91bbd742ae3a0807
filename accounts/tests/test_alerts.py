"""Saved-paper alerts: when the harvester records a new version, a journal reference, a DOI or
a withdrawal of a saved paper, it shows on the list item, in /api/v1/me/alerts and in the next
digest, once; acknowledging it clears it everywhere."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command

from accounts.models import ListItem, PaperAlert
from accounts.services import lists as list_services
from accounts.services.alerts import alerts_record
from accounts.tests.conftest import as_session
from accounts.tests.digests_support import RSS, send_digests, text_of
from accounts.tests.factories import user_create
from papers.clients.records import PaperRecord
from papers.models import Paper
from papers.services.storage import papers_upsert_records
from papers.tests.factories import paper_create

pytestmark = pytest.mark.django_db
SAVED = "2404.17276"


def _import(capture, name: str) -> None:
    with capture(execute=True):
        call_command("import_arxiv", str(RSS / name), stdout=StringIO())


@pytest.fixture
def saved_v1(owner, django_capture_on_commit_callbacks):
    """The owner saved 2404.17276 at v1 (a derived fixture: the paper before its v2)."""
    _import(django_capture_on_commit_callbacks, "derived_2024-06-03-cs-lg_2404.17276v1.xml")
    default = list_services.reading_list_default(user=owner)
    list_services.list_item_save(user=owner, list_id=default.pk, arxiv_id=SAVED)
    return default


def test_a_newer_version_with_journal_ref_and_doi_shows_in_list_api_and_digest(
    me, saved_v1, flaky, django_capture_on_commit_callbacks
):
    item = ListItem.objects.get(arxiv_id=SAVED)
    assert (item.saved_version, item.saved_journal_ref, item.saved_doi) == (1, "", "")
    assert me.api("get", "/api/v1/me/alerts").json() == {"results": [], "next": None, "count": 0}

    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")  # the real v2

    page = as_session(me.user).client.get(f"/lists/{saved_v1.pk}/").content.decode()
    assert "v2 since you saved it (you saved v1)" in page
    assert "Published in Neural Computing and Applications, 2025" in page
    assert 'href="https://doi.org/10.1007/s00521-024-10607-2"' in page
    body = me.api("get", "/api/v1/me/alerts").json()
    assert body["count"] == 3
    by_kind = {alert["kind"]: alert for alert in body["results"]}
    assert by_kind["version"]["value"] == "2"
    assert by_kind["version"]["previous"] == "1"
    assert by_kind["version"]["text"] == "v2 since you saved it (you saved v1)"
    assert by_kind["journal_ref"]["text"] == "Published in Neural Computing and Applications, 2025"
    assert by_kind["doi"]["value"] == "10.1007/s00521-024-10607-2"
    assert by_kind["version"]["lists"] == [saved_v1.pk]
    assert by_kind["version"]["paper"]["version"] == 2
    assert not any(alert["in_digest"] for alert in body["results"])

    send_digests()
    [message] = mail.outbox
    news = text_of(message).split("== News about papers you saved ==")[1]
    assert "v2 since you saved it (you saved v1)" in news
    assert "1 saved paper updated" in message.subject
    assert all(a["in_digest"] for a in me.api("get", "/api/v1/me/alerts").json()["results"])

    # The same feed again changes nothing: no new alert, no second mention.
    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")
    send_digests()
    assert len(mail.outbox) == 1
    assert PaperAlert.objects.count() == 3


def test_got_it_on_the_list_page_clears_the_news_everywhere(
    owner_session, saved_v1, django_capture_on_commit_callbacks
):
    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")
    client = owner_session.client

    client.post(f"/lists/{saved_v1.pk}/items/{SAVED}/", {"action": "dismiss"})

    page = client.get(f"/lists/{saved_v1.pk}/").content.decode()
    assert "v2 since you saved it" not in page
    assert client.get("/api/v1/me/alerts").json()["count"] == 0
    item = ListItem.objects.get(arxiv_id=SAVED)
    assert (item.saved_version, item.saved_doi) == (2, "10.1007/s00521-024-10607-2")


def test_an_alert_is_dismissed_through_the_api(me, saved_v1, django_capture_on_commit_callbacks):
    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")
    alerts = me.api("get", "/api/v1/me/alerts").json()["results"]
    version = next(a for a in alerts if a["kind"] == "version")

    assert me.api("delete", f"/api/v1/me/alerts/{version['id']}").status_code == 204

    kinds = {a["kind"] for a in me.api("get", "/api/v1/me/alerts").json()["results"]}
    assert kinds == {"journal_ref", "doi"}
    page = as_session(me.user).client.get(f"/lists/{saved_v1.pk}/").content.decode()
    assert "v2 since you saved it" not in page
    assert "Published in Neural Computing" in page
    assert me.api("delete", f"/api/v1/me/alerts/{version['id'] + 1000}").status_code == 404


def test_other_people_see_only_their_own_alerts(
    me, other, saved_v1, django_capture_on_commit_callbacks
):
    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")
    theirs = PaperAlert.objects.filter(user=me.user).first()
    stranger = as_session(other)
    assert stranger.api("get", "/api/v1/me/alerts").json()["count"] == 0
    assert stranger.api("delete", f"/api/v1/me/alerts/{theirs.pk}").status_code == 404


def test_a_paper_saved_before_it_arrived_has_no_news_when_it_arrives(
    owner, django_capture_on_commit_callbacks
):
    default = list_services.reading_list_default(user=owner)
    list_services.list_item_save(user=owner, list_id=default.pk, arxiv_id=f"{SAVED}v2")

    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")

    item = ListItem.objects.get(arxiv_id=SAVED)
    assert item.paper is not None
    assert item.saved_version == 2
    assert item.saved_journal_ref == "Neural Computing and Applications, 2025"
    assert not PaperAlert.objects.exists()


def _record(paper: Paper, **changes) -> PaperRecord:
    fields = {
        "arxiv_id": paper.arxiv_id,
        "version": paper.version,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": tuple(paper.authors),
        "primary_category": paper.primary_category,
        "categories": tuple(paper.categories.split()),
        "source": "oai:arXivRaw",
    }
    return PaperRecord(**{**fields, **changes})


def test_a_withdrawn_saved_paper_is_shown_as_withdrawn(
    owner_session, flaky, django_capture_on_commit_callbacks
):
    owner = owner_session.user
    paper = paper_create("2502.00042", title="A result that did not hold")
    default = list_services.reading_list_default(user=owner)
    list_services.list_item_save(user=owner, list_id=default.pk, arxiv_id=paper.arxiv_id)

    with django_capture_on_commit_callbacks(execute=True):
        papers_upsert_records(records=[_record(paper, version=2, withdrawn=True)])

    page = owner_session.client.get(f"/lists/{default.pk}/").content.decode()
    assert "Withdrawn by its authors" in page
    assert "A result that did not hold" in page  # still listed, not dropped
    kinds = {a["kind"] for a in owner_session.client.get("/api/v1/me/alerts").json()["results"]}
    assert kinds == {"version", "withdrawn"}
    send_digests()
    assert "Withdrawn by its authors" in text_of(mail.outbox[0])


def test_recording_is_idempotent_and_a_newer_value_reopens_the_alert(owner):
    paper = paper_create("2502.00043", version=1)
    default = list_services.reading_list_default(user=owner)
    list_services.list_item_save(user=owner, list_id=default.pk, arxiv_id=paper.arxiv_id)
    Paper.objects.filter(pk=paper.pk).update(version=2)

    assert alerts_record(arxiv_ids=[paper.arxiv_id]) == 1
    assert alerts_record(arxiv_ids=[paper.arxiv_id]) == 0
    PaperAlert.objects.update(dismissed_at="2026-01-01T00:00:00Z")

    Paper.objects.filter(pk=paper.pk).update(version=3)
    assert alerts_record(arxiv_ids=[paper.arxiv_id]) == 1
    alert = PaperAlert.objects.get()
    assert (alert.value, alert.previous, alert.dismissed_at) == ("3", "1", None)
    other = user_create("nobody-saved-it")
    assert not PaperAlert.objects.filter(user=other).exists()


def test_a_removed_paper_leaves_the_alerts(me, saved_v1, django_capture_on_commit_callbacks):
    _import(django_capture_on_commit_callbacks, "2025-01-07-cs-lg.xml.gz")
    me.api("delete", f"/api/v1/me/lists/{saved_v1.pk}/items/{SAVED}")

    assert me.api("get", "/api/v1/me/alerts").json()["count"] == 0


def test_a_change_that_is_no_news_makes_no_alert(owner, django_capture_on_commit_callbacks):
    paper = paper_create("2502.00044", version=1)
    default = list_services.reading_list_default(user=owner)
    list_services.list_item_save(user=owner, list_id=default.pk, arxiv_id=paper.arxiv_id)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        papers_upsert_records(records=[_record(paper, title="A better title", comments="12 pages")])

    assert Paper.objects.get(pk=paper.pk).title == "A better title"
    assert callbacks == []  # neither papers_created nor papers_updated was due
    assert not PaperAlert.objects.exists()
