# ruff: noqa: E501  (HTML fixture markup reads better unwrapped)
"""arXiv pages the saved fixtures do not cover, built from their markup: a listing of any size,
search results, LaTeXML full-text pages and a processed conference index (ARXIV_PAGES.md)."""

from __future__ import annotations

import re

from tests.extension.support import fixture_html

_ENTRY = re.compile(r"\s*<dt>.*?</dd>", re.S)


def listing(ids: list[str], title: str = "Machine Learning") -> str:
    """A /list/<cat>/new page of len(ids) entries, each a copy of the first entry of the real
    astro-ph.HE new page with its id swapped."""
    page = fixture_html("list_astro-ph.HE_new.html")
    first = _ENTRY.search(page)
    template = first.group(0)
    start = page.index("<dl id='articles'>")
    end = page.rindex("</dl>") + len("</dl>")
    entries = "".join(
        template.replace("2303.00765", arxiv_id).replace("item1'>[1]", f"item{n}'>[{n}]")
        for n, arxiv_id in enumerate(ids, start=1)
    )
    heading = f"<h3>New submissions (showing {len(ids)} of {len(ids)} entries)</h3>"
    body = f"<dl id='articles'>\n{heading}\n{entries}\n</dl>"
    return page[:start] + body + page[end:]


def search_results(ids: list[str]) -> str:
    """arxiv.org/search/ results, in the search service's markup (li.arxiv-result)."""
    items = "".join(
        f"""
    <li class="arxiv-result">
      <div class="is-marginless">
        <p class="list-title is-inline-block"><a href="https://arxiv.org/abs/{i}">arXiv:{i}</a>
          <span>&nbsp;[<a href="https://arxiv.org/pdf/{i}">pdf</a>]&nbsp;</span></p>
        <div class="tags is-inline-block"><span class="tag is-small is-link">cs.LG</span></div>
      </div>
      <p class="title is-5 mathjax">A paper about $x^2$ number {n}</p>
      <p class="authors"><span class="search-hit">Authors:</span> <a href="/a/doe_j_1">Jane Doe</a></p>
      <p class="abstract mathjax">We study things.</p>
      <p class="is-size-7">Submitted 1 January, 2025</p>
    </li>"""
        for n, i in enumerate(ids, start=1)
    )
    return f"""<!DOCTYPE html><html lang="en"><head><title>Search | arXiv e-print repository</title></head>
<body><main><div class="content">
  <h1 class="title is-clearfix">Showing 1&ndash;{len(ids)} of {len(ids)} results for all: graphs</h1>
  <ol class="breathe-horizontal" start="1">{items}
  </ol>
</div></main></body></html>"""


def latexml(arxiv_id: str, *, late_header: bool = False) -> str:
    """An /html/<id>vN LaTeXML conversion. With late_header the arXiv header is built by script
    after load, as older conversions do (addons_new.js)."""
    header = f"""<header class="arxiv-html-header"><div class="html-header-logo"><a href="https://arxiv.org/">arXiv</a></div>
  <nav class="html-header-nav"><a class="header-button" href="/abs/{arxiv_id}v1">Back to Abstract</a>
  <a class="header-button" href="/pdf/{arxiv_id}v1">Download PDF</a></nav></header>"""
    script = ""
    if late_header:
        script = f"""<script>setTimeout(() => document.body.insertAdjacentHTML('afterbegin',
  `<header class="desktop_header">{header}</header>`), 400);</script>"""
        header = ""
    return f"""<!DOCTYPE html><html lang="en"><head><title>[{arxiv_id}] A LaTeXML paper</title></head>
<body>{header}
<div class="ltx_page_main"><div id="infobox"><div id="watermark-tr">arXiv:{arxiv_id}v1 [cs.LG] 01 Jan 2025</div></div>
<div class="ltx_page_content"><article class="ltx_document">
  <h1 class="ltx_title ltx_title_document">A LaTeXML paper with $\\alpha$ in its title</h1>
  <div class="ltx_authors"><span class="ltx_creator ltx_role_author"><span class="ltx_personname">Jane Doe</span></span></div>
  <div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p class="ltx_p">We study things.</p></div>
  <section class="ltx_section"><h2 class="ltx_title ltx_title_section">1 Introduction</h2><p class="ltx_p">Text.</p></section>
</article></div></div>{script}</body></html>"""


def conference_index(ids: list[str]) -> str:
    """The author-supplied /html/2403.10561 index as arxiv-browse serves it: each LIST:arXiv:<id>
    line replaced by a one-entry dl in listing markup (list/conference_item.html)."""
    page = fixture_html("html_2403.10561_author_supplied_html.html")
    for arxiv_id in ids:
        entry = f"""<dl><dt><a href="/abs/{arxiv_id}" title="Abstract" id="{arxiv_id}">arXiv:{arxiv_id}</a>
  [<a href="/pdf/{arxiv_id}" title="Download PDF" id="pdf-{arxiv_id}">pdf</a>]</dt>
<dd><div class="meta"><div class="list-title mathjax"><span class="descriptor">Title:</span> Paper {arxiv_id}</div>
<div class="list-authors"><a href="/a/doe_j_1">Jane Doe</a></div>
<div class="list-subjects"><span class="descriptor">Subjects:</span> <span class="primary-subject">Machine Learning (cs.LG)</span></div>
</div></dd></dl>"""
        page = page.replace(f"LIST:arXiv:{arxiv_id}", entry)
    return page
