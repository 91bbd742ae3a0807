"""Account pages: sign-up and sign-in, the feed, reading lists, the account page with tokens, and
the extension's connect page. Each form posts to a small view that calls a service and redirects
back; the same views answer JSON to the progressive-enhancement script (static/accounts/)."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.validators import slug_re
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors
from accounts.apis import account_export_response, export_response
from accounts.errors import AccountsError, NotFoundError
from accounts.forms import (
    EXPORT_FORMAT_LABELS,
    AccountDeleteForm,
    ImportForm,
    ItemEditForm,
    ListNameForm,
    LoginForm,
    SaveForm,
    SignupForm,
    TokenCreateForm,
)
from accounts.models import ListItem
from accounts.services import account as account_services
from accounts.services import alerts as alert_services
from accounts.services import follows as follow_services
from accounts.services import imports as import_services
from accounts.services import lists as list_services
from accounts.services import private_feeds as private_feed_services
from accounts.services import tokens as token_services
from accounts.services.exports import export_format
from accounts.services.ids import canonical_id
from topics.models import Topic

ITEMS_PER_PAGE = 100
_EXTENSION_ID = re.compile(r"[A-Za-z0-9@._{}\-]{1,100}")


def _next_url(request: HttpRequest, default: str) -> str:
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _done(request: HttpRequest, message: str, default: str, *, level=messages.SUCCESS, **data):
    """Answer a form post: JSON for the script, else a flash message and a redirect back."""
    if _wants_json(request):
        ok = level != messages.ERROR
        return JsonResponse({"ok": ok, "message": message, **data}, status=200 if ok else 400)
    messages.add_message(request, level, message)
    return redirect(_next_url(request, default))


def _failed(request: HttpRequest, error: AccountsError, default: str):
    if isinstance(error, NotFoundError):
        raise Http404(error.detail)
    if _wants_json(request):
        return JsonResponse(
            {"ok": False, "code": error.code, "message": error.detail}, status=error.status
        )
    messages.error(request, error.detail)
    return redirect(_next_url(request, default))


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
        messages.success(request, "Welcome! Follow a few topics and their new papers gather here.")
        return redirect(_next_url(request, reverse("accounts-feed")))
    return render(request, "accounts/signup.html", {"form": form, "next": _next_url(request, "")})


# --- feed ------------------------------------------------------------------------------------


@login_required
@require_GET
def feed(request: HttpRequest) -> HttpResponse:
    from papers.views import BadPageRequest, bad_request_page, newest_first_page

    follows = selectors.follows_for_user(user=request.user)
    topic_ids = {follow.topic_id for follow in follows}
    current = None
    slug = request.GET.get("topic", "")
    if slug:
        current = next((f.topic for f in follows if f.topic.slug == slug), None)
        if current is None and slug_re.match(slug):  # a NUL is a 500 on PostgreSQL
            current = Topic.objects.filter(slug=slug[:100], active=True).first()
        if current is None:
            raise Http404("No such topic.")
        topic_ids = {current.pk}
    try:
        page = newest_first_page(
            selectors.feed_for_user(user=request.user, topic_ids=topic_ids),
            request.GET.get("cursor") or None,
        )
    except BadPageRequest as error:
        return bad_request_page(request, error)
    selectors.feed_decorate(user=request.user, papers=page.papers, topic_ids=topic_ids)
    return render(
        request,
        "accounts/feed.html",
        {
            "page": page,
            "follows": follows,
            "current_topic": current,
            "base_query": f"topic={current.slug}" if current else "",
            "default_list_id": selectors.default_list_id(user=request.user),
        },
    )


@login_required
@require_POST
def feed_hide(request: HttpRequest) -> HttpResponse:
    try:
        follow_services.hidden_create(user=request.user, arxiv_id=request.POST.get("arxiv_id", ""))
    except AccountsError as error:
        return _failed(request, error, reverse("accounts-feed"))
    return _done(request, "Hidden: it will not show in your feed again.", reverse("accounts-feed"))


@login_required
@require_POST
def feed_unhide(request: HttpRequest) -> HttpResponse:
    try:
        follow_services.hidden_delete(user=request.user, arxiv_id=request.POST.get("arxiv_id", ""))
    except AccountsError as error:
        return _failed(request, error, reverse("accounts-feed"))
    return _done(request, "Shown in your feed again.", reverse("accounts-feed"))


@login_required
@require_POST
def follow_toggle(request: HttpRequest, slug: str) -> HttpResponse:
    default = (
        reverse("topic-detail", args=[slug]) if _topic_exists(slug) else reverse("accounts-feed")
    )
    try:
        if request.POST.get("action") == "unfollow":
            follow_services.follow_delete(user=request.user, topic_slug=slug)
            return _done(request, "Unfollowed.", default, following=False)
        follow, _ = follow_services.follow_create(user=request.user, topic_slug=slug)
    except AccountsError as error:
        return _failed(request, error, default)
    return _done(
        request, f"Following {follow.topic.name}: its new papers appear in your feed.", default,
        following=True,
    )  # fmt: skip


def _topic_exists(slug: str) -> bool:
    return Topic.objects.filter(slug=slug, active=True).exists()


# --- lists -----------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def lists_index(request: HttpRequest) -> HttpResponse:
    form = ListNameForm(request.POST or None, prefix="create")
    if request.method == "POST" and form.is_valid():
        try:
            created = list_services.reading_list_create(
                user=request.user, name=form.cleaned_data["name"]
            )
        except AccountsError as error:
            form.add_error("name", error.detail)
        else:
            messages.success(request, f"Created the list {created.name!r}.")
            return redirect("accounts-list-detail", list_id=created.pk)
    return render(
        request,
        "accounts/lists.html",
        {
            "lists": selectors.reading_lists_for_user(user=request.user),
            "form": form,
            "import_form": ImportForm(prefix="import"),
        },
    )


@login_required
@require_POST
def list_save(request: HttpRequest) -> HttpResponse:
    """Save a paper from a paper page, a feed row or the S key; to the default list unless a
    list is chosen."""
    form = SaveForm(request.POST)
    default = reverse("accounts-lists")
    if not form.is_valid():
        message = "; ".join(f"{k}: {v[0]}" for k, v in form.errors.items())
        return _done(request, message, default, level=messages.ERROR)
    list_id = (
        form.cleaned_data.get("list") or list_services.reading_list_default(user=request.user).pk
    )
    try:
        item, created = list_services.list_item_save(
            user=request.user,
            list_id=list_id,
            arxiv_id=form.cleaned_data["arxiv_id"],
            note=form.cleaned_data.get("note") or None,
        )
    except AccountsError as error:
        return _failed(request, error, default)
    name = item.reading_list.name
    message = f"Saved to {name}." if created else f"Already in {name}."
    return _done(request, message, default, list=list_id, created=created)


@login_required
@require_http_methods(["GET", "POST"])
def list_detail(request: HttpRequest, list_id: int) -> HttpResponse:
    try:
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
    except NotFoundError:
        raise Http404("No such list.") from None
    if request.method == "POST":
        return _list_action(request, reading_list)
    read_state = request.GET.get("read_state", "")
    if read_state not in ("", *ListItem.ReadState.values):
        read_state = ""
    items = selectors.list_items(reading_list=reading_list, read_state=read_state or None).order_by(
        "position", "id"
    )
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    selectors.attach_papers(list(page.object_list))
    for item in page.object_list:
        item.changes = alert_services.change_lines(paper=item.paper, item=item)
        item.dismissable = any(change.kind != "withdrawn" for change in item.changes)
    other_lists = [
        rl for rl in selectors.reading_lists_for_user(user=request.user) if rl.pk != list_id
    ]
    private_feed = private_feed_services.private_feed_for_list(
        user=request.user, reading_list=reading_list
    )
    return render(
        request,
        "accounts/list_detail.html",
        {
            "list": reading_list,
            "page": page,
            "items": page.object_list,
            "other_lists": other_lists,
            "read_state": read_state,
            "read_states": ListItem.ReadState.choices,
            "rename_form": ListNameForm(initial={"name": reading_list.name}, prefix="rename"),
            "import_form": ImportForm(prefix="import"),
            "export_formats": EXPORT_FORMAT_LABELS,
            "private_feed_url": request.build_absolute_uri(
                private_feed_services.private_feed_path(private_feed)
            )
            if private_feed.active
            else "",
        },
    )


def _list_action(request: HttpRequest, reading_list) -> HttpResponse:
    here = reverse("accounts-list-detail", args=[reading_list.pk])
    action = request.POST.get("action", "")
    try:
        if action == "rename":
            form = ListNameForm(request.POST, prefix="rename")
            if not form.is_valid():
                return _done(
                    request,
                    "A list needs a name of at most 200 characters.",
                    here,
                    level=messages.ERROR,
                )
            list_services.reading_list_update(
                user=request.user, list_id=reading_list.pk, name=form.cleaned_data["name"]
            )
            return _done(request, "Renamed.", here)
        if action == "make_default":
            list_services.reading_list_update(
                user=request.user, list_id=reading_list.pk, is_default=True
            )
            return _done(request, f"{reading_list.name!r} is now your default list.", here)
        if action == "delete":
            if request.POST.get("confirm") != "yes":
                return _done(
                    request, "Tick the box to confirm the deletion.", here, level=messages.ERROR
                )
            list_services.reading_list_delete(user=request.user, list_id=reading_list.pk)
            messages.success(request, f"Deleted the list {reading_list.name!r}.")
            return redirect("accounts-lists")
    except AccountsError as error:
        return _failed(request, error, here)
    return _done(request, "Unknown action.", here, level=messages.ERROR)


@login_required
@require_POST
def list_import(request: HttpRequest, list_id: int | None = None) -> HttpResponse:
    """Import into a list, or into a new list when `new_list` names one."""
    form = ImportForm(request.POST, request.FILES, prefix="import")
    back = reverse("accounts-list-detail", args=[list_id]) if list_id else reverse("accounts-lists")
    if not form.is_valid():
        errors = "; ".join(str(e) for errs in form.errors.values() for e in errs)
        return _done(request, errors, back, level=messages.ERROR)
    data = form.cleaned_data
    if data.get("file"):
        try:
            content = (
                data["file"].read(import_services.MAX_IMPORT_CHARS * 2 + 1).decode("utf-8-sig")
            )
        except UnicodeDecodeError:
            return _done(request, "The file is not UTF-8 text.", back, level=messages.ERROR)
    else:
        content = data["text"]
    try:
        import_services.import_parse(content=content, fmt=data["format"])  # fail before creating
        if data.get("new_list"):
            target = list_services.reading_list_create(user=request.user, name=data["new_list"])
        elif list_id:
            target = selectors.reading_list_get(user=request.user, list_id=list_id)
        else:
            target = list_services.reading_list_default(user=request.user)
        report = import_services.list_import(
            user=request.user, list_id=target.pk, content=content, fmt=data["format"]
        )
    except AccountsError as error:
        return _failed(request, error, back)
    summary = f"Imported {len(report.imported)} paper{'s' if len(report.imported) != 1 else ''}"
    if report.already:
        summary += f"; {len(report.already)} were in the list already"
    if report.pending:
        summary += f"; {len(report.pending)} are being fetched from arXiv"
    messages.success(request, summary + ".")
    for problem in report.problems[:20]:
        messages.warning(request, f"Line {problem.line}: {problem.detail}.")
    if len(report.problems) > 20:
        messages.warning(request, f"… and {len(report.problems) - 20} more lines with problems.")
    return redirect("accounts-list-detail", list_id=target.pk)


@login_required
@require_GET
def list_export(request: HttpRequest, list_id: int) -> HttpResponse:
    try:
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        fmt = export_format(request.GET.get("format", "bibtex"))
    except NotFoundError:
        raise Http404("No such list.") from None
    except AccountsError as error:
        messages.error(request, error.detail)
        return redirect("accounts-list-detail", list_id=list_id)
    return export_response(reading_list=reading_list, fmt=fmt)


@login_required
@require_POST
def item_action(request: HttpRequest, list_id: int, arxiv_id: str) -> HttpResponse:
    here = reverse("accounts-list-detail", args=[list_id])
    action = request.POST.get("action", "")
    try:
        canonical = canonical_id(arxiv_id)
        if action == "save":
            form = ItemEditForm(request.POST)
            if not form.is_valid():
                message = "; ".join(f"{k}: {v[0]}" for k, v in form.errors.items())
                return _done(request, message, here, level=messages.ERROR)
            list_services.list_item_update(
                user=request.user,
                list_id=list_id,
                arxiv_id=canonical,
                note=form.cleaned_data["note"],
                read_state=form.cleaned_data["read_state"],
            )
            return _done(request, f"Saved the changes to {canonical}.", here)
        if action == "remove":
            list_services.list_item_delete(user=request.user, list_id=list_id, arxiv_id=canonical)
            return _done(request, f"Removed {canonical}.", here)
        if action == "dismiss":
            selectors.reading_list_get(user=request.user, list_id=list_id)
            alert_services.alerts_dismiss_paper(user=request.user, arxiv_id=canonical)
            return _done(request, f"Marked the news about {canonical} as seen.", here)
        if action in ("up", "down", "top"):
            item = ListItem.objects.get(
                reading_list__user=request.user, reading_list_id=list_id, arxiv_id=canonical
            )
            index = list(
                ListItem.objects.filter(reading_list_id=list_id)
                .order_by("position", "id")
                .values_list("pk", flat=True)
            ).index(item.pk)
            to = {"up": max(0, index - 1), "down": index + 1, "top": 0}[action]
            list_services.list_item_update(
                user=request.user, list_id=list_id, arxiv_id=canonical, position=to
            )
            return _done(request, f"Moved {canonical}.", here)
        if action in ("move", "copy"):
            target = int(request.POST.get("to") or 0)
            result = list_services.list_items_transfer(
                user=request.user,
                from_list_id=list_id,
                to_list_id=target,
                arxiv_ids=[canonical],
                move=action == "move",
            )
            verb = "Moved" if action == "move" else "Copied"
            message = (
                f"{verb} {canonical}." if result.transferred else f"{canonical} was there already."
            )
            return _done(request, message, here)
    except ListItem.DoesNotExist:
        raise Http404("No such item.") from None
    except ValueError:
        return _done(request, "Choose a list.", here, level=messages.ERROR)
    except AccountsError as error:
        return _failed(request, error, here)
    return _done(request, "Unknown action.", here, level=messages.ERROR)


# --- account ---------------------------------------------------------------------------------


def _account_context(request: HttpRequest, **extra) -> dict:
    from accounts.views_digests import account_digest_context

    return {
        "tokens": list(selectors.tokens_for_user(user=request.user)),
        "follows": selectors.follows_for_user(user=request.user),
        "lists": selectors.reading_lists_for_user(user=request.user),
        "token_form": TokenCreateForm(),
        **account_digest_context(request, form=extra.pop("digest_form", None)),
        **extra,
    }


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/account.html", _account_context(request))


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
                _account_context(request, new_token=token, new_secret=raw),
            )
            response["Cache-Control"] = "no-store"
            return response
    return render(
        request, "accounts/account.html", _account_context(request, token_form=form), status=400
    )


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_services.token_revoke(user=request.user, token_id=token_id)
    except NotFoundError:
        raise Http404("No such token.") from None
    return _done(request, f"Revoked the token {token.name!r}.", reverse("accounts-account"))


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
