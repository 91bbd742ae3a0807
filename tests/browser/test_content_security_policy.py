"""The Content-Security-Policy in a real browser: our pages (the admin included) run under it
without a single violation, and an injected inline script is refused."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from topics.tests.factories import topic_page_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_injected_inline_script_is_blocked(open_page):
    topic_page_scenario()
    page = open_page("/topics/policy-gradient/")
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.__injected = true";
            document.body.append(script);
        }"""
    )
    assert page.evaluate("() => window.__injected === undefined")
    assert len(page.csp_violations) == 1
    assert "script-src 'self'" in page.csp_violations[0]
    page.csp_violations.clear()  # seen and checked; the fixture fails a test on any other


@pytest.mark.parametrize(
    "path",
    ["/", "/topics/policy-gradient/", "/search?q=policy", "/accounts/login/", "/no-such-page"],
)
def test_public_pages_render_without_violations(open_page, live_server, path):
    data = topic_page_scenario()
    page = open_page(path)
    assert page.locator("main").count() == 1
    page.goto(f"{live_server.url}/papers/{data['papers'][0].arxiv_id}/")
    assert page.locator(".tag-detail").count() >= 1
    assert page.errors == []
    # The fixture asserts that page.csp_violations stayed empty.


def test_the_admin_works_under_the_policy(open_page, live_server):
    topic_page_scenario()
    get_user_model().objects.create_superuser("operator", "op@example.org", "a-long-pass-phrase")
    page = open_page("/admin/login/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", "a-long-pass-phrase")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    page.goto(f"{live_server.url}/admin/topics/topic/")
    page.locator("#result_list").wait_for()
    page.goto(f"{live_server.url}/admin/topics/topic/?q=policy")
    page.locator("#result_list tbody a").first.click()
    page.wait_for_url("**/change/**")
    page.locator("#topic_form").wait_for()
    assert page.errors == []
