"""What a list or item write accepts: a list's name, an item's note and read state, cleaned
or refused with a clear error before anything is written."""

from __future__ import annotations

from accounts.errors import InvalidInput
from accounts.models import LIST_NAME_MAX_LENGTH, NOTE_MAX_LENGTH, ListItem

READ_STATES = tuple(ListItem.ReadState.values)


def clean_note(note) -> str:
    if note is None:
        return ""
    if not isinstance(note, str):
        raise InvalidInput("A note must be text.", code="invalid_note")
    if len(note) > NOTE_MAX_LENGTH:
        raise InvalidInput(
            f"A note has at most {NOTE_MAX_LENGTH} characters; this one has {len(note)}.",
            code="note_too_long",
        )
    return note


def clean_read_state(read_state) -> str | None:
    if read_state is None:
        return None
    if read_state not in READ_STATES:
        raise InvalidInput(
            f"read_state must be one of {', '.join(READ_STATES)}, not {str(read_state)[:40]!r}.",
            code="invalid_read_state",
        )
    return read_state


def clean_list_name(name) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("A list needs a name.", code="required")
    name = " ".join(name.split())
    if len(name) > LIST_NAME_MAX_LENGTH:
        raise InvalidInput(
            f"A list name has at most {LIST_NAME_MAX_LENGTH} characters.", code="name_too_long"
        )
    return name
