"""Finding 2: the sign-in brake is keyed on the client's address as the trusted proxy saw it
(NUM_PROXIES, like the throttles) and the account; it also guards /admin/login/; and a
successful password reset lifts it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.forms import LOGIN_FAILURES_ALLOWED
from accounts.tests.factories import PASSWORD, user_create

pytestmark = pytest.mark.django_db
LOCKED = b"Too many failed sign-in attempts"


@pytest.fixture
def behind_one_proxy(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def _proxied(address: str, client_wrote: str = "") -> Client:
    forwarded = f"{client_wrote}, {address}" if client_wrote else address
    return Client(REMOTE_ADDR="127.0.0.1", headers={"X-Forwarded-For": forwarded})


def _sign_in(client: Client, password: str, path: str = "/accounts/login/"):
    return client.post(path, {"username": "owner", "password": password})


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_one_clients_guesses_behind_the_proxy_do_not_lock_out_another(behind_one_proxy, owner):
    guesser = _proxied("203.0.113.7")
    for _ in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(guesser, "wrong")
    assert LOCKED in _sign_in(guesser, PASSWORD).content
    assert not _signed_in(guesser)

    owner_elsewhere = _proxied("203.0.113.8")
    response = _sign_in(owner_elsewhere, PASSWORD)

    assert response.status_code == 302
    assert _signed_in(owner_elsewhere)
    assert get_user_model().objects.get(username="owner").last_login is not None


def test_a_made_up_forwarded_for_does_not_buy_fresh_guesses(behind_one_proxy, owner):
    for n in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(_proxied("203.0.113.7", client_wrote=f"198.51.100.{n}"), "wrong")

    client = _proxied("203.0.113.7", client_wrote="198.51.100.99")
    response = _sign_in(client, PASSWORD)

    assert LOCKED in response.content
    assert not _signed_in(client)
    assert get_user_model().objects.get(username="owner").last_login is None


def test_admin_sign_in_has_the_brake_too(db):
    get_user_model().objects.create_superuser("owner", "owner@example.org", PASSWORD)
    client = Client(REMOTE_ADDR="10.3.3.3")
    for _ in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(client, "wrong", "/admin/login/")

    response = _sign_in(client, PASSWORD, "/admin/login/")

    assert response.status_code == 200
    assert LOCKED in response.content
    assert not _signed_in(client)
    assert get_user_model().objects.get(username="owner").last_login is None


def test_admin_and_site_failures_share_one_brake(db):
    get_user_model().objects.create_superuser("owner", "owner@example.org", PASSWORD)
    client = Client(REMOTE_ADDR="10.3.3.4")
    for n in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(client, "wrong", "/admin/login/" if n % 2 else "/accounts/login/")
    assert LOCKED in _sign_in(client, PASSWORD).content


def test_a_successful_password_reset_lifts_the_brake(owner):
    client = Client(REMOTE_ADDR="10.4.4.4")
    for _ in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(client, "wrong")
    assert LOCKED in _sign_in(client, PASSWORD).content

    client.post("/accounts/password/reset/", {"email": "owner@example.org"})
    link = re.search(r"https?://\S+/accounts/reset/\S+/", mail.outbox[-1].body)[0]
    path = link.split("://", 1)[1].split("/", 1)[1]
    form = client.get("/" + path, follow=True)
    new_password = "a brand new horse staple"
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": new_password, "new_password2": new_password},
    )
    assert done.status_code == 302

    response = client.post("/accounts/login/", {"username": "owner", "password": new_password})

    assert response.status_code == 302
    assert _signed_in(client)


def test_the_brake_is_per_account_from_one_address(owner):
    user_create("friend")
    client = Client(REMOTE_ADDR="10.5.5.5")
    for _ in range(LOGIN_FAILURES_ALLOWED):
        _sign_in(client, "wrong")
    friend = client.post("/accounts/login/", {"username": "friend", "password": PASSWORD})
    assert friend.status_code == 302
