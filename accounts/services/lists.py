"""Reading lists and their items. Every write runs in `library_write`: one lock, one new version.

Items are keyed by canonical arXiv id, so a paper can be saved the moment someone sees it on
arxiv.org, before the harvester has it; the id is queued for an on-demand fetch and the item's
`paper` link is filled in when the paper arrives (`list_items_link_papers`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Max
from django.utils import timezone

from accounts.errors import Conflict, InvalidInput, NotFoundError
from accounts.models import (
    DEFAULT_LIST_NAME,
    Deletion,
    ListItem,
    ReadingList,
)
from accounts.services.ids import canonical_id, canonical_ids, papers_by_arxiv_id, queue_unknown
from accounts.services.list_input import clean_list_name, clean_note, clean_read_state
from accounts.services.sync import LibraryWrite, check_unmodified, library_ensure, library_write

MAX_LISTS = 200
MAX_ITEMS_PER_LIST = 10_000
IMPORT_CHUNK = 500  # entries per step of a background import's progress


@dataclass(frozen=True)
class NewItem:
    arxiv_id: str  # canonical
    note: str = ""
    read_state: str | None = None


@dataclass
class AddResult:
    created: list[ListItem] = field(default_factory=list)
    existing: list[ListItem] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # ids queued for an on-demand fetch
    version: int = 0


def own_list(*, user, list_id) -> ReadingList:
    reading_list = ReadingList.objects.filter(user=user, pk=list_id).first()
    if reading_list is None:
        raise NotFoundError(f"No list {list_id}.")
    return reading_list


def own_item(*, reading_list: ReadingList, arxiv_id: str) -> ListItem:
    item = ListItem.objects.filter(reading_list=reading_list, arxiv_id=arxiv_id).first()
    if item is None:
        raise NotFoundError(f"{arxiv_id} is not in the list {reading_list.name!r}.")
    return item


def _check_name_free(*, user, name: str, exclude_id: int | None = None) -> None:
    taken = ReadingList.objects.filter(user=user, name__iexact=name)
    if exclude_id is not None:
        taken = taken.exclude(pk=exclude_id)
    if taken.exists():
        raise Conflict(f"You already have a list called {name!r}.", code="duplicate_name")


# --- lists -----------------------------------------------------------------------------------


def account_setup(*, user) -> ReadingList:
    """What every account starts with: its library row, the default "Reading list" and digest
    settings (daily, papers from now on)."""
    from accounts.services.digest_settings import digest_settings_get

    library_ensure(user=user)
    digest_settings_get(user=user)
    return reading_list_default(user=user)


def reading_list_default(*, user) -> ReadingList:
    """The user's default list, created (as version 1 of a new library) if it is missing."""
    existing = ReadingList.objects.filter(user=user, is_default=True).first()
    if existing is not None:
        return existing
    with library_write(user=user) as write:
        existing = ReadingList.objects.filter(user=user, is_default=True).first()
        if existing is not None:
            return existing
        name = DEFAULT_LIST_NAME
        if ReadingList.objects.filter(user=user, name__iexact=name).exists():
            name = f"{DEFAULT_LIST_NAME} (default)"
        return ReadingList.objects.create(
            user=user,
            name=name,
            is_default=True,
            position=0,
            version=write.next_version,
        )


def reading_list_create(*, user, name: str, expected_version: int | None = None) -> ReadingList:
    name = clean_list_name(name)
    with library_write(user=user, expected_version=expected_version) as write:
        _check_name_free(user=user, name=name)
        if ReadingList.objects.filter(user=user).count() >= MAX_LISTS:
            raise InvalidInput(f"You can have at most {MAX_LISTS} lists.", code="too_many_lists")
        last = ReadingList.objects.filter(user=user).aggregate(m=Max("position"))["m"]
        reading_list = ReadingList(
            user=user,
            name=name,
            position=0 if last is None else last + 1,
            version=write.next_version,
        )
        reading_list.full_clean(validate_constraints=False)
        reading_list.save()
    return reading_list


