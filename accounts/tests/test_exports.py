"""Exports that LaTeX and reference managers accept: BibTeX parsed with bibtexparser v2,
CSL-JSON validated against the CSL schema, RIS and CSV; TeX titles and non-ASCII names survive."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime
from pathlib import Path

import bibtexparser
import jsonschema
import pytest

from accounts.models import ReadingList
from accounts.services.citations import split_name
from accounts.services.lists import list_item_save
from papers.tests.factories import paper_create

pytestmark = pytest.mark.django_db

CSL_SCHEMA = json.loads((Path(__file__).parent / "data" / "csl-data.json").read_text())
TEX_TITLE = r"On $\alpha$-divergences and {Q}-learning: a \emph{fresh} look at $O(\sqrt{n})$ regret"
AUTHORS = [
    "Jürgen Müller",
    "Zoë Ångström-Łukasiewicz",
    "Jan van der Berg Jr.",
    "Søren Kierkegaard",
    "李雷",
]
NOTE = "Compare with §4 {braces}, 100% of 50_000 & #tags ~ $x^2$ \\cite{x}\nsecond line"


@pytest.fixture
def filled(owner) -> ReadingList:
    reading_list = ReadingList.objects.get(user=owner, is_default=True)
    paper_create(
        "2501.01234",
        title=TEX_TITLE,
        authors=AUTHORS,
        primary_category="cs.LG",
        abstract="We revisit $f$-divergences.",
        announced=date(2025, 1, 6),
        submitted=datetime(2025, 1, 3, 12, tzinfo=UTC),
    )
    paper_create(
        "hep-th/9901001", title="Old but gold", authors=["Edward Witten"], primary_category="hep-th"
    )
    for arxiv_id, note in (
        ("2501.01234", NOTE),
        ("hep-th/9901001", ""),
        ("2502.00007", "not fetched yet"),
    ):
        list_item_save(user=owner, list_id=reading_list.pk, arxiv_id=arxiv_id, note=note)
    return reading_list


def _export(me, reading_list, fmt):
    response = me.api("get", f"/api/v1/me/lists/{reading_list.pk}/export?format={fmt}")
    assert response.status_code == 200, response.content
    return response


def test_bibtex_parses_and_keeps_tex_titles_names_ids_and_notes(me, filled):
    response = _export(me, filled, "bibtex")
    assert response["Content-Type"] == "application/x-bibtex; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="reading-list.bib"'

    library = bibtexparser.parse_string(response.content.decode())

    assert library.failed_blocks == []
    entries = {e.fields_dict["eprint"].value: e for e in library.entries}
    assert list(entries) == ["2501.01234", "hep-th/9901001", "2502.00007"]
    entry = entries["2501.01234"]
    fields = {name: field.value for name, field in entry.fields_dict.items()}
    assert entry.entry_type == "misc"
    assert fields["title"] == TEX_TITLE
    assert fields["author"].split(" and ") == [
        "Jürgen Müller",
        "Zoë Ångström-Łukasiewicz",
        "van der Berg, Jr., Jan",
        "Søren Kierkegaard",
        "李雷",
    ]
    assert fields["archivePrefix"] == "arXiv"
    assert fields["primaryClass"] == "cs.LG"
    assert fields["doi"] == "10.48550/arXiv.2501.01234"
    assert fields["url"] == "https://arxiv.org/abs/2501.01234"
    assert fields["year"] == "2025"
    assert "\\textbraceleft{}braces\\textbraceright{}" in fields["note"]
    assert entry.key == "muller2025divergences"
    old = {name: field.value for name, field in entries["hep-th/9901001"].fields_dict.items()}
    assert old["primaryClass"] == "hep-th"
    assert old["doi"] == "10.48550/arXiv.hep-th/9901001"
    assert "note" not in old
    pending = {name: field.value for name, field in entries["2502.00007"].fields_dict.items()}
    assert pending["title"] == "arXiv:2502.00007"
    assert pending["year"] == "2025"
    assert len({e.key for e in library.entries}) == 3


def test_bibtex_keys_stay_unique(me, owner):
    reading_list = ReadingList.objects.get(user=owner, is_default=True)
    for n in range(3):
        paper_create(f"2501.0010{n}", title="Attention everywhere", authors=["Ada Lovelace"])
        list_item_save(user=owner, list_id=reading_list.pk, arxiv_id=f"2501.0010{n}")
    library = bibtexparser.parse_string(_export(me, reading_list, "bibtex").content.decode())
    assert [e.key for e in library.entries] == [
        "lovelace2025attention", "lovelace2025attentiona", "lovelace2025attentionb",
    ]  # fmt: skip


def test_bibtex_neutralises_bare_specials_and_unbalanced_braces(me, owner):
    reading_list = ReadingList.objects.get(user=owner, is_default=True)
    paper_create("2501.00200", title="Q&A at 100% with #hashtags and a stray } brace")
    list_item_save(user=owner, list_id=reading_list.pk, arxiv_id="2501.00200")
    text = _export(me, reading_list, "bibtex").content.decode()
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    title = library.entries[0].fields_dict["title"].value
    assert title.startswith(r"Q\&A at 100\% with \#hashtags")


def test_csl_json_validates_against_the_csl_schema(me, filled):
    response = _export(me, filled, "csl-json")
    assert response["Content-Type"] == "application/vnd.citationstyles.csl+json; charset=utf-8"
    items = json.loads(response.content)

    jsonschema.validate(items, CSL_SCHEMA)

    first = items[0]
    assert first["id"] == "arXiv:2501.01234"
    assert first["type"] == "article"
    assert first["title"] == TEX_TITLE
    assert first["author"][0] == {"family": "Müller", "given": "Jürgen"}
    assert first["author"][1] == {"family": "Ångström-Łukasiewicz", "given": "Zoë"}
    assert first["author"][2] == {"family": "van der Berg", "given": "Jan", "suffix": "Jr."}
    assert first["author"][4] == {"literal": "李雷"}
    assert first["issued"] == {"date-parts": [[2025, 1, 3]]}
    assert first["DOI"] == "10.48550/arXiv.2501.01234"
    assert first["URL"] == "https://arxiv.org/abs/2501.01234"
    assert first["number"] == "arXiv:2501.01234"
    assert first["archive"] == "arXiv"
    assert first["note"] == NOTE
    assert "note" not in items[1]
    assert items[2]["author"] == []
    assert items[2]["issued"] == {"date-parts": [[2025, 2]]}


def test_ris_has_one_record_per_paper_with_ids_and_note(me, filled):
    response = _export(me, filled, "ris")
    text = response.content.decode()
    records = [r for r in text.split("ER  - ") if r.strip()]
    assert len(records) == 3
    first = records[0].strip().splitlines()
    assert first[0] == "TY  - UNPB"
    assert f"TI  - {TEX_TITLE}" in first
    assert "AU  - Müller, Jürgen" in first
    assert "AU  - van der Berg, Jan, Jr." in first
    assert "DO  - 10.48550/arXiv.2501.01234" in first
    assert "UR  - https://arxiv.org/abs/2501.01234" in first
    assert "PY  - 2025" in first
    assert "DA  - 2025/01/03" in first
    assert any(line.startswith("N1  - Compare with §4") for line in first)
    assert all(line[:2].isupper() or line.startswith(("second", " ")) for line in first if line)


def test_csv_reads_back_with_every_column(me, filled):
    response = _export(me, filled, "csv")
    assert response["Content-Disposition"] == 'attachment; filename="reading-list.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [r["arxiv_id"] for r in rows] == ["2501.01234", "hep-th/9901001", "2502.00007"]
    assert rows[0]["title"] == TEX_TITLE
    assert rows[0]["authors"].split("; ")[0] == "Jürgen Müller"
    assert rows[0]["note"] == NOTE
    assert rows[0]["doi"] == "10.48550/arXiv.2501.01234"
    assert rows[0]["read_state"] == "unread"


def test_csv_cells_that_look_like_formulas_are_kept_as_text(me, owner):
    reading_list = ReadingList.objects.get(user=owner, is_default=True)
    list_item_save(user=owner, list_id=reading_list.pk, arxiv_id="2501.00300", note="=HYPERLINK(1)")
    rows = list(
        csv.DictReader(io.StringIO(_export(me, reading_list, "csv").content.decode("utf-8-sig")))
    )
    assert rows[0]["note"] == "'=HYPERLINK(1)"


@pytest.mark.parametrize("alias", ["bib", "BibTeX", "csl", "json"])
def test_format_names_have_forgiving_aliases(alias, me, filled):
    assert _export(me, filled, alias).status_code == 200


@pytest.mark.parametrize(
    ("name", "family", "given"),
    [
        ("Ada Lovelace", "Lovelace", "Ada"),
        ("Ludwig van Beethoven", "van Beethoven", "Ludwig"),
        ("Lovelace, Ada", "Lovelace", "Ada"),
        ("Plato", "Plato", ""),
        ("J. R. R. Tolkien", "Tolkien", "J. R. R."),
    ],
)
def test_names_split_into_family_and_given(name, family, given):
    parts = split_name(name)
    assert (parts.family, parts.given) == (family, given)


def test_the_page_export_link_downloads_the_same_file(owner, filled):
    from accounts.tests.conftest import as_session

    caller = as_session(owner)
    page = caller.client.get(f"/lists/{filled.pk}/export/?format=bibtex")
    api = caller.client.get(f"/api/v1/me/lists/{filled.pk}/export?format=bibtex")
    assert page.status_code == 200
    assert page.content == api.content
