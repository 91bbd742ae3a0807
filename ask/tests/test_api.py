"""The Ask API without a model: extractive answers, input limits, quotas, the event stream, and
asking about a paper whose full text comes from the fake arXiv (HTML, else PDF) once."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from ask.models import AskLog, PaperText, Passage
from ask.services.answers import NO_MODEL
from ask.tests.conftest import sample_paper

pytestmark = pytest.mark.django_db

QUESTION = "Which papers address credit assignment in multi-turn agent training?"


def ask(client, url, question=QUESTION, **headers):
    return client.post(url, {"question": question}, format="json", **headers)


def events(response) -> list[tuple[str, dict]]:
    body = b"".join(response.streaming_content).decode()
    out = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_it_answers_with_passages_grouped_by_paper_and_says_no_model_is_configured(agent_topic):
    response = ask(APIClient(), "/api/v1/topics/agentic-rl/ask")
    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "extractive"
    assert body["notice"] == NO_MODEL
    assert body["answer"] == ""
    assert body["papers"][0]["arxiv_id"] == "2505.11821"
    numbers = [n for paper in body["papers"] for n in paper["passages"]]
    assert sorted(numbers) == [p["n"] for p in body["passages"]]
    for passage in body["passages"]:
        start, end = passage["highlight"]
        assert 0 <= start <= end <= len(passage["text"])
    first = body["passages"][0]
    assert "credit" in first["text"][first["highlight"][0] : first["highlight"][1]].lower()
    assert AskLog.objects.get().mode == AskLog.Mode.EXTRACTIVE


def test_it_streams_passages_then_the_answer_as_server_sent_events(agent_topic):
    response = ask(APIClient(), "/api/v1/topics/agentic-rl/ask", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    names = [name for name, _ in events(response)]
    assert names == ["passages", "done"]


@pytest.mark.parametrize(
    ("question", "code"),
    [("", "question_missing"), ("   ", "question_missing"), ("x" * 501, "question_too_long")],
)
def test_it_refuses_empty_and_overlong_questions(agent_topic, question, code):
    response = ask(APIClient(), "/api/v1/topics/agentic-rl/ask", question)
    assert response.status_code == 400
    assert response.json()["code"] == code


def test_unknown_topic_and_paper_are_404_and_a_bad_id_400(db):
    client = APIClient()
    assert ask(client, "/api/v1/topics/no-such-topic/ask").status_code == 404
    assert ask(client, "/api/v1/papers/2501.99999/ask").status_code == 404
    assert ask(client, "/api/v1/papers/not-an-id/ask").status_code == 400


def test_the_per_address_quota_holds_with_retry_after(agent_topic, settings):
    settings.ASK_RATE_ADDRESS = "2/hour"
    client = APIClient()
    assert [ask(client, "/api/v1/topics/agentic-rl/ask").status_code for _ in range(2)] == [
        200,
        200,
    ]
    refused = ask(client, "/api/v1/topics/agentic-rl/ask")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert refused.json()["code"] == "throttled"


def test_the_per_user_quota_counts_the_user_not_the_address(
    agent_topic, settings, django_user_model
):
    settings.ASK_RATE_USER = "1/hour"
    alice = django_user_model.objects.create_user("alice", password="pw")
    client = APIClient()
    client.force_authenticate(alice)
    assert ask(client, "/api/v1/topics/agentic-rl/ask").status_code == 200
    assert ask(client, "/api/v1/topics/agentic-rl/ask", REMOTE_ADDR="10.0.0.9").status_code == 429
    bob = django_user_model.objects.create_user("bob", password="pw")
    client.force_authenticate(bob)
    assert ask(client, "/api/v1/topics/agentic-rl/ask").status_code == 200
    assert AskLog.objects.filter(user=alice).count() == 1


def test_asking_about_a_paper_fetches_its_html_full_text_once(agent_topic, fake_fulltext):
    client = APIClient()
    response = ask(client, "/api/v1/papers/2505.10978/ask", "How are step-level groups built?")
    body = response.json()
    assert body["fulltext"] == "html"
    assert sum(p["kind"] == "fulltext" for p in body["passages"][:5]) >= 3
    first = body["passages"][0]["text"].lower()
    assert "step-level group" in first
    assert "retroactively" in first  # how they are built: from rollouts already collected
    html_requests = [r for r in fake_fulltext.requests if r.path.startswith("/html/")]
    assert [r.path for r in html_requests] == ["/html/2505.10978v1"]
    assert html_requests[0].headers["user-agent"].startswith("Paperscope/")
    ask(client, "/api/v1/papers/2505.10978/ask", "Which benchmarks are used?")
    assert len(fake_fulltext.requests) == 1  # cached: not fetched again
    assert PaperText.objects.get().source == "html"


def test_without_an_html_rendering_it_reads_the_pdf(agent_topic, fake_fulltext):
    body = ask(
        APIClient(), "/api/v1/papers/2504.15275/ask", "How is the value function defined?"
    ).json()
    assert body["fulltext"] == "pdf"
    assert [r.path for r in fake_fulltext.requests] == ["/html/2504.15275v2", "/pdf/2504.15275v2"]
    assert "minimum" in " ".join(p["text"] for p in body["passages"][:3])


def test_when_arxiv_is_down_it_answers_from_the_abstract_and_fetches_after_the_wait(
    agent_topic, fake_fulltext
):
    fake_fulltext.inject("503")  # Retry-After: 10, longer than a person waits: no retry now
    body = ask(APIClient(), "/api/v1/papers/2505.10978/ask", "What is GiGPO?").json()
    assert body["fulltext"] == "pending"
    assert body["passages"]
    assert {p["kind"] for p in body["passages"]} <= {"title", "abstract"}
    assert not PaperText.objects.exists()
    body = ask(APIClient(), "/api/v1/papers/2505.10978/ask", "What is GiGPO?").json()
    assert body["fulltext"] == "pending"  # still within the wait arXiv asked for
    assert len(fake_fulltext.requests) == 1
    from django.core.cache import cache

    from ask.services.fulltext import WAIT_KEY

    cache.delete(WAIT_KEY)  # the wait is over
    body = ask(APIClient(), "/api/v1/papers/2505.10978/ask", "What is GiGPO?").json()
    assert body["fulltext"] == "html"


def test_a_paper_arxiv_has_no_text_for_is_remembered(db, fake_fulltext):
    sample_paper("2505.16421")
    body = ask(APIClient(), "/api/v1/papers/2505.16421/ask", "What benchmark is used?").json()
    assert body["fulltext"] == "none"
    assert "WebArena" in " ".join(p["text"] for p in body["passages"])
    ask(APIClient(), "/api/v1/papers/2505.16421/ask", "What benchmark is used?")
    assert len(fake_fulltext.requests) == 2  # html 404, pdf 404; then never again
    assert not Passage.objects.filter(kind="fulltext").exists()


def test_the_topic_and_paper_pages_carry_the_ask_box(agent_topic):
    from django.test import Client

    page = Client().get("/topics/agentic-rl/").content.decode()
    assert 'data-ask-url="/api/v1/topics/agentic-rl/ask"' in page
    assert "ask/ask.js" in page
    page = Client().get("/papers/2505.10978/").content.decode()
    assert 'data-ask-url="/api/v1/papers/2505.10978/ask"' in page


def test_a_large_topic_not_indexed_yet_indexes_its_newest_papers_and_queues_the_rest(
    agent_topic, monkeypatch
):
    from ask.services import passages
    from ask.tasks import passages_index_pending

    queued = []
    monkeypatch.setattr(passages, "SYNC_INDEX_PAPERS", 3)
    monkeypatch.setattr(passages_index_pending, "delay", lambda: queued.append(True))
    body = ask(APIClient(), "/api/v1/topics/agentic-rl/ask").json()
    assert queued == [True]
    newest = sorted(agent_topic["papers"].values(), key=lambda p: (p.announced, p.id))[-3:]
    indexed = set(Passage.objects.values_list("paper_id", flat=True))
    assert indexed == {p.id for p in newest}
    assert {p["arxiv_id"] for p in body["papers"]} <= {p.arxiv_id for p in newest}


def test_asking_warms_the_model_when_the_page_is_shown(agent_topic, monkeypatch):
    from django.test import Client

    from ask.templatetags import ask_tags

    warmed = []
    monkeypatch.setattr(ask_tags, "_warmed", False)
    monkeypatch.setattr(ask_tags, "_warm", lambda: warmed.append(True))
    Client().get("/topics/agentic-rl/")
    Client().get("/topics/agentic-rl/")
    for thread in __import__("threading").enumerate():
        if thread.name == "ask-warm":
            thread.join(5)
    assert warmed == [True]  # once per process


def test_a_request_without_a_client_address_is_answered_and_logged(agent_topic):
    response = ask(APIClient(), "/api/v1/topics/agentic-rl/ask", REMOTE_ADDR=None)
    assert response.status_code == 200
    assert AskLog.objects.get().address == ""
