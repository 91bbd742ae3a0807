"""Splitting paper text into sentences, sections and passages."""

from __future__ import annotations

from pathlib import Path

from ask.text import Section, chunk_sections, sections_from_html, sections_from_pdf, sentences

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_it_splits_sentences_but_not_at_abbreviations_or_decimals():
    text = (
        "We study credit assignment, e.g. in LLM agents with many turns. Accuracy rises by "
        "3.5 points over GRPO (Shao et al. 2024) in our runs. Code is released."
    )
    assert sentences(text) == [
        "We study credit assignment, e.g. in LLM agents with many turns.",
        "Accuracy rises by 3.5 points over GRPO (Shao et al. 2024) in our runs. Code is released.",
    ]


def test_it_reads_sections_of_a_latexml_page_without_citations_or_references():
    sections = sections_from_html((FIXTURES / "html_2505.11821.html").read_bytes())
    titles = [s.title for s in sections]
    assert titles[0] == "1 Introduction"
    assert "3 Turn-Level Advantage Estimation" in titles
    assert not any("References" in t for t in titles)
    text = " ".join(p for s in sections for p in s.paragraphs)
    assert "[1]" not in text  # <cite> dropped
    assert "A cited paper" not in text  # bibliography dropped


def test_it_keeps_the_tex_of_formulas_and_drops_scripts():
    body = (
        b"<html><body><article><h2>2 Method</h2><p>The loss <math alttext='\\mathcal{L}=x^2'>"
        b"<mi>x</mi></math> is minimised over a long enough sentence here.</p>"
        b"<script>alert(1)</script></article></body></html>"
    )
    [section] = sections_from_html(body)
    assert section.paragraphs == [
        "The loss \\mathcal{L}=x^2 is minimised over a long enough sentence here."
    ]


def test_it_reads_numbered_sections_of_a_pdf_and_stops_at_the_references():
    sections = sections_from_pdf((FIXTURES / "pdf_2504.15275.pdf").read_bytes())
    titles = [s.title for s in sections]
    assert "2 Min-Form Credit Assignment" in titles
    assert titles[-1] == "6 Conclusion"
    method = sections[titles.index("2 Min-Form Credit Assignment")]
    assert "minimum of the future process rewards" in " ".join(method.paragraphs)


def test_passages_end_at_sentences_and_never_cross_a_section():
    long = " ".join(f"Sentence number {i} says something long enough to count." for i in range(30))
    chunks = chunk_sections(
        [Section("1 Intro", [long]), Section("2 Method", ["A short method section."])]
    )
    assert {c.section for c in chunks} == {"1 Intro", "2 Method"}
    assert all(c.text.endswith(".") for c in chunks)
    assert all(len(c.text) <= 460 for c in chunks if c.section == "1 Intro")
    assert chunks[-1].text == "A short method section."
