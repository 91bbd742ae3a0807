"""The whole JSON API fuzzed from its own OpenAPI schema (issue #9, hostile input).

Schemathesis reads /api/schema/ from the WSGI app and sends every operation generated requests,
valid and invalid (wrong types, missing and extra fields, odd strings in path, query, headers and
body, random credentials). The public operations are fuzzed anonymously; the personal ones
(/api/v1/me...) anonymously, with a Bearer token of a user who owns lists, items, follows, hidden
papers, feedback, an alert and tokens, and, for those a token may not use (token management,
account deletion), signed in through a session. Generated path parameters and a few body fields
are sometimes swapped for real ids, slugs and list numbers, the owner's and a stranger's, so
lookups hit real rows.

Every answer must not be a 5xx and must be what the schema documents: the status code, the
content type and the body, errors included ({code, detail}); and no answer may show the
stranger's things. Not fuzzed, by design: /api/schema/ and /api/docs/ (the schema itself and its
HTML documentation page, not operations of the schema) and the website's pages, which
tests/test_hostile_input.py covers.

Bounded and deterministic for CI: a fixed number of examples per operation and caller,
derandomized, no example database, no deadline (about 40 s for some 640 requests).
"""

from __future__ import annotations

import os
import secrets
from datetime import UTC, date, datetime

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.test import Client
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis import checks

from accounts.models import PaperAlert, ReadingList
from accounts.services import feedback, follows, lists
from accounts.tests.factories import api_token, user_create
from papers.models import PendingLookup
from papers.tests.factories import paper_create
from topics.tests.factories import (
    area_create,
    momentum_create,
    tag_create,
    topic_create,
    weeks_create,
)

pytestmark = pytest.mark.django_db

schema = schemathesis.openapi.from_wsgi(
    "/api/schema/",
    get_wsgi_application(),
    # Only the fuzzing phase: hypothesis' max_examples bounds it (the coverage phase is not).
    config=schemathesis.Config.from_dict(
        {"phases": {"coverage": {"enabled": False}, "examples": {"enabled": False}}}
    ),
)


# PAPERSCOPE_FUZZ_SCALE=20 multiplies the examples, for a deeper run by hand.
SCALE = int(os.environ.get("PAPERSCOPE_FUZZ_SCALE", "1"))


def fuzz_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples * SCALE,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _personal(ctx) -> bool:
    return ctx.operation.path.startswith("/api/v1/me")


def _session_only(ctx) -> bool:
    """Operations a token may not use (or sees only itself through)."""
    path, method = ctx.operation.path, ctx.operation.method.upper()
    return path.startswith("/api/v1/me/tokens") or (path == "/api/v1/me" and method == "DELETE")


# Real values, filled in by `world` for each test: whole path parameter sets (so that a list and
# an item in it go together) and body fields.
REAL_PATHS: list[dict] = []
REAL_BODY: dict[str, list] = {}
STRANGER_MARKS: list[str] = []


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    if not path_parameters:
        return st.just(path_parameters)
    keys = set(path_parameters)
    real = [{k: v for k, v in p.items() if k in keys} for p in REAL_PATHS if keys <= set(p)]
    if not real:
        return st.just(path_parameters)
    return st.one_of(st.just(path_parameters), st.sampled_from(real))


@schema.hook
def flatmap_body(context, body):
    if not isinstance(body, dict):
        return st.just(body)
    real = {key: st.sampled_from(REAL_BODY[key]) for key in body if key in REAL_BODY}
    if not real:
        return st.just(body)
    return st.one_of(st.just(body), st.fixed_dictionaries(real).map(lambda r: {**body, **r}))


@schemathesis.check
def no_stranger_data(ctx, response, case):
    """Nothing of the other user's ever shows, whatever the request."""
    leaked = [mark for mark in STRANGER_MARKS if mark in (response.text or "")]
    if leaked:
        raise AssertionError(f"The answer shows another user's things: {leaked}")


CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    no_stranger_data,
]


