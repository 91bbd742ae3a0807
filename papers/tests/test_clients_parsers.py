"""The three parsers on the recorded arXiv responses in papers/tests/fixtures."""

from collections import Counter
from datetime import UTC, date, datetime

import pytest

from papers.clients._common import split_authors
from papers.clients.atom import parse_atom_feed
from papers.clients.errors import ArxivPermanentError, BadResumptionToken, MalformedResponse
from papers.clients.oai import parse_oai_page
from papers.clients.records import MalformedRecord, VersionInfo
from papers.clients.rss import parse_rss_feed
from tests.fake_arxiv import break_record, read_fixture

OAI_2016 = "oai/oai_2016_listrecords_arXivRaw_from_2016-10-20_reformatted.xml.gz"
OAI_2015 = "oai/oai_2015_listrecords_arXivRaw_from_2014-10-01_truncated.xml"


def _by_id(page):
    return {r.arxiv_id: r for r in page.records}


# --- OAI-PMH arXivRaw ---------------------------------------------------------------------------
def test_oai_reads_a_whole_pretty_printed_page():
    page = parse_oai_page(read_fixture(OAI_2016))
    assert len(page.records) == 387
    assert page.malformed == []
    assert page.resumption_token == "1403493|1001"
    assert page.complete_list_size == 1440
    for record in page.records:
        for text in (record.title, record.abstract, record.comments, *record.authors):
            assert "\n" not in text
            assert "  " not in text
            assert text == text.strip()
        assert record.source == "oai:arXivRaw"
        assert record.datestamp in (date(2016, 10, 20), date(2016, 10, 21))
        assert record.versions[-1].version == record.version
        assert record.submitted == record.versions[0].submitted
        assert record.updated == record.versions[-1].submitted
        assert record.categories[0] == record.primary_category


def test_oai_keeps_the_version_history_and_spots_withdrawals():
    records = _by_id(parse_oai_page(read_fixture(OAI_2016)))
    tsp = records["0803.4354"]
    assert tsp.version == 6
    assert [v.version for v in tsp.versions] == [1, 2, 3, 4, 5, 6]
    assert tsp.versions[0] == VersionInfo(1, datetime(2008, 3, 30, 23, 26, 50, tzinfo=UTC), "69kb")
    assert (
        tsp.title == "A O(n^8) X O(n^7) Linear Programming Model of the Traveling Salesman Problem"
    )
    withdrawn = {r.arxiv_id for r in records.values() if r.withdrawn}
    assert withdrawn == {
        "0803.4354", "0808.3386", "1502.02762", "1505.00300", "1603.06854", "1605.00928",
    }  # fmt: skip
    assert records["1603.06854"].comments.startswith("This paper has been withdrawn by the author")
    assert records["1606.07946"].journal_ref == "J. Number Theory 172 (2017) 1-20"


def test_oai_reads_numbered_affiliations_and_tex_accents():
    record = _by_id(parse_oai_page(read_fixture(OAI_2016)))["1408.0799"]
    assert record.authors == (
        "Maciej Bilicki", "John A. Peacock", "Thomas H. Jarrett", "Michelle E. Cluver",
        "Louise Steward",
    )  # fmt: skip
    assert record.affiliations[0] == "University of Cape Town; University of Zielona Góra"
    assert record.affiliations[1] == "University of Edinburgh"


def test_oai_reads_a_compact_page_with_its_token():
    page = parse_oai_page(read_fixture(OAI_2015))
    assert [r.arxiv_id for r in page.records] == [
        "0704.0471", "0704.0716", "0704.0874", "0704.1109", "0704.1114", "0704.1586",
    ]  # fmt: skip
    assert (page.resumption_token, page.complete_list_size) == ("726959|1001", 58011)
    first = page.records[0]
    assert first.doi == "10.1103/PhysRevC.76.024606 10.1103/PhysRevC.76.039902"  # as arXiv gives it
    assert first.categories == ("nucl-ex", "nucl-th")
    assert first.datestamp == date(2014, 11, 18)


