// Where the papers are on each kind of arxiv.org page, and where their chips and Save go
// (ARXIV_PAGES.md sections 2-5). Never inside .mathjax elements: MathJax rewrites those.
(() => {
  const PS = (globalThis.Paperscope ??= {});
  if (PS.pages) return;

  function kind(loc) {
    const path = loc.pathname;
    if (path.startsWith('/abs/')) return 'abs';
    if (path.startsWith('/list/') || path.startsWith('/a/')) return 'listing';
    if (path.startsWith('/html/')) return 'html';
    if (path.startsWith('/search')) return 'search';
    return null;
  }

  // An entry: {id, version, box (the elements that make up the paper), after (the chips bar, with
  // the Save button at its end, goes right after it)}.
  function entry(parsed, box, after) {
    return parsed && after ? { id: parsed.id, version: parsed.version, box, after } : null;
  }

  function absEntry(doc, loc) {
    const parsed = PS.ids.fromPath(loc.pathname) ?? PS.ids.parse(doc.querySelector('meta[name="citation_arxiv_id"]')?.content);
    const abs = doc.querySelector('#abs') ?? doc.querySelector('#content');
    const after = abs?.querySelector('h1.title') ?? abs?.querySelector('div.authors') ?? abs?.firstElementChild;
    return entry(parsed, [abs], after);
  }

  // dt/dd pairs: listing pages, author pages, and conference indexes inside /html/ pages.
  const LISTING_LINKS = 'dt a[title="Abstract"], dt > a[href*="/abs/"]:not([title])';

  function listingIds(root, links) {
    const base = root.baseURI ?? undefined;
    return links.map((link) => PS.ids.fromHref(link.getAttribute('href'), base) ?? PS.ids.parse(link.id));
  }

  function listingEntries(root, links = [...root.querySelectorAll(LISTING_LINKS)], parsed = listingIds(root, links)) {
    const out = [];
    for (let i = 0; i < links.length; i += 1) {
      const dt = links[i].closest('dt');
      const dd = dt.nextElementSibling?.tagName === 'DD' ? dt.nextElementSibling : null;
      const meta = dd?.querySelector('div.meta') ?? dd;
      const after = meta?.querySelector('div.list-subjects') ?? meta?.querySelector('div.list-authors') ?? meta?.lastElementChild;
      const found = entry(parsed[i], dd ? [dt, dd] : [dt], after);
      if (found) out.push(found);
    }
    return out;
  }

  function searchEntries(root) {
    const out = [];
    for (const item of root.querySelectorAll('li.arxiv-result')) {
      const link = item.querySelector('p.list-title a[href*="/abs/"]') ?? item.querySelector('a[href*="/abs/"]');
      const parsed = link && PS.ids.fromHref(link.getAttribute('href'));
      const after = item.querySelector('p.authors') ?? item.querySelector('p.title');
      const found = entry(parsed, [item], after);
      if (found) out.push(found);
    }
    return out;
  }

  function htmlEntries(doc, loc) {
    const entries = listingEntries(doc);
    const title = doc.querySelector('h1.ltx_title_document');
    const after = title ?? (entries.length ? null : doc.querySelector('body > h1') ?? doc.body?.firstElementChild);
    const page = entry(PS.ids.fromPath(loc.pathname), [title?.closest('article') ?? doc.body], after);
    return page ? [page, ...entries] : entries;
  }

  function entries(doc, pageKind, loc) {
    if (pageKind === 'abs') return [absEntry(doc, loc)].filter(Boolean);
    if (pageKind === 'listing') return listingEntries(doc.querySelector('#dlpage') ?? doc);
    if (pageKind === 'search') return searchEntries(doc);
    if (pageKind === 'html') return htmlEntries(doc, loc);
    return [];
  }

  // The ids first, the entries when asked: on a listing the ids come from one pass over the
  // abstract links, so the lookup can leave before the 2,000 entries are looked for around them
  // (closest() and two querySelector() each); the entries are then found from the same links.
  function scan(doc, pageKind, loc) {
    if (pageKind !== 'listing') {
      const found = entries(doc, pageKind, loc);
      return { ids: found.map((item) => item.id), entries: () => found };
    }
    const root = doc.querySelector('#dlpage') ?? doc;
    const links = [...root.querySelectorAll(LISTING_LINKS)];
    const parsed = listingIds(root, links);
    return { ids: parsed.filter(Boolean).map((item) => item.id), entries: () => listingEntries(root, links, parsed) };
  }

  PS.pages = { kind, entries, scan };
})();