@pytest.fixture(autouse=True)
def _keep_the_connection():
    """The app runs in the test's transaction: like Django's test client, keep it from closing
    the database connection at the end of each request (PostgreSQL would lose the test data)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Papers, topics and two people: the owner (the caller) and a stranger. Made once for the
    module in a transaction rolled back at its end; each test runs in a savepoint inside it."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield _world()
        transaction.set_rollback(True)
    REAL_PATHS.clear()
    REAL_BODY.clear()
    STRANGER_MARKS.clear()


def _world() -> dict:
    area = area_create(slug="rl", name="Reinforcement Learning")
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    quiet = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    retired = topic_create(parent=area, slug="retired-topic", name="Retired", active=False)
    momentum_create(topic=topic)
    momentum_create(topic=area, recent=400, previous=380)
    weeks_create(topic=topic, counts=[3, 5, 8], last_week=date(2025, 3, 3))
    papers = [
        paper_create(arxiv_id="2501.00001", version=3),
        paper_create(arxiv_id="2501.00002"),
        paper_create(arxiv_id="hep-th/9901001", announced=date(1999, 1, 4)),
        paper_create(arxiv_id="2502.00003", announced=None, withdrawn=True),
    ]
    for paper, tags in zip(papers, [[topic], [topic, quiet], [area], []], strict=True):
        for rank, tagged in enumerate(tags, start=1):
            tag_create(paper=paper, topic=tagged, rank=rank)
    PendingLookup.objects.create(arxiv_id="2504.00404", not_found=True)

    owner, stranger = user_create("owner"), user_create("stranger")
    default = ReadingList.objects.get(user=owner, is_default=True)
    later = lists.reading_list_create(user=owner, name="Later")
    lists.list_item_save(user=owner, list_id=later.pk, arxiv_id="2501.00001", note="mine")
    lists.list_item_save(user=owner, list_id=later.pk, arxiv_id="2503.99999")  # not here yet
    follows.follow_create(user=owner, topic_slug=topic.slug)
    follows.hidden_create(user=owner, arxiv_id="2501.00002")
    feedback.tag_feedback_submit(
        user=owner, arxiv_id="2501.00001", topic_slug=quiet.slug, vote="add"
    )
    alert = PaperAlert.objects.create(
        user=owner, paper=papers[0], kind="version", value="3", previous="1",
        created_at=datetime(2025, 3, 4, tzinfo=UTC),
    )  # fmt: skip
    spare, _ = api_token(owner, name="spare")
    token, raw = api_token(owner, name="fuzzing")

    secret = lists.reading_list_create(user=stranger, name="Stranger secret list")
    lists.list_item_save(
        user=stranger, list_id=secret.pk, arxiv_id="2501.00002", note="stranger-note"
    )
    stranger_token, _ = api_token(stranger, name="stranger-laptop")
    stranger_alert = PaperAlert.objects.create(
        user=stranger, paper=papers[1], kind="doi", value="10.1/stranger-doi",
        created_at=datetime(2025, 3, 4, tzinfo=UTC),
    )  # fmt: skip

    REAL_PATHS[:] = [
        {"list_id": later.pk, "arxiv_id": "2501.00001"},
        {"list_id": later.pk, "arxiv_id": "2503.99999v2"},
        {"list_id": default.pk, "arxiv_id": "2501.00001"},
        {"list_id": secret.pk, "arxiv_id": "2501.00002"},
        {"arxiv_id": "2501.00002"},  # hidden
        *({"raw_id": i} for i in ["2501.00001v2", "arXiv:2501.00002", "hep-th/9901001v1"]),
        *({"slug": s} for s in [topic.slug, quiet.slug, area.slug, retired.slug]),
        *({"token_id": t.pk} for t in [token, spare, stranger_token]),
        *({"alert_id": a.pk} for a in [alert, stranger_alert]),
    ]  # fmt: skip
    REAL_BODY.clear()
    REAL_BODY.update(
        arxiv_id=["2501.00001", "2503.99999", "2501.00002", "hep-th/9901001v1"],
        arxiv_ids=[["2501.00001"], ["2501.00002", "2503.99999"], ["hep-th/9901001v1"]],
        ids=[["2501.00001", "2503.99999", "hep-th/9901001v2", "2504.00404"], ["2502.00003"]],
        topic=[topic.slug, quiet.slug, retired.slug],
        to=[default.pk, later.pk, secret.pk],
        name=["Later", "Reading list"],
    )
    STRANGER_MARKS[:] = ["Stranger secret list", "stranger-note", "stranger-laptop", "stranger-doi"]
    return {"owner": owner, "raw_token": raw}


@pytest.fixture
def bearer(db, world) -> dict:
    return {"headers": {"Authorization": f"Bearer {world['raw_token']}"}}


@pytest.fixture
def signed_in(db, world) -> dict:
    """A browser's session cookie with its CSRF cookie and header."""
    client = Client()
    client.force_login(world["owner"])
    csrf = secrets.token_hex(16)
    return {
        "headers": {"X-CSRFToken": csrf},
        "cookies": {
            django_settings.SESSION_COOKIE_NAME: client.session.session_key,
            django_settings.CSRF_COOKIE_NAME: csrf,
        },
    }


@schema.include(lambda ctx: not _personal(ctx)).parametrize()
@fuzz_settings(max_examples=25)
def test_public_api(case, db, world):
    case.call_and_validate(checks=CHECKS)


@schema.include(_personal).parametrize()
@fuzz_settings(max_examples=3)
def test_personal_api_anonymous(case, db):
    case.call_and_validate(checks=CHECKS)


@schema.include(_personal).parametrize()
@fuzz_settings(max_examples=8)
def test_personal_api_with_a_token(case, bearer):
    case.call_and_validate(checks=CHECKS, **bearer)


@schema.include(_session_only).parametrize()
@fuzz_settings(max_examples=8)
def test_personal_api_signed_in(case, signed_in):
    if case.headers:
        # A generated Bearer header would be tried first; the session must speak for itself.
        case.headers.pop("Authorization", None)
    case.call_and_validate(checks=CHECKS, **signed_in)


@pytest.mark.parametrize("credentials", ["bearer", "signed_in"])
def test_the_fuzzing_callers_are_signed_in(credentials, request):
    """The token and session the fuzz sends reach past the login."""
    sent = request.getfixturevalue(credentials)
    client = Client(headers=sent["headers"])
    for name, value in sent.get("cookies", {}).items():
        client.cookies[name] = value
    response = client.get("/api/v1/me")
    assert response.status_code == 200, response.content
    assert response.json()["username"] == "owner"
