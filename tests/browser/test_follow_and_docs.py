"""Two things that were broken with scripts on (issue #15): Follow in place, and the API docs
page under the Content-Security-Policy with no network beyond our own origin."""

from __future__ import annotations

import os

import pytest

from accounts.models import Follow
from accounts.tests.factories import PASSWORD, user_create
from papers.tests.factories import paper_create
from tests.chromium import watch_strictly
from topics.tests.factories import area_create, topic_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def page(chromium, live_server):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = watch_strictly(context.new_page(), live_server.url)
    page.base = live_server.url
    yield page
    context.close()
    assert page.csp_violations == []
    assert page.errors == []
    assert page.console_errors == []
    assert page.failed_requests == []


def _sign_in(page, username):
    page.goto(f"{page.base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_load_state()


def test_follow_flips_in_place_and_the_feed_fills(page):
    from playwright.sync_api import expect

    topic = topic_create("offline-rl", name="Offline RL", parent=area_create("rl", "RL", "RL"))
    paper_create("2503.00001", title="Conservative offline policies", topics=[topic])
    user = user_create("reader")
    _sign_in(page, "reader")
    page.goto(f"{page.base}/topics/offline-rl/")
    button = page.locator("[data-follow-form] button")
    assert button.inner_text() == "Follow"
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        button.click()
    assert answer.value.status == 200, answer.value.url  # not /[object HTMLInputElement]
    expect(page.locator("[data-follow-form] button")).to_have_text("Following")
    assert page.url == f"{page.base}/topics/offline-rl/"  # in place, no navigation
    assert Follow.objects.filter(user=user, topic=topic).exists()
    page.goto(f"{page.base}/feed/")
    assert "Conservative offline policies" in page.inner_text("main")
    # And back: the same button unfollows.
    page.goto(f"{page.base}/topics/offline-rl/")
    page.locator("[data-follow-form] button").click()
    expect(page.locator("[data-follow-form] button")).to_have_text("Follow")
    assert not Follow.objects.filter(user=user, topic=topic).exists()


def test_the_api_docs_render_the_schema_from_our_own_files(page):
    outside = []
    page.on(
        "request",
        lambda r: None if r.url.startswith(("data:", page.base)) else outside.append(r.url),
    )
    page.goto(f"{page.base}/api/docs/")
    page.get_by_text("/api/v1/papers/lookup", exact=True).wait_for()
    assert "Paperscope API" in page.inner_text("body")
    assert outside == []


def test_a_failed_follow_is_shown_not_only_announced(page):
    from playwright.sync_api import expect

    from topics.models import Topic

    topic = topic_create("offline-rl", name="Offline RL", parent=area_create("rl", "RL", "RL"))
    user_create("reader")
    _sign_in(page, "reader")
    page.goto(f"{page.base}/topics/offline-rl/")
    Topic.objects.filter(pk=topic.pk).update(active=False)  # retired while the page was open
    page.locator("[data-follow-form] button").click()
    toast = page.locator("[data-toast]")
    expect(toast).to_be_visible()
    expect(toast).not_to_be_empty()
    expect(page.locator("[data-follow-form] button")).to_have_text("Follow")
    # The refused request is the point of this test, not a fault of the page.
    assert page.failed_requests
    assert all(r.startswith("4") for r in page.failed_requests), page.failed_requests
    page.failed_requests.clear()
    page.console_errors.clear()
