"""How every account form view answers: JSON for the progressive-enhancement script
(static/accounts/), else a flash message and a redirect back to a safe local address."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.errors import AccountsError, NotFoundError


def next_url(request: HttpRequest, default: str) -> str:
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def done(request: HttpRequest, message: str, default: str, *, level=messages.SUCCESS, **data):
    """Answer a form post: JSON for the script, else a flash message and a redirect back."""
    if wants_json(request):
        ok = level != messages.ERROR
        return JsonResponse({"ok": ok, "message": message, **data}, status=200 if ok else 400)
    messages.add_message(request, level, message)
    return redirect(next_url(request, default))


def failed(request: HttpRequest, error: AccountsError, default: str):
    if isinstance(error, NotFoundError):
        raise Http404(error.detail)
    if wants_json(request):
        return JsonResponse(
            {"ok": False, "code": error.code, "message": error.detail}, status=error.status
        )
    messages.error(request, error.detail)
    return redirect(next_url(request, default))
