"""Newest-first keyset paging, shared by the pages and the API.

Papers (or one topic's tags) are ordered by announcement date, newest first, rows without a date
after every dated row, ties by id. A cursor names the last row shown: its date (or "-" for none)
and its id, base64url-encoded so that people treat it as opaque. The next page is the rows after
that one in the order, found with a WHERE on the index rather than an OFFSET, so it costs the
same on page 1 and page 1,000 and a walk reaches every row exactly once, undated ones included.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from datetime import date

from django.db.models import F, Q, QuerySet
from rest_framework.utils.urls import replace_query_param

from config.api import BadRequest

CURSOR_MAX_LENGTH = 200


class InvalidCursor(ValueError):
    """A cursor this service did not give out (malformed, forged or from another version)."""


def cursor_encode(day: date | None, pk: int) -> str:
    text = f"{day.isoformat() if day else '-'}|{pk}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def cursor_decode(cursor: str) -> tuple[date | None, int]:
    """(date or None, id) of the row a cursor names; InvalidCursor when it is not one of ours."""
    if len(cursor) > CURSOR_MAX_LENGTH or not re.fullmatch(r"[A-Za-z0-9_\-]+", cursor):
        raise InvalidCursor(cursor[:50])
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        day_text, id_text = raw.split("|")
        day = None if day_text == "-" else date.fromisoformat(day_text)
        pk = int(id_text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursor(cursor[:50]) from None
    if pk < 1 or pk > 2**63 - 1:
        raise InvalidCursor(cursor[:50])
    return day, pk


def newest_first(rows: QuerySet, *, cursor: str | None = None, id_field: str = "id") -> QuerySet:
    """``rows`` in newest-first order, from the row after the one ``cursor`` names.
    ``id_field`` is the tie-breaking id: ``id`` for papers, ``paper_id`` for a topic's tags."""
    ordered = rows.order_by(F("announced").desc(nulls_last=True), f"-{id_field}")
    if not cursor:
        return ordered
    day, pk = cursor_decode(cursor)
    if day is None:
        return ordered.filter(Q(announced__isnull=True) & Q(**{f"{id_field}__lt": pk}))
    return ordered.filter(
        Q(announced__lt=day)
        | Q(announced=day, **{f"{id_field}__lt": pk})
        | Q(announced__isnull=True)
    )


def newest_first_slice(
    rows: QuerySet, *, cursor: str | None, size: int, id_field: str = "id"
) -> tuple[list, str | None]:
    """One page of ``rows`` after ``cursor`` and the cursor of the page after it (None on the
    last page): reads one row more than it shows, to know whether there is a next page."""
    page = list(newest_first(rows, cursor=cursor, id_field=id_field)[: size + 1])
    more = len(page) > size
    page = page[:size]
    if not (more and page):
        return page, None
    last = page[-1]
    return page, cursor_encode(last.announced, getattr(last, id_field))


class NewestFirstPagination:
    """The API's side of the same paging: ``?cursor=`` (a ``next`` link's) and ``?limit=``
    (1-100, default 25); the answer's envelope is ``{"results": [...], "next": <URL or null>}``.
    A malformed cursor or limit is a 400 (``invalid_cursor``, ``invalid_limit``)."""

    page_size = 25
    max_page_size = 100

    def __init__(self, request) -> None:
        self.request = request
        self.next_cursor: str | None = None

    def page(self, rows: QuerySet, *, id_field: str = "id") -> list:
        """This request's page of ``rows`` (papers, newest first)."""
        return self.page_from(
            lambda cursor, size: newest_first_slice(
                rows, cursor=cursor, size=size, id_field=id_field
            )
        )

    def page_from(self, fetch: Callable[[str | None, int], tuple[list, str | None]]) -> list:
        """This request's page from ``fetch(cursor, size) -> (page, next cursor)``, a selector
        that pages with these cursors (e.g. a topic's papers over its tag index)."""
        params = self.request.query_params
        limit = params.get("limit", str(self.page_size))
        if not limit.isdigit() or not 1 <= int(limit) <= self.max_page_size:
            raise BadRequest(
                f"limit must be a whole number from 1 to {self.max_page_size}.",
                code="invalid_limit",
            )
        try:
            page, self.next_cursor = fetch(params.get("cursor"), int(limit))
        except InvalidCursor:
            raise BadRequest(
                "The cursor is not one this API gave out.", code="invalid_cursor"
            ) from None
        return page

    def body(self, results: list) -> dict:
        """The answer for ``results`` (the page, serialized)."""
        if self.next_cursor is None:
            return {"results": results, "next": None}
        url = self.request.build_absolute_uri()
        return {"results": results, "next": replace_query_param(url, "cursor", self.next_cursor)}
