"""The account pages as a person uses them: sign up, sign in and out, passwords, the feed with
its buttons, lists with notes, import, the account page and the extension's connect page."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.template import Context, Template
from django.test import Client, RequestFactory

from accounts.models import ApiToken, Follow, Hidden, ListItem, ReadingList
from accounts.services.lists import list_item_save, reading_list_create
from accounts.tests.conftest import as_session, token_client
from accounts.tests.factories import PASSWORD, user_create
from papers.tests.factories import paper_create
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db


class Browser:
    """A signed-in person clicking through pages: every POST carries the form's CSRF token."""

    def __init__(self, user):
        self.client = as_session(user).client
        self.csrf = self.client.cookies["csrftoken"].value

    def get(self, url, **kwargs):
        return self.client.get(url, **kwargs)

    def post(self, url, data=None, **kwargs):
        return self.client.post(url, {**(data or {}), "csrfmiddlewaretoken": self.csrf}, **kwargs)


@pytest.fixture
def browser(owner) -> Browser:
    return Browser(owner)


# --- signing up and in -----------------------------------------------------------------------


def test_signing_up_creates_the_account_with_a_default_list_and_signs_in():
    client = Client()
    page = client.get("/accounts/signup/")
    assert page.status_code == 200
    assert b"Create an account" in page.content

    response = client.post(
        "/accounts/signup/",
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )

    assert response.status_code == 302
    assert response["Location"] == "/welcome/"  # the topic picker first
    user = get_user_model().objects.get(username="ada")
    assert user.password.startswith("md5$") or user.password.startswith("argon2")
    assert ReadingList.objects.filter(user=user, is_default=True, name="Reading list").exists()
    assert client.get("/feed/").status_code == 200


def test_sign_up_refuses_a_weak_password_and_a_taken_email(owner):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "bob", "email": "OWNER@example.org", "password1": "123", "password2": "123"},
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "email" in errors
    assert "password2" in errors
    assert not get_user_model().objects.filter(username="bob").exists()


def test_passwords_are_hashed_with_argon2_outside_tests(settings):
    from config.settings import base

    assert base.PASSWORD_HASHERS[0] == "django.contrib.auth.hashers.Argon2PasswordHasher"


