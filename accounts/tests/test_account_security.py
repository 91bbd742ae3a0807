"""Finding 8: reset mail links use the configured SITE_URL, never the request's Host; sign-ups
and reset mails are limited per address and per target address; a password change or reset
revokes (or offers to revoke) API tokens; usernames that mix scripts are refused."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.models import ApiToken
from accounts.services import brakes
from accounts.tests.conftest import token_client
from accounts.tests.factories import PASSWORD, api_token

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a brand new horse staple"


def _reset_link(body: str) -> str:
    return re.search(r"\S+/accounts/reset/\S+/", body)[0]


# --- the reset mail's address -------------------------------------------------------------


def test_the_reset_link_uses_site_url_not_the_host_header(settings, owner):
    settings.SITE_URL = "https://paperscope.example.org"
    settings.ALLOWED_HOSTS = ["*"]

    response = Client().post(
        "/accounts/password/reset/", {"email": "owner@example.org"}, HTTP_HOST="evil.example"
    )

    assert response.status_code == 302
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    assert _reset_link(body).startswith("https://paperscope.example.org/accounts/reset/")
    assert "evil.example" not in body
    assert "evil.example" not in mail.outbox[0].subject


# --- limits on sign-ups and reset mails ------------------------------------------------------


def _sign_up(client: Client, n: int):
    return client.post(
        "/accounts/signup/",
        {"username": f"new{n}", "password1": PASSWORD, "password2": PASSWORD, "email": ""},
    )


def test_sign_ups_are_limited_per_address():
    codes = [_sign_up(Client(REMOTE_ADDR="10.6.6.6"), n).status_code for n in range(6)]

    assert codes == [302] * brakes.SIGNUPS_PER_ADDRESS + [429]
    assert get_user_model().objects.count() == brakes.SIGNUPS_PER_ADDRESS
    # Another address still may.
    assert _sign_up(Client(REMOTE_ADDR="10.6.6.7"), 99).status_code == 302


def test_sign_ups_behind_the_proxy_count_per_client(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for n in range(brakes.SIGNUPS_PER_ADDRESS):
        proxied = Client(REMOTE_ADDR="127.0.0.1", headers={"X-Forwarded-For": "203.0.113.1"})
        assert _sign_up(proxied, n).status_code == 302
    other = Client(REMOTE_ADDR="127.0.0.1", headers={"X-Forwarded-For": "203.0.113.2"})
    assert _sign_up(other, 50).status_code == 302


def test_reset_mails_to_one_address_are_limited_whoever_asks(owner):
    for n in range(brakes.RESET_MAILS_PER_EMAIL + 2):
        response = Client(REMOTE_ADDR=f"10.9.0.{n}").post(
            "/accounts/password/reset/", {"email": "owner@example.org"}
        )
        # Every answer looks the same: it must not tell whether the address has an account.
        assert response.status_code == 302

    assert len(mail.outbox) == brakes.RESET_MAILS_PER_EMAIL


def test_reset_requests_from_one_address_are_limited(db):
    client = Client(REMOTE_ADDR="10.9.1.1")
    codes = [
        client.post("/accounts/password/reset/", {"email": f"x{n}@example.org"}).status_code
        for n in range(brakes.RESET_MAILS_PER_ADDRESS + 1)
    ]
    assert codes == [302] * brakes.RESET_MAILS_PER_ADDRESS + [429]


# --- tokens when the password changes --------------------------------------------------------


def _tokens(owner):
    first, raw = api_token(owner, name="laptop")
    api_token(owner, name="extension")
    return first, raw


def test_a_password_reset_revokes_every_api_token(owner):
    _, raw = _tokens(owner)
    client = Client()
    client.post("/accounts/password/reset/", {"email": "owner@example.org"})
    path = "/" + _reset_link(mail.outbox[-1].body).split("://", 1)[1].split("/", 1)[1]
    form_url = client.get(path, follow=True).redirect_chain[-1][0]

    done = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert done.status_code == 302
    assert ApiToken.objects.filter(user=owner, revoked_at=None).count() == 0
    assert ApiToken.objects.filter(user=owner).count() == 2
    response = token_client(raw).get("/api/v1/me")
    assert response.status_code == 401
    assert response.json()["code"] == "token_revoked"


def _change(owner, **extra):
    client = Client()
    client.force_login(owner)
    data = {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    return client.post("/accounts/password/change/", {**data, **extra})


def test_a_password_change_revokes_tokens_when_asked(owner):
    _tokens(owner)
    response = _change(owner, revoke_tokens="on")
    assert response.status_code == 302
    assert ApiToken.objects.filter(user=owner, revoked_at=None).count() == 0


def test_a_password_change_can_keep_the_tokens(owner):
    _, raw = _tokens(owner)
    response = _change(owner)  # the box left unticked
    assert response.status_code == 302
    assert ApiToken.objects.filter(user=owner, revoked_at=None).count() == 2
    assert token_client(raw).get("/api/v1/me").status_code == 200


def test_the_change_form_offers_to_revoke_ticked(owner):
    _tokens(owner)
    client = Client()
    client.force_login(owner)
    page = client.get("/accounts/password/change/").content.decode()
    assert re.search(r'<input[^>]*name="revoke_tokens"[^>]*checked', page)
    assert "2 API tokens" in page


# --- usernames that mix scripts ---------------------------------------------------------------

MIXED = [
    "p\u0430ypal",  # Cyrillic а in Latin
    "\u0455cott",  # Cyrillic ѕ
    "admin\u0456",  # Cyrillic і
    "\u03bfwner",  # Greek ο
]


@pytest.mark.parametrize("username", MIXED)
def test_usernames_that_mix_scripts_are_refused(username):
    response = _sign_up_as(username)
    assert response.status_code == 200
    assert "mixes" in response.content.decode()
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize(
    "username", ["paypal", "jan_2", "M\u00fcller", "\u674e\u96f7", "\u0438\u0432\u0430\u043d"]
)
def test_single_script_usernames_are_fine(username):
    assert _sign_up_as(username).status_code == 302
    assert get_user_model().objects.filter(username=username).exists()


def _sign_up_as(username: str):
    return Client().post(
        "/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD, "email": ""},
    )
