"""Imports: BibTeX, plain lists of ids or URLs, our CSV and Zotero's. A bad line is reported with
its number and the rest is imported; unknown ids are queued for an on-demand fetch."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import ListItem, ReadingList
from accounts.services.imports import MAX_IMPORT_ENTRIES, detect_format
from accounts.services.lists import list_item_save, list_item_update
from papers.tests.factories import paper_create

pytestmark = pytest.mark.django_db


def _default(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk


def _items(list_id):
    return list(
        ListItem.objects.filter(reading_list_id=list_id)
        .order_by("position")
        .values_list("arxiv_id", "note")
    )


BIBTEX = r"""% exported from somewhere
@misc{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Ashish Vaswani and Noam Shazeer},
  year = {2017},
  eprint = {1706.03762v7},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL},
  note = {the transformer paper, 100\% worth it}
}

@article{scholar,
  title={Deep residual learning},
  journal={arXiv preprint arXiv:1512.03385},
  year={2015}
}

@article{dblp,
  title = {Adam},
  volume = {abs/1412.6980},
  eprinttype = {arXiv},
  journal = {CoRR}
}

@book{knuth,
  title = {The Art of Computer Programming},
  year = {1968}
}

@misc{doi_only, doi = {10.48550/arXiv.2501.01234}, note = {arXiv:2501.01234 [cs]}}

