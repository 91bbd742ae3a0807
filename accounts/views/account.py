"""The account page: tokens, data export, deletion, and the extension's connect page."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.apis import account_export_response
from accounts.errors import AccountsError, NotFoundError
from accounts.forms import (
    AccountDeleteForm,
    TokenCreateForm,
)
from accounts.services import account as account_services
from accounts.services import tokens as token_services
from accounts.views.context import account_context
from accounts.views.responses import done

_EXTENSION_ID = re.compile(r"[A-Za-z0-9@._{}\-]{1,100}")


# --- account ---------------------------------------------------------------------------------


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/account.html", account_context(request))


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    form = TokenCreateForm(request.POST)
    if form.is_valid():
        try:
            token, raw = token_services.token_create(
                user=request.user,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
            )
        except AccountsError as error:
            form.add_error(None, error.detail)
        else:
            # The secret is shown in this answer only; it is stored nowhere in the clear.
            response = render(
                request,
                "accounts/account.html",
                account_context(request, new_token=token, new_secret=raw),
            )
            response["Cache-Control"] = "no-store"
            return response
    return render(
        request, "accounts/account.html", account_context(request, token_form=form), status=400
    )


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_services.token_revoke(user=request.user, token_id=token_id)
    except NotFoundError:
        raise Http404("No such token.") from None
    return done(request, f"Revoked the token {token.name!r}.", reverse("accounts-account"))


@login_required
@require_GET
def account_export(request: HttpRequest) -> HttpResponse:
    return account_export_response(user=request.user)


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    form = AccountDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            account_services.account_delete(
                user=request.user, password=form.cleaned_data["password"]
            )
        except AccountsError as error:
            form.add_error("password", error.detail)
        else:
            logout(request)
            messages.success(request, "Your account and everything in it are deleted.")
            return redirect("/")
    return render(request, "accounts/account_delete.html", {"form": form})


# --- the extension's connect page ------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def extension_connect(request: HttpRequest) -> HttpResponse:
    """The extension opens /extension/connect?ext=<its id>. A signed-in person approves; the page
    creates a token and hands it to the extension by window.postMessage (static/accounts/
    connect.js), showing it too for copy and paste."""
    ext = request.GET.get("ext", "") or request.POST.get("ext", "")
    if ext and not _EXTENSION_ID.fullmatch(ext):
        return render(
            request,
            "accounts/connect.html",
            {"error": "That extension id is not valid."},
            status=400,
        )
    context = {"ext": ext, "scopes": token_services.EXTENSION_SCOPES}
    if request.method == "POST":
        name = f"Browser extension{f' ({ext})' if ext else ''}"
        try:
            token, raw = token_services.token_create(
                user=request.user, name=name[:100], scopes=token_services.EXTENSION_SCOPES
            )
        except AccountsError as error:
            context["error"] = error.detail
            return render(request, "accounts/connect.html", context, status=400)
        context.update({"token": token, "secret": raw})
        response = render(request, "accounts/connect.html", context)
        response["Cache-Control"] = "no-store"
        return response
    return render(request, "accounts/connect.html", context)
