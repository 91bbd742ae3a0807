"""Signing up and in, and the password views: Django's, with the brakes and the token rule."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.forms import LoginForm, PasswordChangeWithTokensForm, SignupForm
from accounts.services import account as account_services
from accounts.services import brakes
from accounts.throttling import client_address
from accounts.views.responses import next_url

TOO_MANY = 429

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
    status = 200
    if request.method == "POST" and form.is_valid():
        if brakes.signup_allowed(address=client_address(request)):
            user = account_services.account_create(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data.get("email", ""),
            )
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}: your account is ready.")
            # The topic picker first, so the first feed is not empty (unless a page sent them).
            return redirect(next_url(request, reverse("accounts-welcome")))
        form.add_error(None, "Too many new accounts from your address lately. Try again later.")
        status = TOO_MANY
    context = {"form": form, "next": next_url(request, "")}
    return render(request, "accounts/signup.html", context, status=status)


# --- passwords ---------------------------------------------------------------------------------


class PasswordResetView(auth_views.PasswordResetView):
    """Reset mail whose link is built from settings.SITE_URL (the Host header is the client's
    to choose), at most RESET_MAILS_PER_ADDRESS requests per client address and
    RESET_MAILS_PER_EMAIL mails per target address an hour."""

    def form_valid(self, form):
        if not brakes.reset_mail_allowed_from(address=client_address(self.request)):
            form.add_error(None, "Too many reset requests from your address. Try again later.")
            response = self.form_invalid(form)
            response.status_code = TOO_MANY
            return response
        if not brakes.reset_mail_allowed_to(email=form.cleaned_data["email"]):
            # The same answer as when a mail goes out: it must not tell whether the address
            # has an account, nor that someone else asked already.
            return HttpResponseRedirect(self.get_success_url())
        # Django's view builds the link from the request (get_current_site, is_secure); the
        # form itself takes the site from domain_override and use_https.
        site = urlsplit(settings.SITE_URL)
        form.save(
            domain_override=site.netloc,
            use_https=site.scheme == "https",
            token_generator=self.token_generator,
            from_email=self.from_email,
            email_template_name=self.email_template_name,
            subject_template_name=self.subject_template_name,
            request=self.request,
            html_email_template_name=self.html_email_template_name,
            extra_email_context=self.extra_email_context,
        )
        return HttpResponseRedirect(self.get_success_url())


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """A new password through the mailed link: revokes the account's API tokens (whoever knew
    the old password may have made some) and lifts the sign-in brake on the account."""

    def form_valid(self, form):
        response = super().form_valid(form)
        account_services.account_password_changed(user=form.user, revoke_tokens=True)
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    form_class = PasswordChangeWithTokensForm

    def form_valid(self, form):
        response = super().form_valid(form)
        revoked = account_services.account_password_changed(
            user=form.user, revoke_tokens=bool(form.cleaned_data.get("revoke_tokens"))
        )
        if revoked:
            messages.info(
                self.request,
                f"Revoked {revoked} API token{'s' if revoked != 1 else ''}: connect the "
                "extension again from its popup.",
            )
        return response