@misc{broken,
  title = {Unclosed
"""


def test_bibtex_import_finds_ids_everywhere_and_reports_bad_entries_by_line(me, pending):
    list_id = _default(me.user)
    response = me.api(
        "post", f"/api/v1/me/lists/{list_id}/import", {"format": "bibtex", "content": BIBTEX}
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["format"] == "bibtex"
    assert body["imported"] == ["1706.03762", "1512.03385", "1412.6980", "2501.01234"]
    assert pending == body["pending"] == body["imported"]
    assert [(e["line"], e["detail"][:40]) for e in body["errors"]] == [
        (25, "@book{knuth} has no arXiv id"),
        (32, "this entry could not be read (unbalanced"),
    ]
    assert _items(list_id) == [
        ("1706.03762", "the transformer paper, 100% worth it"),
        ("1512.03385", ""),
        ("1412.6980", ""),
        ("2501.01234", ""),  # Zotero's "arXiv:<id> [cs]" note is not a note
    ]


def test_a_plain_list_of_ids_and_urls_with_a_bad_line(me):
    content = "\n".join(
        [
            "# my papers",
            "2501.00001",
            "https://arxiv.org/abs/2501.00002v2",
            "not an id",
            "",
            "arXiv:hep-th/9901001, https://arxiv.org/pdf/2501.00003.pdf",
            "2501.00001",
        ]
    )
    body = me.api(
        "post", f"/api/v1/me/lists/{_default(me.user)}/import", {"content": content}
    ).json()
    assert body["format"] == "ids"
    assert body["imported"] == ["2501.00001", "2501.00002", "hep-th/9901001", "2501.00003"]
    assert body["errors"] == [
        {"line": 4, "detail": "'not an id' is not an arXiv id or arxiv.org URL"}
    ]


def test_a_line_with_good_and_bad_ids_keeps_the_good_ones(me):
    body = me.api(
        "post", f"/api/v1/me/lists/{_default(me.user)}/import", {"content": "2501.00001 1234"}
    ).json()
    assert body["imported"] == ["2501.00001"]
    assert body["errors"] == [{"line": 1, "detail": "'1234' is not an arXiv id or arxiv.org URL"}]


ZOTERO_CSV = (
    '\ufeff"Key","Item Type","Publication Year","Author","Title","Publication Title","ISBN",'
    '"ISSN","DOI","Url","Abstract Note","Date","Date Added","Date Modified","Access Date",'
    '"Pages","Num Pages","Issue","Volume","Number Of Volumes","Journal Abbreviation",'
    '"Short Title","Series","Series Number","Series Text","Series Title","Publisher","Place",'
    '"Language","Rights","Type","Archive","Archive Location","Library Catalog","Call Number",'
    '"Extra","Notes","File Attachments","Link Attachments","Manual Tags","Automatic Tags",'
    '"Editor","Number"\n'
    '"ABCD1234","preprint","2017","Vaswani, Ashish","Attention Is All You Need","","","",'
    '"10.48550/arXiv.1706.03762","http://arxiv.org/abs/1706.03762","","2017-06-12","","","",'
    '"","","","","","","","","","","","arXiv","","","","","","","arXiv.org","",'
    '"arXiv:1706.03762 [cs]","<p>Read <b>section 3</b> &amp; the appendix</p>","","","","",'
    '"","arXiv:1706.03762"\n'
    '"EFGH5678","journalArticle","2016","He, Kaiming","A journal paper","Nature","","",'
    '"10.1038/nature12345","https://www.nature.com/articles/x","","","","","","","","","",'
    '"","","","","","","","","","","","","","","","","","","","","","","",""\n'
    '"IJKL9012","preprint","2015","Kingma, Diederik","Adam","","","","",'
    '"https://arxiv.org/abs/1412.6980","a multi\nline abstract","","","","","","","","","",'
    '"","","","","","","","","","","","","","","","","","","","","","",""\n'
)


def test_a_zotero_csv_export(me):
    body = me.api(
        "post",
        f"/api/v1/me/lists/{_default(me.user)}/import",
        {"format": "csv", "content": ZOTERO_CSV},
    ).json()
    assert body["imported"] == ["1706.03762", "1412.6980"]
    assert body["errors"] == [{"line": 3, "detail": "no arXiv id in this row ('A journal paper')"}]
    assert _items(_default(me.user))[0] == ("1706.03762", "Read section 3 & the appendix")


def test_detect_format():
    assert detect_format(BIBTEX) == "bibtex"
    assert detect_format(ZOTERO_CSV) == "csv"
    assert detect_format("2501.00001\n2501.00002") == "ids"


@pytest.mark.parametrize("fmt", ["bibtex", "csv"])
def test_an_export_imported_into_a_new_list_gives_the_same_list(fmt, me, pending):
    source = _default(me.user)
    paper_create("2501.01234", title=r"On $\alpha$-divergences", authors=["Jürgen Müller"])
    notes = {
        "2501.01234": "Compare with §4 {braces}, 100% of 50_000 & #tags ~ $x^2$ \\cite{x}",
        "hep-th/9901001": "",
        "2502.00007": "=a note that looks like a formula\non two lines",
    }
    for arxiv_id, note in notes.items():
        list_item_save(user=me.user, list_id=source, arxiv_id=arxiv_id, note=note)
    list_item_update(user=me.user, list_id=source, arxiv_id="2502.00007", position=0)
    exported = me.api("get", f"/api/v1/me/lists/{source}/export?format={fmt}").content.decode(
        "utf-8"
    )

    target = me.api("post", "/api/v1/me/lists", {"name": "Imported"}).json()["id"]
    response = me.api("post", f"/api/v1/me/lists/{target}/import", {"content": exported})

    assert response.status_code == 201
    assert response.json()["errors"] == []
    assert _items(target) == _items(source)


def test_importing_keeps_notes_already_in_the_list(me):
    list_id = _default(me.user)
    list_item_save(user=me.user, list_id=list_id, arxiv_id="1706.03762", note="mine")
    body = me.api("post", f"/api/v1/me/lists/{list_id}/import", {"content": BIBTEX}).json()
    assert "1706.03762" in body["already"]
    assert ListItem.objects.get(arxiv_id="1706.03762").note == "mine"


def test_a_file_upload_and_a_plain_text_body(me):
    list_id = _default(me.user)
    upload = SimpleUploadedFile("refs.bib", BIBTEX.encode(), content_type="application/x-bibtex")
    response = me.client.post(
        f"/api/v1/me/lists/{list_id}/import", {"file": upload, "format": "auto"}
    )
    assert response.status_code == 201, response.content
    assert len(response.json()["imported"]) == 4

    response = me.client.post(
        f"/api/v1/me/lists/{list_id}/import?format=ids", "2501.00042\n", content_type="text/plain"
    )
    assert response.status_code == 201
    assert response.json()["imported"] == ["2501.00042"]


def test_an_import_too_large_is_refused_whole(me):
    content = "\n".join(f"2501.{n:05d}" for n in range(1, MAX_IMPORT_ENTRIES + 2))
    response = me.api("post", f"/api/v1/me/lists/{_default(me.user)}/import", {"content": content})
    assert response.status_code == 400
    assert response.json()["code"] == "too_many_entries"
    assert ListItem.objects.count() == 0


def test_a_note_too_long_is_reported_and_its_paper_skipped(me):
    content = (
        "@misc{a, eprint={2501.00001}, note={" + "x" * 6000 + "}}\n@misc{b, eprint={2501.00002}}"
    )
    body = me.api(
        "post", f"/api/v1/me/lists/{_default(me.user)}/import", {"content": content}
    ).json()
    assert body["imported"] == ["2501.00002"]
    assert body["errors"][0]["line"] == 1
    assert "6000 characters" in body["errors"][0]["detail"]
