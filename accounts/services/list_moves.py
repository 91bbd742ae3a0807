"""Moving items: up, down or to the top of their list, and moving or copying them to another
list (one write, one new version, like every list write)."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.errors import InvalidInput
from accounts.models import Deletion, ListItem
from accounts.services.ids import canonical_id, canonical_ids
from accounts.services.lists import (
    MAX_ITEMS_PER_LIST,
    list_item_update,
    next_position,
    own_item,
    own_list,
)
from accounts.services.sync import library_write

MOVES = ("up", "down", "top")


def list_item_move(*, user, list_id: int, arxiv_id: str, move: str) -> ListItem:
    """Move an item one place up or down, or to the top of its list (the list page's buttons)."""
    if move not in MOVES:
        raise InvalidInput(f"move must be one of {', '.join(MOVES)}.", code="invalid_move")
    canonical = canonical_id(arxiv_id)
    reading_list = own_list(user=user, list_id=list_id)
    item = own_item(reading_list=reading_list, arxiv_id=canonical)
    order = list(
        ListItem.objects.filter(reading_list=reading_list)
        .order_by("position", "id")
        .values_list("pk", flat=True)
    )
    index = order.index(item.pk)
    to = {"up": max(0, index - 1), "down": index + 1, "top": 0}[move]
    return list_item_update(user=user, list_id=list_id, arxiv_id=canonical, position=to)


@dataclass
class TransferResult:
    transferred: list[str]  # ids now in the target list that were not there before
    already: list[str]  # ids the target list had already
    version: int


def list_items_transfer(
    *,
    user,
    from_list_id: int,
    to_list_id: int,
    arxiv_ids: list,
    move: bool,
    expected_version: int | None = None,
) -> TransferResult:
    """Copy (or move) items with their note, read state and added date to another list.

    All ids must be in the source list, else nothing happens. Moving a paper that the target
    already has keeps the target's copy and removes the source's."""
    ids = canonical_ids(arxiv_ids)
    if not ids:
        raise InvalidInput("Name at least one paper to copy or move.", code="required")
    with library_write(user=user, expected_version=expected_version) as write:
        source = own_list(user=user, list_id=from_list_id)
        target = own_list(user=user, list_id=to_list_id)
        if source.pk == target.pk:
            raise InvalidInput("Source and target are the same list.", code="same_list")
        items = {
            i.arxiv_id: i for i in ListItem.objects.filter(reading_list=source, arxiv_id__in=ids)
        }
        missing = [arxiv_id for arxiv_id in ids if arxiv_id not in items]
        if missing:
            raise InvalidInput(
                f"Not in the list {source.name!r}: {', '.join(missing[:10])}. Nothing was changed.",
                code="not_in_list",
                missing=missing,
            )
        already = set(
            ListItem.objects.filter(reading_list=target, arxiv_id__in=ids).values_list(
                "arxiv_id", flat=True
            )
        )
        new_ids = [arxiv_id for arxiv_id in ids if arxiv_id not in already]
        count = ListItem.objects.filter(reading_list=target).count()
        if count + len(new_ids) > MAX_ITEMS_PER_LIST:
            raise InvalidInput(
                f"A list holds at most {MAX_ITEMS_PER_LIST} papers.", code="list_full"
            )
        position = next_position(target)
        version = write.next_version
        ListItem.objects.bulk_create(
            [
                ListItem(
                    reading_list=target,
                    arxiv_id=arxiv_id,
                    paper_id=items[arxiv_id].paper_id,
                    note=items[arxiv_id].note,
                    read_state=items[arxiv_id].read_state,
                    added_at=items[arxiv_id].added_at,
                    position=position + offset,
                    version=version,
                    saved_version=items[arxiv_id].saved_version,
                    saved_journal_ref=items[arxiv_id].saved_journal_ref,
                    saved_doi=items[arxiv_id].saved_doi,
                )
                for offset, arxiv_id in enumerate(new_ids)
            ]
        )
        write.forget_tombstones(list_id=target.pk, arxiv_ids=new_ids)
        if move:
            ListItem.objects.filter(reading_list=source, arxiv_id__in=ids).delete()
            write.tombstone(kind=Deletion.Kind.ITEM, list_id=source.pk, arxiv_ids=ids)
        return TransferResult(
            transferred=new_ids,
            already=[arxiv_id for arxiv_id in ids if arxiv_id in already],
            version=write.version,
        )
