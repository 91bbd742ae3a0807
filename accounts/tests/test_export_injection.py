"""Finding 7: exported notes and titles cannot forge RIS records or smuggle spreadsheet formulas.

RIS is read line by line and a line starting with a tag (`ER  - `) begins a field, so every line
break a reader may honour (CR alone, U+2028, U+0085 ...) must be one we control. CSV follows
OWASP's CSV-injection guidance: a cell a spreadsheet could read as a formula starts with `'`.
https://owasp.org/www-community/attacks/CSV_Injection
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from accounts.models import ListItem, ReadingList
from accounts.services.exports import csv_cell
from accounts.services.imports import parse_csv
from accounts.services.lists import list_item_save

pytestmark = pytest.mark.django_db

# Each forges a second record (or a field) in a reader that splits lines on that break.
RIS_FORGERIES = {
    "cr": "fine\rER  - \rTY  - JOUR\rTI  - Forged",
    "u2028": "fine\u2028ER  - \u2028TY  - JOUR\u2028TI  - Forged",
    "u2029": "fine\u2029ER  - \u2029TY  - JOUR\u2029TI  - Forged",
    "nel": "fine\x85ER  - \x85TY  - JOUR\x85TI  - Forged",
    "vt-ff": "fine\x0bER  - \x0cTY  - JOUR\x0cTI  - Forged",
    "one-space": "fine\nER - \nTY - JOUR\nTI - Forged",
}
# The probe's payloads: Tab, CR, LF, full-width equals, a zero-width space before `=`.
CSV_PAYLOADS = [
    "=HYPERLINK(1)",
    "+1+1",
    "-1+1",
    "@SUM(1)",
    "\t=1+1",
    "\r=1+1",
    "\n=1+1",
    "\uff1dHYPERLINK(1)",
    "\u200b=HYPERLINK(1)",
    "\ufeff=1+1",
    " =1+1",
    "\uff0b1+1",
]


def _list(owner) -> ReadingList:
    return ReadingList.objects.get(user=owner, is_default=True)


def _ris_lines(text: str) -> list[str]:
    # Every break a lenient reader might split on.
    return re.split(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]", text)


@pytest.mark.parametrize("payload", list(RIS_FORGERIES.values()), ids=list(RIS_FORGERIES))
def test_a_ris_note_cannot_forge_a_record(payload, me, owner):
    reading_list = _list(owner)
    list_item_save(user=owner, list_id=reading_list.pk, arxiv_id="2501.00300", note=payload)

    response = me.api("get", f"/api/v1/me/lists/{reading_list.pk}/export?format=ris")

    lines = _ris_lines(response.content.decode())
    tags = [line[:2] for line in lines if re.match(r"[A-Z][A-Z0-9] {1,2}-", line)]
    assert tags.count("TY") == 1
    assert tags.count("ER") == 1
    assert tags.count("TI") == 1
    # What is stored is left as the person wrote it.
    assert ListItem.objects.get(arxiv_id="2501.00300").note == payload


@pytest.mark.parametrize("payload", CSV_PAYLOADS)
def test_csv_cells_a_spreadsheet_would_run_are_neutralised(payload, me, owner):
    reading_list = _list(owner)
    list_item_save(user=owner, list_id=reading_list.pk, arxiv_id="2501.00300", note=payload)

    response = me.api("get", f"/api/v1/me/lists/{reading_list.pk}/export?format=csv")

    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"), newline="")))
    assert rows[0]["note"].startswith("'")
    assert ListItem.objects.get(arxiv_id="2501.00300").note == payload


@pytest.mark.parametrize("payload", CSV_PAYLOADS)
def test_a_neutralised_cell_imports_back_as_written(payload):
    buffer = io.StringIO()
    csv.writer(buffer).writerows([["arxiv_id", "note"], ["2501.00300", csv_cell(payload)]])

    parsed = parse_csv(buffer.getvalue())

    assert [entry.note for _, entry in parsed.entries] == [payload.strip()]


@pytest.mark.parametrize("text", ["plain", "Müller", "'quoted", "x=1", "a-b", "李雷"])
def test_harmless_cells_are_left_alone(text):
    assert csv_cell(text) == text
