"""arXiv identifiers: every accepted form round-trips, near misses are rejected (hypothesis)."""

import re
from datetime import UTC, datetime

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from papers.arxiv_ids import (
    OLD_STYLE_ARCHIVES,
    ArxivId,
    InvalidArxivId,
    is_valid,
    parse_arxiv_id,
    split_valid_ids,
)

versions = st.none() | st.integers(min_value=1, max_value=60)


@st.composite
def new_style(draw) -> str:
    # Months up to the current one: later ones have no ids yet (and are refused).
    now = datetime.now(UTC)
    yy = draw(st.integers(min_value=7, max_value=now.year % 100))
    last = now.month if yy == now.year % 100 else 12
    mm = draw(st.integers(min_value=4 if yy == 7 else 1, max_value=last))
    yymm = f"{yy:02d}{mm:02d}"
    if yymm <= "1412":
        return f"{yymm}.{draw(st.integers(1, 9999)):04d}"
    return f"{yymm}.{draw(st.integers(1, 99999)):05d}"


@st.composite
def old_style(draw) -> tuple[str, str]:
    """(the id as written, possibly with a subject class; its canonical form)."""
    archive = draw(st.sampled_from(sorted(OLD_STYLE_ARCHIVES)))
    year = draw(st.integers(1991, 2007))
    low, high = (8 if year == 1991 else 1), (3 if year == 2007 else 12)
    month = draw(st.integers(low, high))
    number = f"{year % 100:02d}{month:02d}{draw(st.integers(1, 999)):03d}"
    subject = draw(st.none() | st.from_regex(r"[A-Z]{2}", fullmatch=True))
    written = f"{archive}.{subject}/{number}" if subject else f"{archive}/{number}"
    return written, f"{archive}/{number}"


@st.composite
def any_id(draw) -> tuple[str, ArxivId]:
    """(an id as written, optionally versioned; what it must parse to)."""
    if draw(st.booleans()):
        written = canonical = draw(new_style())
    else:
        written, canonical = draw(old_style())
    version = draw(versions)
    suffix = f"v{version}" if version else ""
    return written + suffix, ArxivId(canonical, version)


def _random_case(draw, text: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(text, flips, strict=True))


@st.composite
def wrapped(draw, written: str) -> str:
    """The id in one of the forms people and feeds use."""
    form = draw(st.sampled_from(["bare", "prefix", "url", "doi", "doi_url", "oai"]))
    if form == "bare":
        return written
    if form == "prefix":
        return _random_case(draw, "arxiv:") + draw(st.sampled_from(["", " "])) + written
    if form == "oai":
        return "oai:arXiv.org:" + written
    if form == "doi":
        return (
            draw(st.sampled_from(["", "doi:"]))
            + "10.48550/"
            + _random_case(draw, "arxiv.")
            + written
        )
    if form == "doi_url":
        return (
            draw(st.sampled_from(["https://doi.org/", "http://dx.doi.org/"]))
            + "10.48550/arXiv."
            + written
        )
    scheme = draw(st.sampled_from(["https://", "http://", ""]))
    host = draw(st.sampled_from(["arxiv.org", "www.arxiv.org", "export.arxiv.org", "ArXiv.org"]))
    kind = draw(st.sampled_from(["abs", "pdf", "html", "format"]))
    tail = ".pdf" if kind == "pdf" and draw(st.booleans()) else ""
    tail += draw(st.sampled_from(["", "/", "?context=cs", "/?fbclid=x", "#S2"]))
    return f"{scheme}{host}/{kind}/{written}{tail}"


@given(data=st.data(), case=any_id())
def test_it_round_trips_every_form(data, case):
    written, expected = case
    text = data.draw(wrapped(written))
    assert parse_arxiv_id(text) == expected
    assert parse_arxiv_id(f"  {text}\n") == expected


@given(case=any_id())
def test_it_round_trips_its_own_output(case):
    _, parsed = case
    assert parse_arxiv_id(parsed.versioned) == parsed
    assert parse_arxiv_id(parsed.canonical) == ArxivId(parsed.canonical, None)
    assert str(parsed) == parsed.versioned
    assert "v" not in parsed.canonical.rpartition("/")[2]


@given(case=any_id())
def test_it_accepts_html_pages_below_the_id(case):
    written, expected = case
    assert parse_arxiv_id(f"https://arxiv.org/html/{written}/x1.png") == expected


# --- near misses --------------------------------------------------------------------------------
@given(
    data=st.data(),
    yy=st.integers(7, 99),
    mm=st.sampled_from([0, *range(13, 100)]),
    number=st.from_regex(r"\d{4,5}", fullmatch=True),
)
def test_it_rejects_months_that_are_not_months(data, yy, mm, number):
    with pytest.raises(InvalidArxivId, match="not a month"):
        parse_arxiv_id(data.draw(wrapped(f"{yy:02d}{mm:02d}.{number}")))


@given(data=st.data(), yymm=st.sampled_from(["0704", "1007", "1412", "1501", "2501"]))
def test_it_rejects_the_wrong_number_of_digits(data, yymm):
    right = 4 if yymm <= "1412" else 5
    digits = data.draw(st.integers(1, 8).filter(lambda n: n != right))
    number = data.draw(st.from_regex(rf"[1-9]\d{{{digits - 1}}}", fullmatch=True))
    with pytest.raises(InvalidArxivId):
        parse_arxiv_id(data.draw(wrapped(f"{yymm}.{number}")))


