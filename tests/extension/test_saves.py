"""Saving papers into the account's reading list, offline and online, and connecting. These need
the accounts API (token auth, /api/v1/me, lists and follows): the `personal` fixture skips until
it is routed."""

from __future__ import annotations

import re
import time
from urllib.parse import unquote

import pytest
from playwright.sync_api import expect

from tests.extension import data
from tests.extension.support import fixture_html

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ABS = "abs_0906.5132_newstyle_with_html_link.html"


def items(reading_list) -> list[str]:
    from accounts.models import ListItem

    return list(
        ListItem.objects.filter(reading_list=reading_list).values_list("arxiv_id", flat=True)
    )


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def open_abs(extension, arxiv, path="/abs/0906.5132", fixture=ABS):
    page = extension.context.new_page()
    page.goto(arxiv.serve(path, fixture_html(fixture)))
    page.wait_for_selector(".paperscope-save", timeout=20000)
    return page


def test_save_puts_the_paper_in_the_default_list(extension, arxiv, topics, personal):
    _, _, default_list = personal
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9)])
    page = open_abs(extension, arxiv)
    page.wait_for_selector("select.paperscope-list", timeout=20000)
    assert page.locator("select.paperscope-list option").all_text_contents() == [default_list.name]
    page.click(".paperscope-save")
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)
    assert items(default_list) == ["0906.5132"]
    # Saved again from another page: still one item (the POST is idempotent).
    page.goto(page.url)
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)


def test_s_saves_the_paper_but_not_while_typing(extension, arxiv, personal):
    _, _, default_list = personal
    page = open_abs(extension, arxiv, "/abs/hep-th/9901001v2", "abs_hep-th_9901001_oldstyle.html")
    page.evaluate(
        "document.body.prepend(Object.assign(document.createElement('input'), {id: 'typing'}))"
    )
    page.focus("#typing")
    page.keyboard.press("s")
    page.wait_for_timeout(800)
    assert items(default_list) == []
    assert page.input_value("#typing") == "s"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("s")
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)
    assert items(default_list) == ["hep-th/9901001"]


def test_papers_in_followed_topics_stand_out_and_the_rest_can_be_hidden(
    extension, arxiv, topics, personal
):
    from accounts.services.follows import follow_create

    user, _, _ = personal
    follow_create(user=user, topic_slug="kilonovae")
    data.tagged_paper("2303.00765", [(topics["kilonovae"], 0.8)])
    data.tagged_paper("2303.00898", [(topics["gnn"], 0.8)])
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/astro-ph.HE/new", fixture_html("list_astro-ph.HE_new.html")))
    page.wait_for_selector("dt.paperscope-followed", timeout=20000)
    assert page.locator("dt.paperscope-followed").count() == 1
    assert page.locator(".paperscope-chip--followed .paperscope-follow-mark").count() == 1
    assert "1 of" in page.text_content(".paperscope-toolbar-status")
    page.click(".paperscope-filter[data-mode=only]")
    assert page.locator("dt:has(a[id='2303.00765'])").is_visible()
    assert not page.locator("dt:has(a[id='2303.00898'])").is_visible()
    assert extension.storage("listingFilter")["listingFilter"] == "only"
    page.click(".paperscope-filter[data-mode=all]")
    assert page.locator("dt:has(a[id='2303.00898'])").is_visible()


def test_a_save_while_the_server_is_down_is_delivered_once_it_is_back(
    extension, arxiv, personal, live_server
):
    from tests.extension.test_resilience import closed_port_url

    _, _, default_list = personal
    extension.set_storage({"server": closed_port_url()})
    page = open_abs(extension, arxiv)
    page.click(".paperscope-save")
    page.wait_for_selector(".paperscope-save[data-state=queued]", timeout=20000)
    assert extension.badge() == "1"
    assert len(extension.storage("queue")["queue"]) == 1
    assert items(default_list) == []
    extension.set_storage({"server": live_server.url})
    extension.fire_alarm("queue-retry")
    assert wait_for(lambda: items(default_list) == ["0906.5132"])
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)
    assert wait_for(lambda: extension.badge() == "")
    assert extension.storage("queue")["queue"] == []
    extension.fire_alarm("queue-retry")
    page.wait_for_timeout(500)
    assert items(default_list) == ["0906.5132"]