def test_oai_get_record_arxivraw():
    (record,) = parse_oai_page(
        read_fixture("oai/oai_2015_getrecord_arXivRaw_1302.2146.xml")
    ).records
    assert record.arxiv_id == "1302.2146"
    assert record.version == 2
    assert record.authors == (
        "Joshua Berger",
        "Maxim Perelstein",
        "Michael Saelim",
        "Philip Tanedo",
    )
    assert record.affiliations == ()
    assert (record.primary_category, record.categories) == ("hep-ph", ("hep-ph", "hep-ex"))
    assert record.versions == (
        VersionInfo(1, datetime(2013, 2, 8, 21, 0, 1, tzinfo=UTC), "853kb"),
        VersionInfo(2, datetime(2013, 4, 2, 1, 50, 8, tzinfo=UTC), "849kb"),
    )
    assert record.comments == "18 pages, 6 figures; v2: References added"
    assert record.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert record.abstract.startswith("The lack of observation of superpartners")
    assert record.datestamp == date(2013, 4, 3)
    assert not record.withdrawn


def test_oai_arxiv_format_has_structured_authors_and_no_version_number():
    (record,) = parse_oai_page(read_fixture("oai/oai_2018_getrecord_arXiv_1412.8544.xml")).records
    assert record.authors == ("Sander Uijlen", "Bas Westerbaan")
    assert record.affiliations == ("Radboud Universiteit", "Radboud Universiteit")
    assert record.submitted == datetime(2014, 12, 29, tzinfo=UTC)
    assert record.version == 1  # no <updated>: never revised
    assert (record.doi, record.journal_ref) == (
        "10.4204/EPTCS.172.11",
        "EPTCS 172, 2014, pp. 154-164",
    )
    assert record.source == "oai:arXiv"
    page = parse_oai_page(read_fixture("oai/oai_2018_listrecords_arXiv_2015-01-01_2015-01-03.xml"))
    assert [r.arxiv_id for r in page.records] == ["1412.8544", "hep-th/9504118"]


def test_oai_arxiv_format_with_an_update_has_an_unstated_version():
    body = read_fixture("oai/oai_2018_getrecord_arXiv_1412.8544.xml").replace(
        b"<created>2014-12-29</created>",
        b"<created>2014-12-29</created><updated>2015-02-01</updated>",
    )
    (record,) = parse_oai_page(body).records
    assert record.version == 0
    assert record.updated == datetime(2015, 2, 1, tzinfo=UTC)


def test_oai_pages_split_from_one_real_page_add_up():
    first = parse_oai_page(read_fixture("oai/derived_oai_2016_listrecords_page1of2.xml.gz"))
    last = parse_oai_page(read_fixture("oai/derived_oai_2016_listrecords_page2of2.xml.gz"))
    assert (len(first.records), first.resumption_token) == (200, "1403493|201")
    assert (len(last.records), last.resumption_token, last.complete_list_size) == (187, None, 387)
    whole = parse_oai_page(read_fixture(OAI_2016))
    assert first.records + last.records == whole.records


@pytest.mark.parametrize(
    ("name", "error", "code"),
    [
        ("badResumptionToken", BadResumptionToken, "badResumptionToken"),
        ("badArgument", ArxivPermanentError, "badArgument"),
        ("badVerb", ArxivPermanentError, "badVerb"),
        ("idDoesNotExist", ArxivPermanentError, "idDoesNotExist"),
    ],
)
def test_oai_errors_are_permanent(name, error, code):
    with pytest.raises(error) as caught:
        parse_oai_page(read_fixture(f"oai/oai_2015_error_{name}.xml"))
    assert caught.value.code == code


def test_oai_no_records_match_is_an_empty_page():
    page = parse_oai_page(read_fixture("oai/oai_2015_error_noRecordsMatch.xml"))
    assert (page.records, page.malformed, page.resumption_token) == ([], [], None)


def test_oai_a_record_with_broken_xml_costs_only_that_record():
    page = parse_oai_page(break_record(read_fixture(OAI_2015), index=2))
    assert [r.arxiv_id for r in page.records] == [
        "0704.0471", "0704.0716", "0704.1109", "0704.1114", "0704.1586",
    ]  # fmt: skip
    assert [m.identifier for m in page.malformed] == ["0704.0874"]
    assert "broken XML" in page.malformed[0].reason
    assert page.resumption_token == "726959|1001"  # the harvest can go on