def reading_list_update(
    *,
    user,
    list_id: int,
    name: str | None = None,
    position: int | None = None,
    is_default: bool | None = None,
    expected_version: int | None = None,
) -> ReadingList:
    """Rename, move or make default; `expected_version` guards the list's own version."""
    if name is not None:
        name = clean_list_name(name)
    if position is not None and (not isinstance(position, int) or position < 0):
        raise InvalidInput("position must be a whole number from 0.", code="invalid_position")
    with library_write(user=user) as write:
        reading_list = own_list(user=user, list_id=list_id)
        check_unmodified(expected=expected_version, actual=reading_list.version, what="The list")
        if is_default is False and reading_list.is_default:
            raise InvalidInput(
                "Make another list the default instead; there is always one default list.",
                code="default_list",
            )
        changed: list[str] = []
        if name is not None and name != reading_list.name:
            _check_name_free(user=user, name=name, exclude_id=reading_list.pk)
            reading_list.name = name
            changed.append("name")
        if is_default and not reading_list.is_default:
            previous = ReadingList.objects.filter(user=user, is_default=True).first()
            if previous is not None:
                previous.is_default = False
                previous.version = write.next_version
                previous.save(update_fields=["is_default", "version", "modified_at"])
            reading_list.is_default = True
            changed.append("is_default")
        if position is not None:
            _reorder_lists(write=write, user=user, moving=reading_list, to=position)
        if changed:
            reading_list.version = write.next_version
            reading_list.save(update_fields=[*changed, "version", "modified_at"])
    reading_list.refresh_from_db()
    return reading_list


def _reorder_lists(*, write: LibraryWrite, user, moving: ReadingList, to: int) -> None:
    lists = [rl for rl in ReadingList.objects.filter(user=user) if rl.pk != moving.pk]
    lists.insert(min(to, len(lists)), moving)
    for index, rl in enumerate(lists):
        if rl.position != index:
            ReadingList.objects.filter(pk=rl.pk).update(
                position=index, version=write.next_version, modified_at=timezone.now()
            )


def reading_list_delete(*, user, list_id: int, expected_version: int | None = None) -> None:
    with library_write(user=user) as write:
        reading_list = own_list(user=user, list_id=list_id)
        check_unmodified(expected=expected_version, actual=reading_list.version, what="The list")
        if reading_list.is_default:
            raise InvalidInput(
                "The default list cannot be deleted; make another list the default first.",
                code="default_list",
            )
        write.tombstone(kind=Deletion.Kind.LIST, list_id=reading_list.pk)
        # The list's own item tombstones are moot: a client drops the items with the list.
        Deletion.objects.filter(
            user=user, kind=Deletion.Kind.ITEM, list_id=reading_list.pk
        ).delete()
        reading_list.delete()


# --- items -----------------------------------------------------------------------------------


def next_position(reading_list: ReadingList) -> int:
    last = ListItem.objects.filter(reading_list=reading_list).aggregate(m=Max("position"))["m"]
    return 0 if last is None else last + 1


