"""Zotero-style versions for reading lists: one counter per user, taken under a row lock.

Every write to a user's lists or items runs inside `library_write`, which locks the user's
`Library` row first (so all writers of one user queue in one place, always in the same order,
and versions are committed in the order they are handed out), checks the client's
If-Unmodified-Since-Version precondition, and stamps what changed with the next version.
See https://www.zotero.org/support/dev/web_api/v3/syncing for the protocol this follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from accounts.errors import InvalidInput, VersionConflict
from accounts.models import Deletion, Library

_VERSION = re.compile(r"\d{1,18}")


def parse_version(value: str | None, *, what: str = "If-Unmodified-Since-Version") -> int | None:
    """A version from a header or query value; None when absent, InvalidInput if malformed."""
    if value is None:
        return None
    value = value.strip()
    if not _VERSION.fullmatch(value):
        code = "invalid_version_header" if what.startswith("If-") else "invalid_since"
        raise InvalidInput(
            f"{what} must be a library version: a whole number such as 42, not {value[:40]!r}.",
            code=code,
        )
    return int(value)


def check_unmodified(*, expected: int | None, actual: int, what: str) -> None:
    """Raise VersionConflict when the client's copy is older than the stored version."""
    if expected is not None and actual > expected:
        raise VersionConflict(
            f"{what} changed since version {expected} (it is now at {actual}); "
            "fetch the changes and try again.",
            current_version=actual,
        )


class LibraryWrite:
    """The open write: hands out one new version for everything changed in this transaction."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.start_version = library.version
        self._bumped = False

    @property
    def version(self) -> int:
        """The library's version as of now (the new one once something changed)."""
        return self.library.version

    @property
    def next_version(self) -> int:
        """The version that this write stamps on what it changes; taken on first use."""
        if not self._bumped:
            self.library.version += 1
            self._bumped = True
        return self.library.version

    @property
    def changed(self) -> bool:
        return self._bumped

    def tombstone(self, *, kind: str, list_id: int, arxiv_ids: list[str] | None = None) -> None:
        version = self.next_version
        if kind == Deletion.Kind.LIST:
            Deletion.objects.create(
                user_id=self.library.user_id, kind=kind, list_id=list_id, version=version
            )
            return
        Deletion.objects.bulk_create(
            [
                Deletion(
                    user_id=self.library.user_id,
                    kind=kind,
                    list_id=list_id,
                    arxiv_id=arxiv_id,
                    version=version,
                )
                for arxiv_id in arxiv_ids or []
            ]
        )

    def forget_tombstones(self, *, list_id: int, arxiv_ids: list[str]) -> None:
        """An item saved again is no longer deleted; a client must not see both."""
        if arxiv_ids:
            Deletion.objects.filter(
                user_id=self.library.user_id,
                kind=Deletion.Kind.ITEM,
                list_id=list_id,
                arxiv_id__in=arxiv_ids,
            ).delete()


def library_ensure(*, user) -> Library:
    """The user's library row, created if an older account has none yet."""
    Library.objects.bulk_create([Library(user=user)], ignore_conflicts=True)
    return Library.objects.get(user=user)


@contextmanager
def library_write(*, user, expected_version: int | None = None) -> Iterator[LibraryWrite]:
    """Run a write to the user's lists: lock, check the library-level precondition, bump once.

    `expected_version` is the If-Unmodified-Since-Version of a write to a collection; writes to
    one object check the object's own version with `check_unmodified` instead.
    """
    with transaction.atomic():
        library = Library.objects.select_for_update().filter(user=user).first()
        if library is None:
            library_ensure(user=user)
            library = Library.objects.select_for_update().get(user=user)
        check_unmodified(expected=expected_version, actual=library.version, what="The library")
        write = LibraryWrite(library)
        yield write
        if write.changed:
            library.save(update_fields=["version"])