@given(data=st.data(), written=old_style(), digits=st.sampled_from([2, 4, 5]))
def test_it_rejects_old_ids_of_the_wrong_length(data, written, digits):
    archive, number = written[1].split("/")
    wrong = number[:4] + "1" * digits
    with pytest.raises(InvalidArxivId):
        parse_arxiv_id(data.draw(wrapped(f"{archive}/{wrong}")))


@given(archive=st.from_regex(r"[a-z]{2,8}(-[a-z]{2,5})?", fullmatch=True))
def test_it_rejects_unknown_archives(archive):
    assume(archive not in OLD_STYLE_ARCHIVES)
    with pytest.raises(InvalidArxivId, match="not an arXiv archive"):
        parse_arxiv_id(f"{archive}/9901001")


@given(case=any_id(), bad_version=st.sampled_from(["v0", "v", "v01", "V2", "v-1", "v12345"]))
def test_it_rejects_bad_versions(case, bad_version):
    _, parsed = case
    with pytest.raises(InvalidArxivId):
        parse_arxiv_id(parsed.canonical + bad_version)


@given(text=st.text(max_size=80))
def test_it_rejects_text_without_an_id(text):
    assume(not re.search(r"\d{4}\.\d{4}|/\d{7}", text))
    assert not is_valid(text)
    with pytest.raises(InvalidArxivId):
        parse_arxiv_id(text)


@pytest.mark.parametrize(
    "text",
    [
        "0612.1234",  # new style begins in 0704
        "hep-th/0704001",  # old style ends in 0703
        "hep-th/9107001",  # and begins in 9108
        "2501.00000",
        "hep-th/9901000",
        "2501.00001.pdf",
        "https://example.org/abs/2501.00001",
        "https://arxiv.org/list/cs.LG/new",
        "https://arxiv.org/abs/2501.00001/extra",
        "10.1234/arXiv.2501.00001",
        "arXiv:",
        "",
        "   ",
        "2501.00001 2501.00002",
        "x" * 400,
    ],
)
def test_it_rejects_near_misses(text):
    assert not is_valid(text)


def test_it_explains_what_is_wrong():
    with pytest.raises(InvalidArxivId, match="13 is not a month"):
        parse_arxiv_id("2513.00001")
    with pytest.raises(InvalidArxivId, match="5 digits"):
        parse_arxiv_id("2501.001")
    with pytest.raises(InvalidArxivId, match="4 digits"):
        parse_arxiv_id("0704.00001")
    with pytest.raises(InvalidArxivId, match="'foo-bar' is not an arXiv archive"):
        parse_arxiv_id("foo-bar/9901001")
    with pytest.raises(InvalidArxivId, match="must be a string"):
        parse_arxiv_id(2501.00001)  # type: ignore[arg-type]


# --- the forms people paste, spelled out -------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "canonical", "version"),
    [
        ("2501.00001", "2501.00001", None),
        ("0704.0001v2", "0704.0001", 2),
        ("arXiv:2501.00001v3", "2501.00001", 3),
        ("ARXIV: hep-th/9901001", "hep-th/9901001", None),
        ("math.GT/0309136", "math/0309136", None),
        ("Math.GT/0309136v2", "math/0309136", 2),
        ("cs/0112017", "cs/0112017", None),
        ("alg-geom/9201001", "alg-geom/9201001", None),
        ("https://arxiv.org/abs/2501.00001v2", "2501.00001", 2),
        ("https://arxiv.org/pdf/2501.00001v2.pdf", "2501.00001", 2),
        ("http://export.arxiv.org/abs/hep-th/9901001", "hep-th/9901001", None),
        ("https://www.arxiv.org/pdf/math.GT/0309136v1", "math/0309136", 1),
        ("https://arxiv.org/html/2501.00001v1/#S2", "2501.00001", 1),
        ("https://arxiv.org/format/2501.00001", "2501.00001", None),
        ("arxiv.org/abs/2501.00001?context=cs.LG", "2501.00001", None),
        ("10.48550/arXiv.2501.00001", "2501.00001", None),
        ("doi:10.48550/arXiv.hep-th/9901001", "hep-th/9901001", None),
        ("https://doi.org/10.48550/arXiv.2501.00001", "2501.00001", None),
        ("oai:arXiv.org:2405.19376v1", "2405.19376", 1),
    ],
)
def test_it_reads_the_forms_people_paste(text, canonical, version):
    parsed = parse_arxiv_id(text)
    assert (parsed.canonical, parsed.version) == (canonical, version)


def test_split_valid_ids_keeps_order_and_reports_the_rest():
    good, bad = split_valid_ids(["2501.00001v2", "nope", "hep-th/9901001", "2513.00001"])
    assert [g.versioned for g in good] == ["2501.00001v2", "hep-th/9901001"]
    assert bad == ["nope", "2513.00001"]
    assert parse_arxiv_id("hep-th/9901001").is_old_style
    assert not parse_arxiv_id("2501.00001").is_old_style