def _add(
    *,
    write: LibraryWrite,
    reading_list: ReadingList,
    entries: list[NewItem],
    overwrite_note: bool,
) -> AddResult:
    """Add entries to a locked list: new ones appended in order, existing ones kept (their note
    replaced by a non-empty new one when `overwrite_note`, else filled in only if empty)."""
    result = AddResult()
    wanted = list(dict.fromkeys(entry.arxiv_id for entry in entries))
    first_entry: dict[str, NewItem] = {}
    for entry in entries:
        first_entry.setdefault(entry.arxiv_id, entry)
    existing = {
        item.arxiv_id: item
        for item in ListItem.objects.filter(reading_list=reading_list, arxiv_id__in=wanted)
    }
    new_ids = [arxiv_id for arxiv_id in wanted if arxiv_id not in existing]
    count = ListItem.objects.filter(reading_list=reading_list).count()
    if count + len(new_ids) > MAX_ITEMS_PER_LIST:
        raise InvalidInput(
            f"A list holds at most {MAX_ITEMS_PER_LIST} papers; this one has {count}.",
            code="list_full",
        )
    for arxiv_id, item in existing.items():
        entry = first_entry[arxiv_id]
        changed = []
        if entry.note and entry.note != item.note and (overwrite_note or not item.note):
            item.note = entry.note
            changed.append("note")
        if entry.read_state and entry.read_state != item.read_state and overwrite_note:
            item.read_state = entry.read_state
            changed.append("read_state")
        if changed:
            item.version = write.next_version
            item.save(update_fields=[*changed, "version", "modified_at"])
        result.existing.append(item)
    if new_ids:
        papers = papers_by_arxiv_id(new_ids)
        position = next_position(reading_list)
        now = timezone.now()
        version = write.next_version
        items = [
            ListItem(
                reading_list=reading_list,
                arxiv_id=arxiv_id,
                paper=papers.get(arxiv_id),
                note=first_entry[arxiv_id].note,
                read_state=first_entry[arxiv_id].read_state or ListItem.ReadState.UNREAD,
                position=position + offset,
                version=version,
                added_at=now,
                **saved_snapshot(papers.get(arxiv_id)),
            )
            for offset, arxiv_id in enumerate(new_ids)
        ]
        ListItem.objects.bulk_create(items)
        write.forget_tombstones(list_id=reading_list.pk, arxiv_ids=new_ids)
        created = {
            item.arxiv_id: item
            for item in ListItem.objects.filter(reading_list=reading_list, arxiv_id__in=new_ids)
        }
        result.created = [created[arxiv_id] for arxiv_id in new_ids]
        result.pending = queue_unknown(new_ids, papers)
    result.version = write.version
    return result


def list_items_add(
    *,
    user,
    list_id: int,
    entries: list[NewItem],
    expected_version: int | None = None,
    overwrite_note: bool = True,
    progress=None,
) -> AddResult:
    """Add many papers at once, in one transaction. Entries must hold canonical ids. With
    `progress`, they are saved IMPORT_CHUNK at a time and progress(done, total) is called after
    each chunk (a background import reports it; nothing is committed until all are saved)."""
    for entry in entries:
        clean_note(entry.note)
        clean_read_state(entry.read_state)
    chunk = IMPORT_CHUNK if progress is not None else max(1, len(entries))
    total = AddResult()
    with library_write(user=user, expected_version=expected_version) as write:
        reading_list = own_list(user=user, list_id=list_id)
        for start in range(0, max(1, len(entries)), chunk):
            result = _add(
                write=write,
                reading_list=reading_list,
                entries=entries[start : start + chunk],
                overwrite_note=overwrite_note,
            )
            total.created += result.created
            total.existing += result.existing
            total.pending += result.pending
            total.version = result.version
            if progress is not None:
                progress(min(start + chunk, len(entries)), len(entries))
    return total


def list_item_save(
    *,
    user,
    list_id: int,
    arxiv_id: str,
    note: str | None = None,
    read_state: str | None = None,
    expected_version: int | None = None,
) -> tuple[ListItem, bool]:
    """Save one paper (any id form). Saving it again is a no-op unless a new note is given.

    Returns (item, created)."""
    entry = NewItem(
        arxiv_id=canonical_id(arxiv_id),
        note=clean_note(note),
        read_state=clean_read_state(read_state),
    )
    result = list_items_add(
        user=user, list_id=list_id, entries=[entry], expected_version=expected_version
    )
    if result.created:
        return result.created[0], True
    return result.existing[0], False


def list_items_save_many(
    *, user, list_id: int, arxiv_ids: list, expected_version: int | None = None
) -> AddResult:
    """Bulk add by ids; one bad id rejects the whole request and nothing is written."""
    ids = canonical_ids(arxiv_ids)
    return list_items_add(
        user=user,
        list_id=list_id,
        entries=[NewItem(arxiv_id=arxiv_id) for arxiv_id in ids],
        expected_version=expected_version,
    )


