"""Signing up and in."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.forms import (
    LoginForm,
    SignupForm,
)
from accounts.services import account as account_services
from accounts.views.responses import next_url

# --- signing up and in -----------------------------------------------------------------------


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True
    next_page = "/feed/"


class LogoutView(auth_views.LogoutView):
    next_page = "/"


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("accounts-feed")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = account_services.account_create(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data.get("email", ""),
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}: your account is ready.")
        # The topic picker first, so the first feed is not empty (unless a page sent them here).
        return redirect(next_url(request, reverse("accounts-welcome")))
    return render(request, "accounts/signup.html", {"form": form, "next": next_url(request, "")})