def test_oai_a_record_without_a_title_is_malformed_and_the_rest_kept():
    body = read_fixture(OAI_2015)
    title = b"<title>Limit distributions"
    assert title in body
    start = body.index(title)
    body = body[:start] + body[body.index(b"</title>", start) + len(b"</title>") :]
    page = parse_oai_page(body)
    assert len(page.records) == 5
    assert len(page.malformed) == 1
    assert page.malformed[0] == MalformedRecord("0704.0716", "no title")


def test_oai_deleted_records_are_skipped_not_malformed():
    body = read_fixture(OAI_2015).replace(b"<header>", b'<header status="deleted">', 1)
    page = parse_oai_page(body)
    assert (len(page.records), page.malformed) == (5, [])


def test_oai_a_body_cut_short_or_not_oai_is_a_malformed_response():
    body = read_fixture(OAI_2015)
    with pytest.raises(MalformedResponse):
        parse_oai_page(body[: len(body) // 2])
    with pytest.raises(MalformedResponse):
        parse_oai_page(b"<html><body><h1>Retry after 10 seconds</h1></body></html>")
    with pytest.raises(MalformedResponse):
        parse_oai_page(read_fixture("atom/api_2016_idlist_1111.2011v2.xml"))


# --- RSS 2.0 (rss.arxiv.org) --------------------------------------------------------------------
def test_rss_reads_a_daily_feed():
    page = parse_rss_feed(read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz"))
    assert page.announced == date(2024, 5, 31)  # the channel pubDate, not the capture date
    assert len(page.records) == 285
    assert page.malformed == []
    assert Counter(r.announce_type for r in page.records) == {
        "cross": 96, "new": 85, "replace": 64, "replace-cross": 40,
    }  # fmt: skip
    first = page.records[0]
    assert (first.arxiv_id, first.version) == ("2405.19376", 1)
    assert first.title.startswith("PureEBM: Universal Poison Purification")
    assert first.abstract.startswith("Data poisoning attacks pose a significant threat")
    assert first.authors == ("Omead Pooladzandi", "Jeffrey Jiang", "Sunay Bhat", "Gregory Pottie")
    assert first.categories == ("cs.LG", "cs.AI")
    assert first.license == "http://creativecommons.org/licenses/by-nc-nd/4.0/"
    assert (first.announced, first.source, first.versions, first.submitted) == (
        date(2024, 5, 31), "rss", (), None,
    )  # fmt: skip
    for record in page.records:
        home = record.announce_type in ("new", "replace")
        assert (record.primary_category == "cs.LG") == home
        assert record.version >= 1
        assert record.abstract
        assert record.authors


def test_rss_versions_come_from_the_guid():
    page = parse_rss_feed(read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz"))
    replaced = [r for r in page.records if r.announce_type == "replace"]
    assert all(r.version >= 2 for r in replaced)


def test_rss_splits_authors_with_affiliations():
    records = _by_id(parse_rss_feed(read_fixture("rss/luvata_2024-06-01-cs-lg.xml.gz")))
    record = records["2405.19466"]
    assert record.authors[0] == "Kelly W Zhang"
    assert record.affiliations[0] == "Tianhui"
    assert len(record.affiliations) == len(record.authors)


@pytest.mark.parametrize(
    ("name", "items", "announced"),
    [
        ("rss/luvata_2024-06-01-cs-ai.xml.gz", 245, date(2024, 5, 31)),
        ("rss/luvata_2024-06-01-cs-cl.xml.gz", 149, date(2024, 5, 31)),
        ("rss/luvata_2024-06-01-cs-cv.xml.gz", 203, date(2024, 5, 31)),
        ("rss/2025-01-07-cs-lg.xml.gz", 142, date(2025, 1, 6)),
        ("rss/2025-01-21-cs-lg.xml.gz", 142, date(2025, 1, 20)),
        ("rss/2025-01-22-cs-lg.xml.gz", 0, date(2025, 1, 21)),  # a holiday: no announcement
        ("rss/luvata_2024-06-03-cs-lg.xml", 0, date(2024, 6, 2)),
        ("rss/rss_2025-12-31_physics_empty.xml", 0, date(2025, 12, 31)),
    ],
)
def test_rss_feed_counts(name, items, announced):
    page = parse_rss_feed(read_fixture(name))
    assert (len(page.records), page.announced, page.malformed) == (items, announced, [])


def test_rss_the_same_paper_is_in_several_feeds():
    ids = [
        {
            r.arxiv_id
            for r in parse_rss_feed(read_fixture(f"rss/luvata_2024-06-01-{c}.xml.gz")).records
        }
        for c in ("cs-lg", "cs-ai")
    ]
    assert len(ids[0] & ids[1]) > 20


def test_rss_a_broken_item_costs_only_that_item():
    body = break_record(read_fixture("rss/2025-01-07-cs-lg.xml.gz"), index=5)
    page = parse_rss_feed(body)
    assert len(page.records) == 141
    assert len(page.malformed) == 1
    assert page.malformed[0].identifier
    assert page.announced == date(2025, 1, 6)


# --- RSS 1.0 / RDF (export.arxiv.org/rss, before 2024) ------------------------------------------
def test_rdf_reads_the_old_format():
    page = parse_rss_feed(read_fixture("rss/luvata_2023-07-06-cs-lg.xml.gz"))
    # dc:date is the evening of the mailing (2023-07-05 20:30); arXiv labels it the next day.
    assert page.announced == date(2023, 7, 6)
    assert len(page.records) == 206
    assert Counter(r.announce_type for r in page.records) == {
        "replace": 60, "cross": 55, "new": 46, "replace-cross": 45,
    }  # fmt: skip
    first, second = page.records[:2]
    assert first.title == (
        "Predictive Patentomics: Forecasting Innovation Success and Valuation with ChatGPT"
    )
    assert (first.arxiv_id, first.version, first.primary_category) == ("2307.01202", 1, "cs.LG")
    assert first.abstract.startswith("Analysis of innovation has been fundamentally limited")
    assert "<p>" not in first.abstract
    assert "&apos;" not in first.abstract
    assert first.authors == ("Stephen Yang",)
    assert second.authors[:2] == ("Zicheng Zhao", "Linhao Luo")
    assert (second.primary_category, second.announce_type) == ("cs.AI", "cross")
    updated = _by_id(page)["1705.03387"]
    assert (updated.version, updated.announce_type) == (3, "replace")
    assert _by_id(page)["2211.09325"].announce_type == "cross"  # CROSS LISTED
    assert all(r.source == "rss:rdf" for r in page.records)


def test_rdf_empty_feed():
    page = parse_rss_feed(read_fixture("rss/luvata_2023-07-05-cs-lg.xml"))
    assert (page.records, page.announced) == ([], date(2023, 7, 5))


def test_rss_rejects_what_is_not_a_feed():
    with pytest.raises(MalformedResponse):
        parse_rss_feed(b"<html><body>Service unavailable</body></html>")
    with pytest.raises(MalformedResponse):
        parse_rss_feed(read_fixture("rss/2025-01-07-cs-lg.xml.gz")[:5000])


# --- Atom (query API) ---------------------------------------------------------------------------
def test_atom_2016_id_list():
    page = parse_atom_feed(read_fixture("atom/api_2016_idlist_1111.2011v2.xml"))
    (record,) = page.records
    assert (record.arxiv_id, record.version) == ("1111.2011", 2)
    assert record.title == (
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    )
    assert record.authors == ("James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic")
    assert record.categories == ("cond-mat.str-el", "cond-mat.stat-mech")
    assert record.doi == "10.1103/PhysRevB.85.115117"
    assert record.journal_ref == "Phys. Rev. B 85, 115117 (2012)"
    assert record.comments == "8 pages, 3 figures. Published version"
    assert record.submitted == datetime(2011, 11, 8, 18, 48, 36, tzinfo=UTC)
    assert record.updated == datetime(2012, 4, 2, 12, 38, 54, tzinfo=UTC)
    assert [v.version for v in record.versions] == [1, 2]
    assert page.complete_list_size == 1


@pytest.mark.parametrize(
    ("name", "entries", "total"),
    [
        ("api_2016_search_au_del_maestro.xml", 10, 31),
        ("api_2016_search_au_del_maestro_ANDNOT_checkerboard_or_pyrochlore.xml", 10, 24),
        ("api_2016_search_au_del_maestro_AND_ti_checkerboard.xml", 1, 1),
        ("api_2016_search_au_del_maestro_AND_ti_quantum_criticality.xml", 2, 2),
        ("api_2026_id_0000.0000_s0_m100.xml", 0, 0),
        ("api_2026_id_0808.05394_s0_m100.xml", 0, 0),
        ("api_2026_id_0808.05394_1707.08567_s0_m100.xml", 1, 1),
        ("api_2026_id_1605.08386_s0_m100.xml", 1, 1),
        ("api_2026_id_2104.12255v1_s0_m100.xml", 1, 1),
        ("api_2026_q_testing_s0_m10.xml", 10, 214881),
        ("api_2026_q_testing_s10_m10.xml", 10, 214881),
        ("api_2026_q_testing_s0_m100.xml.gz", 100, 214881),
    ],
)
def test_atom_counts(name, entries, total):
    page = parse_atom_feed(read_fixture(f"atom/{name}"))
    assert (len(page.records), page.complete_list_size, page.malformed) == (entries, total, [])
    for record in page.records:
        assert record.source == "atom"
        assert record.version >= 1
        assert record.primary_category == record.categories[0]


def test_atom_old_style_ids_and_affiliations():
    (old,) = parse_atom_feed(
        read_fixture("atom/api_2026_id_quant-ph_0201082v1_s0_m100.xml")
    ).records
    assert (old.arxiv_id, old.version) == ("quant-ph/0201082", 1)
    assert old.categories == ("quant-ph", "cs.PL")
    (astro,) = parse_atom_feed(
        read_fixture("atom/api_2026_id_astro-ph_0601001_s0_m100.xml")
    ).records
    assert astro.arxiv_id == "astro-ph/0601001"
    records = _by_id(parse_atom_feed(read_fixture("atom/api_2026_q_testing_s0_m100.xml.gz")))
    assert records["0804.0970"].affiliations == ("LRI", "IBISC")


def test_atom_error_feed_is_permanent():
    with pytest.raises(ArxivPermanentError, match="incorrect id format for abc") as caught:
        parse_atom_feed(read_fixture("atom/api_2026_id_abc_s0_m100.xml"))
    assert caught.value.code == "incorrect_id_format_for_abc"


def test_atom_a_broken_entry_costs_only_that_entry():
    page = parse_atom_feed(break_record(read_fixture("atom/api_2026_q_testing_s0_m10.xml"), 3))
    assert (len(page.records), len(page.malformed)) == (9, 1)
    assert page.complete_list_size == 214881


def test_atom_rejects_what_is_not_a_feed():
    with pytest.raises(MalformedResponse):
        parse_atom_feed(read_fixture("oai/oai_2015_getrecord_arXivRaw_1302.2146.xml"))


# --- author strings -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "names", "affiliations"),
    [
        ("A. B, C. D and E. F", ("A. B", "C. D", "E. F"), ()),
        ("A. B, C. D, and E. F", ("A. B", "C. D", "E. F"), ()),
        ("A. B\n   and C. D", ("A. B", "C. D"), ()),
        ("John Smith, Jr., Jane Doe", ("John Smith Jr.", "Jane Doe"), ()),
        ("G. Aad et al", ("G. Aad",), ()),
        ("A (MIT, CSAIL), B", ("A", "B"), ("MIT, CSAIL", "")),
        ("A (1), B (1 and 2) ((1) MIT, (2) ETH Zurich)", ("A", "B"), ("MIT", "MIT; ETH Zurich")),
        (
            r"Paul Erd\H{o}s and Kurt G\"odel and S{\o}ren",
            ("Paul Erdős", "Kurt Gödel", "Søren"),
            (),
        ),
        ("", (), ()),
    ],
)
def test_author_strings(raw, names, affiliations):
    assert split_authors(raw) == (names, affiliations)