def list_item_update(
    *,
    user,
    list_id: int,
    arxiv_id: str,
    note: str | None = None,
    read_state: str | None = None,
    position: int | None = None,
    expected_version: int | None = None,
) -> ListItem:
    """Change an item's note, read state or place; `expected_version` guards the item's version."""
    canonical = canonical_id(arxiv_id)
    if note is not None:
        note = clean_note(note)
    read_state = clean_read_state(read_state)
    if position is not None and (not isinstance(position, int) or position < 0):
        raise InvalidInput("position must be a whole number from 0.", code="invalid_position")
    with library_write(user=user) as write:
        reading_list = own_list(user=user, list_id=list_id)
        item = own_item(reading_list=reading_list, arxiv_id=canonical)
        check_unmodified(expected=expected_version, actual=item.version, what="The item")
        changed = []
        if note is not None and note != item.note:
            item.note = note
            changed.append("note")
        if read_state is not None and read_state != item.read_state:
            item.read_state = read_state
            changed.append("read_state")
        if changed:
            item.version = write.next_version
            item.save(update_fields=[*changed, "version", "modified_at"])
        if position is not None:
            _reorder_items(write=write, reading_list=reading_list, moving=item, to=position)
    item.refresh_from_db()
    return item


def _reorder_items(*, write: LibraryWrite, reading_list: ReadingList, moving, to: int) -> None:
    """Put `moving` at index `to` and number the list 0..n-1; only moved items get a version."""
    items = [
        (pk, position)
        for pk, position in ListItem.objects.filter(reading_list=reading_list).values_list(
            "pk", "position"
        )
        if pk != moving.pk
    ]
    items.insert(min(to, len(items)), (moving.pk, moving.position))
    now = timezone.now()
    for index, (pk, position) in enumerate(items):
        if position != index:
            ListItem.objects.filter(pk=pk).update(
                position=index, version=write.next_version, modified_at=now
            )


def list_item_delete(
    *, user, list_id: int, arxiv_id: str, expected_version: int | None = None
) -> None:
    canonical = canonical_id(arxiv_id)
    with library_write(user=user) as write:
        reading_list = own_list(user=user, list_id=list_id)
        item = own_item(reading_list=reading_list, arxiv_id=canonical)
        check_unmodified(expected=expected_version, actual=item.version, what="The item")
        item.delete()
        write.tombstone(kind=Deletion.Kind.ITEM, list_id=reading_list.pk, arxiv_ids=[canonical])


def list_items_link_papers(*, arxiv_ids: list[str] | None = None) -> int:
    """Point saved items at their papers once the papers have arrived. Returns rows linked.

    Paper metadata is not part of the sync versions (only what the person changed is), so this
    does not bump anyone's library version.
    """
    from papers.models import Paper

    unlinked = ListItem.objects.filter(paper__isnull=True)
    if arxiv_ids is not None:
        unlinked = unlinked.filter(arxiv_id__in=arxiv_ids)
    ids = list(unlinked.values_list("arxiv_id", flat=True).distinct()[:10_000])
    linked = 0
    for paper in Paper.objects.filter(arxiv_id__in=ids).only(
        "id", "arxiv_id", "version", "journal_ref", "doi"
    ):
        # The paper as it arrives is what the person saved: later changes are the news.
        linked += ListItem.objects.filter(paper__isnull=True, arxiv_id=paper.arxiv_id).update(
            paper_id=paper.pk, **saved_snapshot(paper)
        )
    return linked


def saved_snapshot(paper) -> dict:
    """The fields of a saved item that remember the paper as it was saved."""
    if paper is None:
        return {"saved_version": None, "saved_journal_ref": "", "saved_doi": ""}
    return {
        "saved_version": paper.version,
        "saved_journal_ref": paper.journal_ref,
        "saved_doi": paper.doi,
    }
