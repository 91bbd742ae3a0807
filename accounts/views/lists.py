"""Reading lists: the index, saving, a list's page, import, export and item actions."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors
from accounts.apis import export_response
from accounts.errors import AccountsError, NotFoundError
from accounts.forms import (
    EXPORT_FORMAT_LABELS,
    ImportForm,
    ItemEditForm,
    ListNameForm,
    SaveForm,
)
from accounts.models import ListItem
from accounts.services import alerts as alert_services
from accounts.services import import_jobs, list_moves
from accounts.services import imports as import_services
from accounts.services import lists as list_services
from accounts.services import private_feeds as private_feed_services
from accounts.services.exports import export_format
from accounts.services.ids import canonical_id
from accounts.views.responses import done, failed

ITEMS_PER_PAGE = 100


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
        return done(request, message, default, level=messages.ERROR)
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
        return failed(request, error, default)
    name = item.reading_list.name
    message = f"Saved to {name}." if created else f"Already in {name}."
    return done(request, message, default, list=list_id, created=created)


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
    from papers.rows import decorate_rows

    # The reading view's detail for each saved paper (J/K and the pane, as on the feed).
    decorate_rows([item.paper for item in page.object_list if item.paper])
    for item in page.object_list:
        if item.paper:
            item.paper.saved = True  # it is in this list: the pane's Save says so
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
                return done(
                    request,
                    "A list needs a name of at most 200 characters.",
                    here,
                    level=messages.ERROR,
                )
            list_services.reading_list_update(
                user=request.user, list_id=reading_list.pk, name=form.cleaned_data["name"]
            )
            return done(request, "Renamed.", here)
        if action == "make_default":
            list_services.reading_list_update(
                user=request.user, list_id=reading_list.pk, is_default=True
            )
            return done(request, f"{reading_list.name!r} is now your default list.", here)
        if action == "delete":
            if request.POST.get("confirm") != "yes":
                return done(
                    request, "Tick the box to confirm the deletion.", here, level=messages.ERROR
                )
            list_services.reading_list_delete(user=request.user, list_id=reading_list.pk)
            messages.success(request, f"Deleted the list {reading_list.name!r}.")
            return redirect("accounts-lists")
    except AccountsError as error:
        return failed(request, error, here)
    return done(request, "Unknown action.", here, level=messages.ERROR)


@login_required
@require_POST
def list_import(request: HttpRequest, list_id: int | None = None) -> HttpResponse:
    """Import into a list, or into a new list when `new_list` names one."""
    form = ImportForm(request.POST, request.FILES, prefix="import")
    back = reverse("accounts-list-detail", args=[list_id]) if list_id else reverse("accounts-lists")
    if not form.is_valid():
        errors = "; ".join(str(e) for errs in form.errors.values() for e in errs)
        return done(request, errors, back, level=messages.ERROR)
    data = form.cleaned_data
    if data.get("file"):
        try:
            content = (
                data["file"].read(import_services.MAX_IMPORT_CHARS * 2 + 1).decode("utf-8-sig")
            )
        except UnicodeDecodeError:
            return done(request, "The file is not UTF-8 text.", back, level=messages.ERROR)
    else:
        content = data["text"]
    try:
        fmt, estimate = import_services.import_precheck(content=content, fmt=data["format"])
        background = estimate > import_services.IMPORT_IN_BACKGROUND_ENTRIES
        # Parsed once, here, so that a bad file fails before a new list is created.
        parsed = None if background else import_services.import_parse(content=content, fmt=fmt)
        if data.get("new_list"):
            target = list_services.reading_list_create(user=request.user, name=data["new_list"])
        elif list_id:
            target = selectors.reading_list_get(user=request.user, list_id=list_id)
        else:
            target = list_services.reading_list_default(user=request.user)
        if background:
            job = import_jobs.import_job_create(
                user=request.user, list_id=target.pk, content=content, fmt=fmt
            )
            return redirect("accounts-import-job", job_id=job.pk)
        report = import_services.list_import(user=request.user, list_id=target.pk, parsed=parsed)
    except AccountsError as error:
        return failed(request, error, back)
    messages.success(request, _import_summary(report.as_dict()) + ".")
    for problem in report.problems[:20]:
        messages.warning(request, f"Line {problem.line}: {problem.detail}.")
    more = len(report.problems) - 20 + report.problems_omitted
    if more > 0:
        messages.warning(request, f"… and {more} more lines with problems.")
    return redirect("accounts-list-detail", list_id=target.pk)


def _import_summary(result: dict) -> str:
    imported, already, pending = (len(result[k]) for k in ("imported", "already", "pending"))
    summary = f"Imported {imported} paper{'s' if imported != 1 else ''}"
    if already:
        summary += f"; {already} were in the list already"
    if pending:
        summary += f"; {pending} are being fetched from arXiv"
    return summary


@login_required
@require_GET
def import_job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    """A background import's progress; the page reloads itself until it is over."""
    try:
        job = import_jobs.import_job_get(user=request.user, job_id=job_id)
    except NotFoundError:
        raise Http404("No such import.") from None
    state = import_jobs.import_job_state(job=job)
    context = {
        "job": job,
        "state": state,
        "running": state["status"] in ("queued", "running"),
        "summary": _import_summary(state["result"]) if state["result"] else "",
    }
    return render(request, "accounts/import_job.html", context)


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
                return done(request, message, here, level=messages.ERROR)
            list_services.list_item_update(
                user=request.user,
                list_id=list_id,
                arxiv_id=canonical,
                note=form.cleaned_data["note"],
                read_state=form.cleaned_data["read_state"],
            )
            return done(request, f"Saved the changes to {canonical}.", here)
        if action == "remove":
            list_services.list_item_delete(user=request.user, list_id=list_id, arxiv_id=canonical)
            return done(request, f"Removed {canonical}.", here)
        if action == "dismiss":
            selectors.reading_list_get(user=request.user, list_id=list_id)
            alert_services.alerts_dismiss_paper(user=request.user, arxiv_id=canonical)
            return done(request, f"Marked the news about {canonical} as seen.", here)
        if action in list_moves.MOVES:
            list_moves.list_item_move(
                user=request.user, list_id=list_id, arxiv_id=canonical, move=action
            )
            return done(request, f"Moved {canonical}.", here)
        if action in ("move", "copy"):
            target = int(request.POST.get("to") or 0)
            result = list_moves.list_items_transfer(
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
            return done(request, message, here)
    except ValueError:
        return done(request, "Choose a list.", here, level=messages.ERROR)
    except AccountsError as error:
        return failed(request, error, here)
    return done(request, "Unknown action.", here, level=messages.ERROR)