def test_a_save_with_a_revoked_token_waits_for_a_new_one(extension, arxiv, personal):
    from accounts.models import ApiToken
    from accounts.services.tokens import EXTENSION_SCOPES, token_create

    user, _, default_list = personal
    ApiToken.objects.filter(user=user).update(revoked_at="2025-01-01T00:00:00Z")
    page = open_abs(extension, arxiv)
    page.click(".paperscope-save")
    page.wait_for_selector(".paperscope-save[data-state=queued]", timeout=20000)
    assert "reconnect" in page.get_attribute(".paperscope-save", "title")
    # The user pastes a new token on the options page.
    _, fresh = token_create(user=user, name="again", scopes=EXTENSION_SCOPES)
    options = extension.context.new_page()
    options.goto(extension.page_url("options/options.html"))
    options.fill("#token", fresh)
    options.click("#token-form button[type=submit]")
    expect(options.locator("#token-status")).to_have_text("Connected as alice.", timeout=20000)
    assert wait_for(lambda: items(default_list) == ["0906.5132"])


def connect_from_popup(extension):
    extension.set_token(None)
    extension.set_storage({"authState": "none"})
    popup = extension.context.new_page()
    popup.goto(extension.page_url("popup/popup.html"))
    expect(popup.locator("#status")).to_have_text(re.compile("^Not connected"))
    with extension.context.expect_page() as opened:
        popup.click("#connect")
    return opened.value


def expect_connected(extension, token=None):
    popup = extension.context.new_page()
    popup.goto(extension.page_url("popup/popup.html"))
    expect(popup.locator("#status")).to_have_text("Connected as alice", timeout=20000)
    if token:
        assert extension.token() == token
        # Never where content scripts can read it (docs/security.md, extension storage).
        assert extension.storage("token") == {}


def test_the_connect_page_contract_hands_the_token_over(extension, personal, live_server):
    """The page's side of the contract, played by a stand-in: postMessage of the token."""
    _, token, _ = personal
    message = f'{{type: "paperscope:token", token: "{token}", server: location.origin}}'
    approved = f"<html><body><script>window.postMessage({message}, location.origin);</script>"
    extension.context.route(
        f"{live_server.url}/extension/connect*",
        lambda route: route.fulfill(status=200, content_type="text/html", body=approved),
    )
    connect = connect_from_popup(extension)
    opened = f"{live_server.url}/extension/connect?ext={extension.id}"
    # The tab opens before Playwright's routes apply to it: the real page (or its sign-in
    # redirect) answers first, then the stand-in.
    connect.wait_for_load_state()
    landed = unquote(connect.url)
    assert landed.startswith(opened) or f"next=/extension/connect?ext={extension.id}" in landed
    connect.goto(opened)
    expect(connect.locator("html")).to_have_attribute(
        "data-paperscope-extension", "connected", timeout=20000
    )
    expect_connected(extension, token)


def test_connecting_through_the_servers_connect_page(extension, personal, live_server):
    """The whole flow on the server's own page: sign in, approve, the extension is connected."""
    from django.conf import settings
    from django.test import Client
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("extension-connect")
    except NoReverseMatch:
        pytest.skip("waits for the accounts pages: /extension/connect is not routed yet")
    user, _, _ = personal
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    extension.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )
    connect = connect_from_popup(extension)
    connect.wait_for_load_state()
    connect.click("form.form-actions button[type=submit]")
    expect(connect.locator("html")).to_have_attribute(
        "data-paperscope-extension", "connected", timeout=20000
    )
    expect_connected(extension)


def test_the_popup_lists_recent_saves_and_undoes_them(extension, arxiv, personal):
    _, _, default_list = personal
    page = open_abs(extension, arxiv)
    page.click(".paperscope-save")
    page.wait_for_selector(".paperscope-save[data-state=saved]", timeout=20000)
    popup = extension.context.new_page()
    popup.goto(extension.page_url("popup/popup.html"))
    popup.wait_for_selector("#recent li", timeout=5000)
    assert popup.text_content("#recent li a") == "0906.5132"
    popup.click("#recent li button")
    assert wait_for(lambda: items(default_list) == [])
    popup.wait_for_selector("#recent li .badge[data-state=undone]", timeout=5000)
