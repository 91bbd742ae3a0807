"""A new person in headless Chromium: sign up, triage the feed with the keyboard (J, S, X,
Enter), edit a saved paper, and connect the extension (the token arrives by postMessage).

Needs Debian's /usr/bin/chromium and the `playwright` package; skipped with a message without
them. Screenshots go to test-artifacts/."""

from __future__ import annotations

import os

import pytest

from accounts.models import ApiToken, Follow, Hidden, ListItem
from accounts.services.tokens import token_hash
from accounts.tests.factories import PASSWORD
from papers.tests.factories import paper_create
from tests.chromium import ARTIFACTS, watch
from topics.tests.factories import area_create, topic_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# Playwright's sync API runs an event loop in this thread; Django's ORM must be told it is fine.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# What the extension's content script does on our origin: take the token, say it arrived.
EXTENSION_LISTENER = """
window.__received = [];
window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "paperscope:token") {
    window.__received.push(event.data);
    window.postMessage({type: "paperscope:token-received"}, location.origin);
  }
});
"""


@pytest.fixture
def page(chromium, live_server):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = watch(context.new_page())
    page.base = live_server.url
    yield page
    context.close()
    assert page.csp_violations == []


def _sign_up(page, username="newcomer"):
    page.goto(f"{page.base}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_url(f"{page.base}/welcome/")  # the topic picker
    page.click("text=Skip for now")
    page.wait_for_url(f"{page.base}/feed/")


def test_a_new_person_triages_the_feed_with_the_keyboard(page):
    area = area_create("rl", "Reinforcement Learning", "RL")
    topics = [
        topic_create("offline-rl", name="Offline RL", parent=area),
        topic_create("bandits", name="Bandits", parent=area),
    ]
    for n in range(1, 5):
        paper_create(
            f"2503.0000{n}", title=f"Paper {n} about <i>rewards</i>", topics=[topics[n % 2]]
        )
    _sign_up(page)
    assert "You follow no topics yet" in page.content()
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="newcomer")
    for topic in topics:
        Follow.objects.create(user=user, topic=topic)

    page.goto(f"{page.base}/feed/")
    rows = page.locator("[data-keynav-item]")
    assert rows.count() == 4
    assert "<i>rewards</i>" in rows.first.inner_text()  # shown as text, not markup

    page.keyboard.press("j")
    assert "is-selected" in rows.nth(0).get_attribute("class")
    page.keyboard.press("s")
    page.wait_for_function(
        "() => document.querySelector('[data-keynav-item].is-selected [data-saved=true]')"
    )
    assert list(ListItem.objects.values_list("arxiv_id", flat=True)) == ["2503.00004"]

    page.keyboard.press("j")
    page.keyboard.press("x")
    page.wait_for_function("() => !document.querySelectorAll('[data-unhide-form]')[1].hidden")
    assert list(Hidden.objects.values_list("paper__arxiv_id", flat=True)) == ["2503.00003"]
    assert "is-selected" in rows.nth(2).get_attribute("class")  # X moved on to the next paper

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts-feed.png"), full_page=True)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{page.base}/papers/2503.00002/")
    page.goto(f"{page.base}/feed/")
    assert page.locator("[data-keynav-item]").count() == 3  # the hidden one stays hidden
    assert page.errors == []


def test_editing_a_saved_paper_and_connecting_the_extension(page):
    paper_create("2503.00001", title="A paper to read")
    _sign_up(page, "reader")
    page.goto(f"{page.base}/lists/")
    page.click(".list-card a")
    list_url = page.url
    assert list_url != f"{page.base}/lists/"
    from django.contrib.auth import get_user_model

    from accounts.services.lists import list_item_save, reading_list_default

    user = get_user_model().objects.get(username="reader")
    list_item_save(user=user, list_id=reading_list_default(user=user).pk, arxiv_id="2503.00001")
    page.goto(list_url)
    page.fill("textarea[name=note]", "Check the proof of Lemma 2")
    page.select_option("select[name=read_state]", "read")
    page.click("button[value=save]")
    page.wait_for_load_state()
    item = ListItem.objects.get()
    assert (item.note, item.read_state) == ("Check the proof of Lemma 2", "read")
    assert "Saved the changes" in page.content()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts-list.png"), full_page=True)

    # The extension's content script listens on our origin for the token.
    page.add_init_script(EXTENSION_LISTENER)
    page.goto(f"{page.base}/extension/connect?ext=abcdefghijklmnopabcdefghijklmnop")
    page.click("button:has-text('Connect')")
    page.wait_for_function("() => window.__received.length > 0")
    message = page.evaluate("window.__received[0]")
    token = ApiToken.objects.get()
    assert message["server"] == page.base
    assert token.key_hash == token_hash(message["token"])
    assert page.input_value("#connect-token") == message["token"]
    page.wait_for_function(
        "() => document.querySelector('[data-connect-status]').textContent.includes('connected')"
    )
    page.screenshot(path=str(ARTIFACTS / "accounts-connect.png"), full_page=True)
    page.goto(f"{page.base}/account/")
    page.screenshot(path=str(ARTIFACTS / "accounts-account.png"), full_page=True)
    assert page.errors == []