def test_signing_in_and_out(owner):
    client = Client()
    response = client.post("/accounts/login/", {"username": "owner", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/feed/"
    assert client.get("/account/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/account/").status_code == 302


def test_sign_in_goes_back_to_where_it_was_asked_for(owner):
    client = Client()
    response = client.post(
        "/accounts/login/?next=/lists/",
        {"username": "owner", "password": PASSWORD, "next": "/lists/"},
    )
    assert response["Location"] == "/lists/"
    evil = Client().post(
        "/accounts/login/",
        {"username": "owner", "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert evil["Location"] == "/feed/"


def test_repeated_failed_sign_ins_are_stopped(owner):
    client = Client()
    for _ in range(10):
        client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
    response = client.post("/accounts/login/", {"username": "owner", "password": PASSWORD})
    assert response.status_code == 200
    assert b"Too many failed sign-in attempts" in response.content
    # Another account from the same address is not locked out.
    user_create("friend")
    assert (
        client.post("/accounts/login/", {"username": "friend", "password": PASSWORD}).status_code
        == 302
    )


def test_changing_the_password(owner, browser):
    assert browser.get("/accounts/password/change/").status_code == 200
    response = browser.post(
        "/accounts/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": "a much better passphrase",
            "new_password2": "a much better passphrase",
        },
    )
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password("a much better passphrase")


def test_resetting_a_forgotten_password_by_email(owner):
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "owner@example.org"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert mail.outbox[0].subject == "Reset your Paperscope password"
    # The link is built from SITE_URL (the configured address), not from the request's Host.
    link = re.search(r"http://127\.0\.0\.1:8000(/accounts/reset/\S+/)", mail.outbox[0].body)[1]

    form = client.get(link, follow=True)
    assert form.status_code == 200
    assert b"Choose a new password" in form.content
    response = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "brand new passphrase 42", "new_password2": "brand new passphrase 42"},
    )
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password("brand new passphrase 42")


# --- feed ------------------------------------------------------------------------------------


@pytest.fixture
def followed(owner):
    topic = topic_create("offline-rl", name="Offline RL")
    Follow.objects.create(user=owner, topic=topic)
    return [
        paper_create(f"2503.0000{n}", title=f"Paper {n} & <b>tags</b>", topics=[topic])
        for n in (1, 2)
    ]


def test_the_feed_page_lists_papers_with_keyboard_hooks(browser, followed):
    response = browser.get("/feed/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "data-keynav" in html
    assert html.count("data-keynav-item") == 2
    assert "data-save-form" in html
    assert "data-hide-form" in html
    assert "accounts/triage.js" in html
    assert "Paper 1 &amp; &lt;b&gt;tags&lt;/b&gt;" in html  # escaped, never raw HTML
    assert "<kbd>S</kbd>" in html
    assert "<kbd>X</kbd>" in html


def test_the_feed_page_without_follows_says_what_to_do(browser):
    assert b"You follow no topics yet" in browser.get("/feed/").content


def test_not_interested_from_the_feed_page(browser, followed):
    response = browser.post("/feed/hide/", {"arxiv_id": "2503.00001", "next": "/feed/"})
    assert response.status_code == 302
    assert response["Location"] == "/feed/"
    assert Hidden.objects.count() == 1
    assert b"2503.00001" not in browser.get("/feed/").content


def test_the_script_gets_json_answers(browser, followed):
    headers = {"Accept": "application/json"}
    saved = browser.post("/lists/save/", {"arxiv_id": "2503.00002"}, headers=headers)
    assert saved.json() == {**saved.json(), "ok": True, "created": True}
    hidden = browser.post("/feed/hide/", {"arxiv_id": "2503.00001"}, headers=headers)
    assert hidden.json()["ok"] is True
    undone = browser.post("/feed/unhide/", {"arxiv_id": "2503.00001"}, headers=headers)
    assert undone.json()["ok"] is True
    assert Hidden.objects.count() == 0
    bad = browser.post("/lists/save/", {"arxiv_id": "nonsense"}, headers=headers)
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_arxiv_id"


def test_the_feed_page_rejects_a_broken_cursor(browser, followed):
    assert browser.get("/feed/?cursor=!!").status_code == 400


# --- follow and save buttons for topic and paper pages -------------------------------------


def _render(template: str, user, **context) -> str:
    request = RequestFactory().get("/topics/offline-rl/")
    request.user = user
    return Template(template).render(Context({"request": request, "user": user, **context}))


def test_the_follow_button_toggles(owner, browser):
    from django.contrib.auth.models import AnonymousUser

    topic = topic_create("bandits", name="Bandits")
    snippet = '{% include "accounts/_follow_button.html" with topic=topic %}'
    assert "/accounts/login/?next=" in _render(snippet, AnonymousUser(), topic=topic)
    html = _render(snippet, owner, topic=topic)
    assert 'value="follow"' in html
    assert ">Follow<" in html

    response = browser.post("/follows/bandits/", {"action": "follow", "next": "/topics/bandits/"})
    assert response["Location"] == "/topics/bandits/"
    assert 'aria-pressed="true"' in _render(snippet, owner, topic=topic)
    browser.post("/follows/bandits/", {"action": "unfollow"})
    assert not Follow.objects.exists()


def test_the_save_button_offers_every_list_and_shows_saved(owner, browser):
    paper = paper_create("2503.00009")
    snippet = '{% include "accounts/_save_button.html" with paper=paper %}'
    assert ">Save<" in _render(snippet, owner, paper=paper)
    later = reading_list_create(user=owner, name="Later")

    browser.post("/lists/save/", {"arxiv_id": "2503.00009", "list": later.pk})

    html = _render(snippet, owner, paper=paper)
    assert "Saved ✓" in html
    assert "Later ✓" in html
    assert list(ListItem.objects.values_list("reading_list_id", flat=True)) == [later.pk]


# --- lists -----------------------------------------------------------------------------------


def test_creating_a_list_and_editing_items(owner, browser):
    response = browser.post("/lists/", {"create-name": "Theory"})
    theory = ReadingList.objects.get(name="Theory")
    assert response["Location"] == f"/lists/{theory.pk}/"
    paper_create("2503.00001", title="A known paper")
    for arxiv_id in ("2503.00001", "2503.00002"):
        list_item_save(user=owner, list_id=theory.pk, arxiv_id=arxiv_id)

    page = browser.get(f"/lists/{theory.pk}/").content.decode()
    assert "A known paper" in page
    assert "Being fetched from arXiv" in page

    base = f"/lists/{theory.pk}/items/2503.00002/"
    browser.post(base, {"action": "save", "note": "check proofs", "read_state": "reading"})
    browser.post(base, {"action": "up"})
    item = ListItem.objects.get(arxiv_id="2503.00002")
    assert (item.note, item.read_state, item.position) == ("check proofs", "reading", 0)

    default = ReadingList.objects.get(user=owner, is_default=True)
    browser.post(base, {"action": "copy", "to": default.pk})
    browser.post(f"/lists/{theory.pk}/items/2503.00001/", {"action": "move", "to": default.pk})
    assert sorted(
        ListItem.objects.filter(reading_list=default).values_list("arxiv_id", flat=True)
    ) == ["2503.00001", "2503.00002"]
    browser.post(base, {"action": "remove"})
    assert not ListItem.objects.filter(reading_list=theory).exists()

    reading = browser.get(f"/lists/{default.pk}/?read_state=reading").content.decode()
    assert "check proofs" in reading


def test_renaming_defaulting_and_deleting_a_list(owner, browser):
    later = reading_list_create(user=owner, name="Later")
    browser.post(f"/lists/{later.pk}/", {"action": "rename", "rename-name": "Someday"})
    browser.post(f"/lists/{later.pk}/", {"action": "make_default"})
    later.refresh_from_db()
    assert (later.name, later.is_default) == ("Someday", True)

    old_default = ReadingList.objects.get(user=owner, name="Reading list")
    browser.post(f"/lists/{old_default.pk}/", {"action": "delete"})  # not confirmed
    assert ReadingList.objects.filter(pk=old_default.pk).exists()
    response = browser.post(f"/lists/{old_default.pk}/", {"action": "delete", "confirm": "yes"})
    assert response["Location"] == "/lists/"
    assert not ReadingList.objects.filter(pk=old_default.pk).exists()


def test_importing_a_file_into_a_new_list_from_the_page(owner, browser):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile(
        "refs.txt", b"2503.00001\nnot an id\nhttps://arxiv.org/abs/2503.00002\n"
    )
    response = browser.post(
        "/lists/import/",
        {"import-format": "auto", "import-file": upload, "import-new_list": "From file"},
    )
    new = ReadingList.objects.get(name="From file")
    assert response["Location"] == f"/lists/{new.pk}/"
    assert list(ListItem.objects.filter(reading_list=new).values_list("arxiv_id", flat=True)) == [
        "2503.00001",
        "2503.00002",
    ]
    page = browser.get(response["Location"]).content.decode()
    assert "Imported 2 papers" in page
    assert "Line 2:" in page


def test_a_bad_import_creates_no_list(browser):
    browser.post(
        "/lists/import/",
        {"import-format": "endnote", "import-text": "x", "import-new_list": "Nope"},
    )
    browser.post(
        "/lists/import/", {"import-format": "auto", "import-text": "   ", "import-new_list": "Nope"}
    )
    assert not ReadingList.objects.filter(name="Nope").exists()


# --- account and the extension's connect page -----------------------------------------------


def test_the_account_page_shows_follows_lists_and_tokens(owner, browser, followed):
    html = browser.get("/account/").content.decode()
    for text in (
        "Offline RL",
        "Connect a browser",
        "API tokens",
        "Download my data",
        "Delete the account",
    ):
        assert text in html


def test_connecting_the_extension_hands_over_a_scoped_token(owner, browser):
    page = browser.get("/extension/connect?ext=abcdefghijklmnopabcdefghijklmnop")
    assert page.status_code == 200
    assert b"Connect" in page.content
    assert ApiToken.objects.count() == 0

    response = browser.post(
        "/extension/connect?ext=abcdefghijklmnopabcdefghijklmnop",
        {"ext": "abcdefghijklmnopabcdefghijklmnop"},
    )

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    token = ApiToken.objects.get()
    assert token.scopes == ["read", "lists:write", "follows:write", "feedback:write"]
    assert token.name == "Browser extension (abcdefghijklmnopabcdefghijklmnop)"
    html = response.content.decode()
    secret = re.search(
        r'<script id="paperscope-token" type="application/json">"(ps_[^"]+)"</script>', html
    ).group(1)
    assert "accounts/connect.js" in html
    assert f'value="{secret}"' in html  # the copy-and-paste fallback
    assert token_client(secret).get("/api/v1/me").status_code == 200


def test_the_connect_page_refuses_a_strange_extension_id(browser):
    response = browser.get("/extension/connect?ext=<script>")
    assert response.status_code == 400
    assert b"<script>" not in response.content


def test_the_connect_script_posts_the_message_the_extension_expects():
    from pathlib import Path

    script = (
        Path(__file__).resolve().parents[2] / "static" / "accounts" / "connect.js"
    ).read_text()
    assert 'type: "paperscope:token"' in script
    assert "server: location.origin" in script
    assert "window.postMessage(message, location.origin)" in script
    assert "innerHTML" not in script


def test_the_scripts_never_write_server_data_as_html():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "static" / "accounts"
    for path in folder.glob("*.js"):
        assert "innerHTML" not in path.read_text()
        assert "insertAdjacentHTML" not in path.read_text()
