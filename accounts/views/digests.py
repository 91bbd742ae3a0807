"""Pages of the digest and the private feeds: settings and preview on the account page, the
password-free links of a digest (one-click save, unsubscribe), and feed URL management."""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors
from accounts.errors import AccountsError, NotFoundError
from accounts.forms import DigestSettingsForm
from accounts.services import lists as list_services
from accounts.services import private_feeds as feed_services
from accounts.services.delivery import digest_preview
from accounts.services.digest_settings import (
    digest_settings_update,
    digest_unsubscribe,
)
from accounts.services.digests import digest_context
from accounts.services.signed_links import (
    LinkExpired,
    save_link_read,
    unsubscribe_read,
)
from accounts.views.context import account_context
from accounts.views.responses import done, failed
from papers.models import Paper


@login_required
@require_POST
def digest_settings(request: HttpRequest) -> HttpResponse:
    follows = selectors.follows_for_user(user=request.user)
    form = DigestSettingsForm(request.POST, follows=follows)
    if form.is_valid():
        try:
            prefs = digest_settings_update(
                user=request.user,
                frequency=form.cleaned_data["frequency"],
                weekday=form.cleaned_data["weekday"],
                muted=form.cleaned_data["muted"],
            )
        except AccountsError as error:
            form.add_error(None, error.detail)
        else:
            when = {
                "daily": "after each arXiv announcement",
                "weekly": f"every {prefs.get_weekday_display()}",
                "off": "",
            }[prefs.frequency]
            message = f"Digest settings saved: {when}." if when else "Digests are off."
            return done(request, message, reverse("accounts-account") + "#digest")
    context = account_context(request, digest_form=form)
    return render(request, "accounts/account.html", context, status=400)


@login_required
@require_GET
# Mail clients only honour inline styles, so the e-mail template carries them; the preview shows
# that same template and is the one page allowed inline style attributes (never inline script).
@csp_update({"style-src": [UNSAFE_INLINE]})
def digest_preview_page(request: HttpRequest) -> HttpResponse:
    """The next digest exactly as the email would show it (HTML, or ?format=text)."""
    digest = digest_preview(user=request.user)
    context = digest_context(digest)
    if request.GET.get("format") == "text":
        return render(
            request, "accounts/emails/digest.txt", context, content_type="text/plain; charset=utf-8"
        )
    return render(request, "accounts/emails/digest.html", context)


# --- links in a digest: no password ----------------------------------------------------------


def _no_referrer(response: HttpResponse) -> HttpResponse:
    # The token is in this page's URL: links on it must not carry it to other sites.
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex"
    return response


@never_cache
@require_GET
def digest_save(request: HttpRequest, token: str) -> HttpResponse:
    """One click in a digest saves the paper to the recipient's default list. The signed link
    names the person and the paper and expires; saving twice is harmless (a mail scanner that
    follows links can do no more than the click itself)."""
    try:
        link = save_link_read(token)
    except LinkExpired as error:
        return _no_referrer(
            render(request, "accounts/digest_link.html", {"error": error.detail}, status=410)
        )
    except AccountsError as error:
        return _no_referrer(
            render(request, "accounts/digest_link.html", {"error": error.detail}, status=400)
        )
    user = get_user_model().objects.filter(pk=link.user_id, is_active=True).first()
    if user is None:
        raise Http404("That account no longer exists.")
    try:
        default = list_services.reading_list_default(user=user)
        item, created = list_services.list_item_save(
            user=user, list_id=default.pk, arxiv_id=link.arxiv_id
        )
    except AccountsError as error:
        return _no_referrer(
            render(request, "accounts/digest_link.html", {"error": error.detail}, status=400)
        )
    context = {
        "saved": item,
        "created": created,
        "reading_list": default,
        "paper": Paper.objects.filter(arxiv_id=item.arxiv_id).first(),
        "same_user": request.user.is_authenticated and request.user.pk == user.pk,
    }
    return _no_referrer(render(request, "accounts/digest_link.html", context))


@csrf_exempt  # the signed token is the credential; mail clients POST without cookies (RFC 8058)
@never_cache
@require_http_methods(["GET", "POST"])
def digest_unsubscribe_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link checkers must not unsubscribe anyone); POST, from the
    page's button or a mail client's one-click unsubscribe, turns the digest off."""
    try:
        user_id = unsubscribe_read(token)
    except AccountsError as error:
        return _no_referrer(
            render(request, "accounts/digest_unsubscribe.html", {"error": error.detail}, status=400)
        )
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise Http404("That account no longer exists.")
    if request.method == "POST":
        digest_unsubscribe(user=user)
        if request.POST.get("List-Unsubscribe") == "One-Click":
            return HttpResponse("Unsubscribed.\n", content_type="text/plain")
        context = {"done": True, "username": user.get_username()}
    else:
        context = {"done": False, "username": user.get_username(), "token": token}
    return _no_referrer(render(request, "accounts/digest_unsubscribe.html", context))


# --- private feeds ---------------------------------------------------------------------------


@login_required
@require_POST
def private_feed_action(request: HttpRequest, feed_id: int) -> HttpResponse:
    back = reverse("accounts-account") + "#private-feeds"
    action = request.POST.get("action", "")
    try:
        if action == "regenerate":
            feed_services.private_feed_regenerate(user=request.user, feed_id=feed_id)
            return done(request, "New feed address made; the old one no longer works.", back)
        if action == "revoke":
            feed_services.private_feed_revoke(user=request.user, feed_id=feed_id)
            return done(request, "Feed turned off; its address no longer works.", back)
    except NotFoundError:
        raise Http404("No such feed.") from None
    except AccountsError as error:
        return failed(request, error, back)
    return done(request, "Unknown action.", back, level=messages.ERROR)
