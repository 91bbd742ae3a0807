"""The email digest: what it says and to whom. New papers in followed topics since the last
digest, grouped by topic, with title, authors, tags and links; nothing for those with nothing
new; daily or weekly or off; the preview and `send_digests --dry-run`; and the issue's "done
when" walk-through on the recorded arXiv feeds."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import DigestDelivery, DigestSettings, Follow, ListItem
from accounts.services import follows as follow_services
from accounts.services.delivery import digests_plan, run_pending_ids
from accounts.services.digest_settings import digest_settings_update
from accounts.tests.digests_support import (
    RSS,
    arrived,
    groups_of,
    html_listed_ids,
    html_of,
    listed_ids,
    reader,
    send_digests,
    text_of,
)
from accounts.tests.factories import PASSWORD
from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic, Topic
from topics.tests.factories import area_create, topic_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def topics():
    area = area_create("rl", "Reinforcement Learning", "RL")
    return {
        "offline": topic_create("offline-rl", name="Offline RL", parent=area),
        "bandits": topic_create("bandits", name="Bandits", parent=area),
        "other": topic_create("diffusion", name="Diffusion Models", parent=area),
    }


def test_it_lists_exactly_the_new_papers_grouped_by_topic_with_their_links(flaky, topics):
    old = arrived("2503.00009", topics=[topics["offline"]])  # before the reader came
    ada = reader("ada", topics["offline"], topics["bandits"])
    first = arrived("2503.00001", topics=[topics["offline"]], title="Conservative Q-learning")
    both = arrived(
        "2503.00002",
        topics=[topics["bandits"], topics["offline"]],  # ranked bandits first
        authors=[f"Author {n}" for n in range(1, 9)],
    )
    gone = arrived("2503.00003", topics=[topics["offline"]], withdrawn=True)
    arrived("2503.00004", topics=[topics["other"]])  # not followed
    hidden = arrived("2503.00005", topics=[topics["bandits"]])
    follow_services.hidden_create(user=ada, arxiv_id=hidden.arxiv_id)

    send_digests()

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.org"]
    assert sorted(listed_ids(message)) == sorted([first.arxiv_id, both.arxiv_id, gone.arxiv_id])
    assert sorted(html_listed_ids(message)) == sorted(listed_ids(message))
    assert old.arxiv_id not in listed_ids(message)
    # Each paper once, under its best-ranked followed topic; topics by name, newest first.
    assert groups_of(message) == {
        "Bandits": [both.arxiv_id],
        "Offline RL": [gone.arxiv_id, first.arxiv_id],
    }
    text = text_of(message)
    assert "Conservative Q-learning" in text
    assert "Author 1, Author 2, Author 3, Author 4, Author 5, Author 6 +2" in text
    assert "Topics: Bandits, Offline RL" in text
    assert f"Paper:  http://127.0.0.1:8000/papers/{first.arxiv_id}/" in text
    assert f"arXiv:  https://arxiv.org/abs/{first.arxiv_id}" in text
    assert "Save:   http://127.0.0.1:8000/account/digest/save/" in text
    assert f"[WITHDRAWN] {gone.title}" in text
    html = html_of(message)
    assert "[Withdrawn]" in html
    assert "Save to my list" in html
    assert message.subject == "3 new papers in Bandits, Offline RL · Paperscope"


def test_it_carries_list_unsubscribe_headers_and_the_same_link_in_the_body(flaky, topics):
    reader("ada", topics["offline"])
    arrived(topics=[topics["offline"]])

    send_digests()

    headers = mail.outbox[0].message()
    unsubscribe = headers["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith("http://127.0.0.1:8000/account/digest/unsubscribe/")
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert headers["Message-ID"].startswith("<digest.")
    assert unsubscribe in text_of(mail.outbox[0])
    assert unsubscribe in html_of(mail.outbox[0])
    assert headers.get_content_type() == "multipart/alternative"


def test_a_second_run_sends_nothing_and_the_next_has_only_what_arrived_since(flaky, topics):
    reader("ada", topics["offline"])
    arrived("2503.00001", topics=[topics["offline"]])
    send_digests()
    assert "nothing to send" in send_digests()
    assert len(mail.outbox) == 1

    later = arrived("2503.00002", topics=[topics["offline"]])
    send_digests()

    assert len(mail.outbox) == 2
    assert listed_ids(mail.outbox[1]) == [later.arxiv_id]


def test_no_digest_for_someone_with_nothing_new(flaky, topics):
    reader("nofollows")  # follows nothing
    reader("quiet", topics["bandits"])  # follows a topic with nothing new
    gone = reader("gone", topics["offline"])
    arrived(topics=[topics["offline"]])
    Follow.objects.filter(user=gone).delete()  # unfollowed everything before the run
    reader("noaddress", topics["offline"], email="")

    assert "nothing to send" in send_digests()
    assert mail.outbox == []
    assert not DigestDelivery.objects.exists()


def test_muted_topics_stay_out_of_the_digest_but_not_the_feed(flaky, topics):
    ada = reader("ada", topics["offline"], topics["bandits"])
    digest_settings_update(user=ada, muted=["bandits"])
    loud = arrived(topics=[topics["offline"]])
    arrived(topics=[topics["bandits"]])

    send_digests()

    assert listed_ids(mail.outbox[0]) == [loud.arxiv_id]
    client = Client()
    client.force_login(ada)
    assert len(client.get("/api/v1/me/feed").json()["results"]) == 2


def test_only_muted_news_means_no_digest(flaky, topics):
    ada = reader("ada", topics["bandits"])
    digest_settings_update(user=ada, muted=["bandits"])
    arrived(topics=[topics["bandits"]])

    send_digests()

    assert mail.outbox == []


def test_off_means_no_digest(flaky, topics):
    ada = reader("ada", topics["offline"])
    digest_settings_update(user=ada, frequency="off")
    arrived(topics=[topics["offline"]])

    send_digests()

    assert mail.outbox == []


def test_weekly_digests_go_out_on_the_chosen_evening_once(flaky, topics):
    weekly = reader("weekly", topics["offline"])
    digest_settings_update(user=weekly, frequency="weekly", weekday="friday")
    arrived(topics=[topics["offline"]])
    # The next Thursday and Friday evenings in New York after the papers arrived (now): 21:30
    # there is 02:30 UTC the next day in winter, 22:30 in summer, the same evening either way.
    today = timezone.now().date()
    thursday = today + timedelta(days=(3 - today.weekday()) % 7 or 7)
    thursday_evening = datetime.combine(thursday + timedelta(days=1), time(2, 30), tzinfo=UTC)
    friday_evening = thursday_evening + timedelta(days=1)

    def run(now):
        run = digests_plan(now=now)
        from accounts.services.delivery import delivery_batch_send

        delivery_batch_send(delivery_ids=run_pending_ids(run), clock=lambda: now)

    run(thursday_evening)
    assert mail.outbox == []
    run(friday_evening)
    assert len(mail.outbox) == 1
    arrived(topics=[topics["offline"]])
    run(friday_evening + timedelta(hours=1))  # the same evening again: not twice in a day
    assert len(mail.outbox) == 1


def test_a_paper_still_waiting_for_its_tags_comes_in_the_next_digest(flaky, topics):
    reader("ada", topics["offline"])
    tagged = arrived(topics=[topics["offline"]])
    waiting = paper_create(topics=[])  # stored, not tagged yet

    send_digests()
    assert listed_ids(mail.outbox[0]) == [tagged.arxiv_id]

    PaperTopic.objects.create(paper=waiting, topic=topics["offline"], score=0.9, rank=1)
    Paper.objects.filter(pk=waiting.pk).update(tagged_at=timezone.now())
    send_digests()
    assert listed_ids(mail.outbox[1]) == [waiting.arxiv_id]


def test_a_long_topic_is_cut_with_a_link_to_the_rest_in_the_feed(flaky, topics, settings):
    settings.DIGEST_MAX_PAPERS_PER_TOPIC = 2
    reader("ada", topics["offline"])
    for _ in range(5):
        arrived(topics=[topics["offline"]])

    send_digests()

    message = mail.outbox[0]
    assert len(listed_ids(message)) == 2
    assert "… and 3 more: http://127.0.0.1:8000/feed/?topic=offline-rl" in text_of(message)
    assert message.subject.startswith("5 new papers in Offline RL")
    delivery = DigestDelivery.objects.get()
    assert delivery.paper_count == 5
    assert len(delivery.arxiv_ids) == 5


def test_dry_run_prints_the_digests_and_sends_nothing(flaky, topics):
    reader("ada", topics["offline"])
    reader("bob", topics["bandits"])
    paper = arrived(title="Pessimism in the face of uncertainty", topics=[topics["offline"]])

    out = send_digests("--dry-run")

    assert "To: ada@example.org (daily)" in out
    assert "Subject: 1 new paper in Offline RL · Paperscope" in out
    assert "Pessimism in the face of uncertainty" in out
    assert "bob@example.org" not in out
    assert "1 digest(s) would be sent; nothing was sent" in out
    assert mail.outbox == []
    assert not DigestDelivery.objects.exists()
    assert paper.arxiv_id in send_digests("--dry-run", "--user", "ada")
    assert "nothing new" in send_digests("--dry-run", "--user", "bob")


def test_send_digests_for_one_user(flaky, topics):
    reader("ada", topics["offline"])
    reader("bob", topics["offline"])
    arrived(topics=[topics["offline"]])

    send_digests("--user", "ada")

    assert [m.to for m in mail.outbox] == [["ada@example.org"]]
    with pytest.raises(Exception, match="no such user"):
        call_command("send_digests", "--user", "nobody")


def test_the_account_page_previews_the_next_digest(flaky, topics):
    ada = reader("ada", topics["offline"])
    paper = arrived(title="Implicit Q-learning at scale", topics=[topics["offline"]])
    client = Client()
    client.force_login(ada)

    page = client.get("/account/").content.decode()
    assert "Your next digest so far" in page
    assert "Implicit Q-learning at scale" in page
    assert "1 new paper in Offline RL" in page

    html = client.get("/account/digest/preview/").content.decode()
    assert f'data-arxiv-id="{paper.arxiv_id}"' in html
    text = client.get("/account/digest/preview/?format=text")
    assert text["Content-Type"].startswith("text/plain")
    assert "Implicit Q-learning at scale" in text.content.decode()
    assert mail.outbox == []  # a preview sends nothing

    send_digests()
    page = client.get("/account/").content.decode()
    assert "Nothing new yet" in page


# --- the "done when", on the recorded feeds --------------------------------------------


def _import(capture, *names: str) -> None:
    # Imports commit, then tag (eager Celery) and signal: run the on-commit callbacks as a
    # worker would see them.
    with capture(execute=True):
        call_command("import_arxiv", *(str(RSS / name) for name in names), stdout=StringIO())


def _new_in(slugs, since) -> set[str]:
    return set(
        Paper.objects.filter(created_at__gt=since, tags__topic__slug__in=slugs)
        .values_list("arxiv_id", flat=True)
        .distinct()
    )


def test_done_when_a_new_reader_gets_exactly_the_new_papers_once_then_the_alert(
    flaky, django_capture_on_commit_callbacks, settings
):
    capture = django_capture_on_commit_callbacks
    settings.DIGEST_MAX_PAPERS_PER_TOPIC = 1000  # every paper in the mail, to compare them all
    call_command("load_taxonomy", verbosity=0)
    # Already stored before the reader arrives: 2404.17276 at v1 (a derived fixture, see
    # papers/tests/fixtures/README.md).
    _import(capture, "derived_2024-06-03-cs-lg_2404.17276v1.xml")

    # A new reader signs up and follows two topics.
    browser = Client()
    browser.post(
        "/accounts/signup/",
        {"username": "reader", "email": "reader@example.org", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    user = get_user_model().objects.get(username="reader")
    joined = DigestSettings.objects.get(user=user).covered_until
    followed = ["federated-learning", "time-series-modeling"]
    for slug in followed:
        response = browser.post(
            "/api/v1/me/follows", {"topic": slug}, content_type="application/json"
        )
        assert response.status_code == 201

    # The harvester stores an announcement; the digest lists exactly its papers in those topics.
    _import(capture, "luvata_2024-06-01-cs-lg.xml.gz")
    send_digests()
    expected = _new_in(followed, since=joined)
    assert expected, "the recorded feed has papers in the followed topics"
    assert len(mail.outbox) == 1
    first = mail.outbox[0]
    assert set(listed_ids(first)) == expected
    assert len(listed_ids(first)) == len(expected)  # each once
    slug_of = dict(Topic.objects.filter(slug__in=followed).values_list("name", "slug"))
    for topic_name, ids in groups_of(first).items():
        assert topic_name in slug_of, topic_name
        assert all(
            PaperTopic.objects.filter(paper__arxiv_id=i, topic__slug=slug_of[topic_name])
            for i in ids
        )
    assert "2404.17276" not in listed_ids(first)  # stored before the reader came

    # Run again: nothing new, nothing sent.
    send_digests()
    assert len(mail.outbox) == 1

    # Save a paper, then a newer version of it arrives with the next announcement.
    response = browser.post("/lists/save/", {"arxiv_id": "2404.17276v1"})
    assert response.status_code == 302
    saved = ListItem.objects.get(arxiv_id="2404.17276")
    assert saved.saved_version == 1
    before_second = timezone.now()
    _import(capture, "2025-01-07-cs-lg.xml.gz")
    assert Paper.objects.get(arxiv_id="2404.17276").version == 2

    page = browser.get(f"/lists/{saved.reading_list_id}/").content.decode()
    assert "v2 since you saved it (you saved v1)" in page
    assert "Published in Neural Computing and Applications, 2025" in page
    alerts = browser.get("/api/v1/me/alerts").json()["results"]
    assert {(a["arxiv_id"], a["kind"]) for a in alerts} == {
        ("2404.17276", "version"),
        ("2404.17276", "journal_ref"),
        ("2404.17276", "doi"),
    }

    send_digests()
    assert len(mail.outbox) == 2
    second = mail.outbox[1]
    assert set(listed_ids(second)) == _new_in(followed, since=before_second)
    news = text_of(second).split("== News about papers you saved ==")[1]
    assert "Efficient Deterministic Renewable Energy Forecasting" in news
    assert "v2 since you saved it (you saved v1)" in news
    assert "Published in Neural Computing and Applications, 2025" in news
    assert "DOI:    https://doi.org/10.1007/s00521-024-10607-2" in news
    assert "saved paper updated" in second.subject

    # And once more: nothing.
    send_digests()
    assert len(mail.outbox) == 2
    assert all(a["in_digest"] for a in browser.get("/api/v1/me/alerts").json()["results"])
