// What to show for one paper, as plain data: the DOM side (render.js) only copies it into nodes.
(() => {
  const PS = (globalThis.Paperscope ??= {});
  if (PS.model) return;

  // The server sends at most seven chips (topics/tagger/chips.py): all of them fit.
  const MAX_CHIPS = 7;

  function safeServer(server) {
    try {
      const url = new URL(server);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin + url.pathname.replace(/\/+$/, '') : null;
    } catch {
      return null;
    }
  }

  // A listing asks for the same server 2,000 times: parse it once (new URL per paper was 3-14%
  // of the render's JavaScript in two profiles).
  let lastServer = {};
  function checkedServer(server) {
    if (lastServer.server !== server) lastServer = { server, base: safeServer(server) };
    return lastServer.base;
  }

  // From a base safeServer() already checked (null: no link). A listing links the same few dozen
  // topics 6,000 times: each address is made once.
  const hrefs = new Map();
  function topicHref(base, slug) {
    if (!base) return null;
    const key = `${base}\u0000${slug}`;
    let href = hrefs.get(key);
    if (href === undefined) {
      href = `${base}/topics/${encodeURIComponent(slug)}/`;
      hrefs.set(key, href);
    }
    return href;
  }

  function topicUrl(server, slug) {
    return topicHref(safeServer(server), slug);
  }

  function isFollowed(tag, followed) {
    return followed.has(tag.slug) || (tag.area !== null && followed.has(tag.area));
  }

  function chipTitle(tag) {
    let title = tag.name;
    if (tag.area) title += ` · area: ${tag.area}`;
    if (typeof tag.confidence === 'number') title += ` · confidence ${tag.confidence.toFixed(2)}`;
    return title;
  }

  // -> {state: 'tagged'|'untagged'|'pending'|'unknown'|'error', chips, more, followed}
  // One loop over the tags (called 2,000 times on a big listing).
  function forPaper(paper, { server, followed = new Set(), pending = false, notFound = false, error = null, maxChips = MAX_CHIPS }) {
    if (!paper) {
      const state = pending ? 'pending' : notFound ? 'unknown' : error ? 'error' : 'pending';
      return { state, chips: [], more: 0, followed: false };
    }
    const tags = paper.tags ?? [];
    const base = checkedServer(server);
    // Only the chips, in the server's order: never an area, never a parent a chip implies. A
    // server from before the flags sends none: then every tag, as before.
    let flagged = false;
    for (const tag of tags) flagged ||= typeof tag.shown === 'boolean';
    const chips = [];
    let shown = 0;
    // A paper in a followed topic stands out even when that topic is implied, not a chip.
    let anyFollowed = false;
    for (const tag of tags) {
      const tagFollowed = followed.size > 0 && isFollowed(tag, followed);
      anyFollowed ||= tagFollowed;
      if (flagged && tag.shown !== true) continue;
      shown += 1;
      if (chips.length < maxChips) chips.push({ text: tag.name, href: topicHref(base, tag.slug), title: chipTitle(tag), slug: tag.slug, followed: tagFollowed });
    }
    return { state: tags.length ? 'tagged' : 'untagged', chips, more: Math.max(0, shown - maxChips), followed: anyFollowed };
  }

  // A paper as the service worker sends it (background/lookup.js forPage): [topic, confidence,
  // shown] triples, numbers into the answer's topics -> {tags: [{slug, name, area, confidence,
  // shown}]}.
  function paperFrom(triples, topics) {
    const tags = [];
    for (let i = 0; i + 2 < triples.length; i += 3) {
      const topic = topics[triples[i]];
      if (!Array.isArray(topic)) continue;
      const shown = triples[i + 2];
      tags.push({ slug: topic[0], name: topic[1], area: topic[2] ?? null, confidence: triples[i + 1], shown: shown === null ? null : shown === 1 });
    }
    return { tags };
  }

  const STATUS_TEXT = {
    pending: 'tagging…',
    untagged: 'no topics yet',
    unknown: 'not on Paperscope',
    error: 'Paperscope unavailable',
  };

  // Only what the person did: the page's own scripts can dispatch keydown events and call
  // button.click() on our nodes, and those reach the content script with isTrusted false.
  function isUserAction(event) {
    return event?.isTrusted === true;
  }

  // Keys that belong to the page or the browser: typing, modifiers, IME composition.
  function isSaveKey(event) {
    if (!isUserAction(event)) return false;
    if (event.key !== 's' || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return false;
    const target = event.target;
    if (!target || target.isContentEditable) return false;
    const tag = String(target.tagName ?? '').toUpperCase();
    return !['INPUT', 'TEXTAREA', 'SELECT'].includes(tag);
  }

  PS.model = { forPaper, paperFrom, topicUrl, safeServer, isSaveKey, isUserAction, STATUS_TEXT, MAX_CHIPS };
})();
