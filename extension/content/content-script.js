// Content script for arxiv.org abstract, listing, search and HTML pages: reads the ids on the page,
// asks the service worker for their tags in one message, renders all chips in one pass, and keeps
// them in place when the page re-renders. Nothing here talks to the server directly.
(() => {
  const PS = globalThis.Paperscope;
  if (!PS || PS.started) return;
  const pageKind = PS.pages.kind(location);
  if (!pageKind) return;
  PS.started = true;

  const started = performance.now();
  const root = document.documentElement;
  const MAX_POLLS = 8;
  const QUEUED_REASONS = {
    'not-connected': 'Queued: connect Paperscope (toolbar button) to deliver it',
    'token-expired': 'Queued: your Paperscope token expired; reconnect to deliver it',
  };
  const state = {
    server: null,
    followed: new Set(),
    saved: new Set(),
    papers: new Map(),
    pending: new Set(),
    notFound: new Set(),
    error: null,
    filter: 'all',
    polls: 0,
    hoverId: null,
    picker: null,
    ids: new Set(), // every paper id seen on the page
    followedIds: new Set(), // those in a followed topic, as last rendered
  };

  // Always resolves: {ok, result} or {ok: false, error}. A stopped or reloaded extension, a slow
  // worker or a strange answer never throws into the page.
  function ask(type, payload, timeoutMs = 20000) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ ok: false, error: { kind: 'timeout' } }), timeoutMs);
      const done = (answer) => {
        clearTimeout(timer);
        resolve(answer && typeof answer === 'object' && 'ok' in answer ? answer : { ok: false, error: { kind: 'garbage' } });
      };
      try {
        chrome.runtime.sendMessage({ type, payload }).then(done, (error) => done({ ok: false, error: { kind: 'extension', detail: String(error) } }));
      } catch (error) {
        done({ ok: false, error: { kind: 'extension', detail: String(error) } });
      }
    });
  }

  const unique = (ids) => [...new Set(ids)];
  const findEntries = () => PS.pages.entries(document, pageKind, location);

  async function lookup(ids) {
    for (const id of ids) state.ids.add(id);
    const answer = await ask('papers/lookup', { ids });
    if (!answer.ok || !answer.result || typeof answer.result.papers !== 'object') {
      state.error = answer.error ?? { kind: 'garbage' };
      return;
    }
    const result = answer.result;
    state.error = result.error ?? null;
    state.server = result.server;
    state.followed = new Set(Array.isArray(result.followed) ? result.followed : []);
    state.filter = result.listingFilter ?? state.filter;
    for (const id of result.saved ?? []) state.saved.add(id);
    const topics = Array.isArray(result.topics) ? result.topics : [];
    for (const [id, triples] of Object.entries(result.papers)) {
      if (!Array.isArray(triples)) continue;
      state.papers.set(id, PS.model.paperFrom(triples, topics));
      state.pending.delete(id);
    }
    for (const id of result.pending ?? []) state.pending.add(id);
    for (const id of result.notFound ?? []) {
      state.notFound.add(id);
      state.pending.delete(id);
    }
  }

  function viewFor(id) {
    const view = PS.model.forPaper(state.papers.get(id), {
      server: state.server,
      followed: state.followed,
      pending: state.pending.has(id),
      notFound: state.notFound.has(id),
      error: state.error,
    });
    // On listings one toolbar line reports an outage instead of one note per entry.
    if (view.state === 'error' && pageKind !== 'abs' && pageKind !== 'html') view.state = 'quiet';
    return view;
  }

  // Each entry's bar (with its Save button), made while the lookup is away (~4,000 cloned nodes),
  // not yet in the page: the bars are filled first and go in together, so the page is changed and
  // laid out once. The entries are marked for the keyboard, the pointer and the filter meanwhile
  // too (nothing of that depends on the answer): their style is worked out while the server is
  // busy instead of in the render pass (30-50 ms of it on the 2,000-entry listing).
  function prepare(entries) {
    for (const entry of entries) mark(entry);
    void root.offsetHeight;
    return entries.map((entry) => {
      const bar = PS.render.newBar(document, entry.id);
      return { bar, button: bar.firstChild };
    });
  }

  function mark(entry) {
    for (const node of entry.box) {
      if (!node.classList.contains('paperscope-entry')) node.classList.add('paperscope-entry');
      if (node.dataset.paperscopeEntry !== entry.id) node.dataset.paperscopeEntry = entry.id;
    }
  }

  // `spare`: the entry's bar and button from prepare(), used unless the entry has a bar already.
  // The render pass touches the DOM as little as it can (each call from the content script's
  // world costs a few microseconds, times 2,000 entries): a prepared entry is marked already and
  // its new button shows "idle".
  function renderEntry(entry, spare = null) {
    const view = viewFor(entry.id);
    const found = PS.render.bar(entry);
    const fresh = spare !== null && found === null;
    const bar = fresh ? spare.bar : (found ?? PS.render.newBar(document, entry.id));
    const button = PS.render.fill(document, bar, view, fresh ? spare.button : undefined);
    PS.render.place(entry, bar);
    const wanted = state.saved.has(entry.id) ? 'saved' : 'idle';
    if (fresh) {
      if (wanted !== 'idle') PS.render.setSaveState(button, wanted);
    } else {
      // An existing button's state is left alone unless it shows "idle" (a save may be under way).
      if ((!button.dataset.state || button.dataset.state === 'idle') && button.dataset.state !== wanted) PS.render.setSaveState(button, wanted);
      mark(entry);
    }
    const wasFollowed = state.followedIds.has(entry.id);
    if (view.followed) state.followedIds.add(entry.id);
    else state.followedIds.delete(entry.id);
    if (view.followed || wasFollowed || !fresh) {
      for (const node of entry.box) {
        if (node.classList.contains('paperscope-followed') !== view.followed) node.classList.toggle('paperscope-followed', view.followed);
      }
    }
  }

  // Our own insertions are kept from the MutationObserver, which would otherwise sift ~4,000
  // records; what the page itself changed meanwhile is still looked at.
  function quietly(write) {
    if (observer.takeRecords().some(relevant)) scheduleEnsure();
    observer.disconnect();
    try {
      write();
    } finally {
      observer.observe(document.body ?? root, { childList: true, subtree: true });
    }
  }

  // Every entry in one synchronous pass, then one layout, in the same task, so that the time
  // reported below includes it: four batches with a layout each cost about twice as much in all
  // on the 2,000-entry listing (each layout re-laid what followed the batch).
  async function renderAll(entries, prepared = []) {
    quietly(() => entries.forEach((entry, i) => renderEntry(entry, prepared[i])));
    updateToolbar();
    void root.offsetHeight;
    root.dataset.paperscope = state.error && !state.papers.size ? 'error' : state.pending.size ? 'pending' : 'ready';
  }

  // Papers being fetched by the server (and a server that did not answer) are asked about again,
  // less and less often.
  function schedulePoll() {
    if (state.polls >= MAX_POLLS || (!state.pending.size && !state.error)) return;
    const waiting = unique(findEntries().map((entry) => entry.id)).filter((id) => state.pending.has(id) || (state.error && !state.papers.has(id) && !state.notFound.has(id)));
    if (!waiting.length) return;
    const delay = Math.min(2000 * 2 ** state.polls, 30000);
    state.polls += 1;
    setTimeout(async () => {
      await lookup(waiting);
      await renderAll(findEntries().filter((entry) => waiting.includes(entry.id)));
      schedulePoll();
    }, delay);
  }

  // --- Save ------------------------------------------------------------------------------------
  const buttonsFor = (id) => [...document.querySelectorAll('button.paperscope-save')].filter((button) => button.dataset.paperscopeId === id);

  function showSave(id, status, detail) {
    for (const button of buttonsFor(id)) PS.render.setSaveState(button, status, detail);
  }

  async function save(id) {
    const buttons = buttonsFor(id);
    if (buttons.some((button) => button.dataset.state === 'busy')) return;
    const listId = state.picker?.isConnected && state.picker.value ? state.picker.value : null;
    showSave(id, 'busy');
    const answer = await ask('papers/save', { arxivId: id, listId }, 60000);
    const result = answer.result ?? {};
    if (!answer.ok || result.status === 'failed') return showSave(id, 'failed', `Not saved: ${answer.error?.detail ?? result.error ?? 'no answer'}`);
    if (result.status === 'queued') return showSave(id, 'queued', QUEUED_REASONS[result.reason] ?? 'Queued: the server did not answer; it will be delivered when it is back');
    state.saved.add(id);
    showSave(id, 'saved');
  }

  async function unsave(id) {
    showSave(id, 'busy');
    const answer = await ask('papers/unsave', { arxivId: id }, 60000);
    if (!answer.ok) return showSave(id, 'saved', `Not removed: ${answer.error?.detail ?? 'no answer'}`);
    state.saved.delete(id);
    showSave(id, answer.result?.status === 'queued' ? 'queued' : 'idle');
  }

  function currentPaperId() {
    const focused = document.activeElement?.closest?.('[data-paperscope-entry]');
    if (focused) return focused.dataset.paperscopeEntry;
    if (state.hoverId) return state.hoverId;
    const single = pageKind === 'abs' || pageKind === 'html' ? findEntries()[0] : null;
    return single?.id ?? null;
  }

  document.addEventListener('click', (event) => {
    const button = event.target.closest?.('button.paperscope-save');
    if (!button || !PS.model.isUserAction(event)) return;
    event.preventDefault();
    const id = button.dataset.paperscopeId;
    if (button.dataset.state === 'saved') unsave(id);
    else save(id);
  });
  document.addEventListener('mouseover', (event) => {
    state.hoverId = event.target.closest?.('[data-paperscope-entry]')?.dataset.paperscopeEntry ?? null;
  });
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || !PS.model.isSaveKey(event)) return;
    const id = currentPaperId();
    if (!id) return;
    event.preventDefault();
    save(id);
  });

  async function loadLists() {
    const button = buttonsFor(findEntries()[0]?.id)[0];
    if (!button) return;
    const answer = await ask('lists/get', {});
    if (!answer.ok || !Array.isArray(answer.result?.lists)) return;
    state.picker = PS.render.listPicker(document, button, answer.result.lists, answer.result.defaultList);
  }

  // --- Listing toolbar: highlight, dim or hide papers outside followed topics ----------------------
  function applyFilter(mode) {
    root.classList.toggle('paperscope-filter-dim', mode === 'dim');
    root.classList.toggle('paperscope-filter-only', mode === 'only');
  }

  function updateToolbar() {
    if (pageKind !== 'listing' && pageKind !== 'search') return;
    const anchor = document.querySelector('#dlpage > h1') ?? document.querySelector('h1');
    if (!anchor) return;
    const toolbar = PS.render.toolbar(document, anchor, (mode) => {
      state.filter = mode;
      applyFilter(mode);
      chrome.storage.local.set({ listingFilter: mode }).catch(() => {});
      updateToolbar();
    });
    const ids = [...state.ids];
    const followedCount = state.followedIds.size;
    const status = state.error && !state.papers.size ? `server unreachable (${state.error.kind}); tags will appear when it answers` : null;
    PS.render.setToolbar(toolbar, { mode: state.filter, followedCount, total: ids.length, status });
    applyFilter(state.filter);
  }

  // --- Keep chips in place when the page re-renders (MathJax, arXiv's own scripts) --------------
  const ours = (node) => node.nodeType !== 1 || /(^|\s)paperscope-/.test(node.className ?? '');
  let ensureTimer = null;

  function relevant(record) {
    if (record.type !== 'childList') return false;
    const target = record.target;
    if (target.closest?.('.mathjax, .MathJax, .paperscope-bar, .paperscope-toolbar')) return false;
    return [...record.addedNodes, ...record.removedNodes].some((node) => !ours(node));
  }

  async function ensureAll() {
    ensureTimer = null;
    const entries = findEntries();
    const known = (id) => state.papers.has(id) || state.pending.has(id) || state.notFound.has(id);
    const fresh = unique(entries.map((entry) => entry.id)).filter((id) => !known(id));
    if (fresh.length) await lookup(fresh);
    const missing = entries.filter((entry) => fresh.includes(entry.id) || !entry.after.nextElementSibling?.classList.contains('paperscope-bar'));
    if (missing.length) await renderAll(missing);
  }

  function scheduleEnsure() {
    if (ensureTimer === null) ensureTimer = setTimeout(ensureAll, 100);
  }

  const observer = new MutationObserver((records) => {
    if (ensureTimer === null && records.some(relevant)) scheduleEnsure();
  });
  observer.observe(document.body ?? root, { childList: true, subtree: true });

  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== 'local') return;
    if (changes.saved) {
      const saved = changes.saved.newValue ?? {};
      for (const button of document.querySelectorAll('button.paperscope-save[data-state="queued"]')) {
        if (saved[button.dataset.paperscopeId]?.length) PS.render.setSaveState(button, 'saved');
      }
    }
    if (changes.listingFilter && changes.listingFilter.newValue !== state.filter) {
      state.filter = changes.listingFilter.newValue;
      updateToolbar();
    }
  });

  async function start() {
    root.dataset.paperscope = 'loading';
    root.dataset.paperscopeStart = started.toFixed(1);
    // The lookup leaves as soon as the ids are read; the entries are found while it is away.
    const scan = PS.pages.scan(document, pageKind, location);
    if (!scan.ids.length) {
      root.dataset.paperscope = 'empty';
      return;
    }
    const answered = lookup(unique(scan.ids));
    const entries = scan.entries();
    const prepared = prepare(entries);
    await answered;
    root.dataset.paperscopeLookupMs = (performance.now() - started).toFixed(1);
    await renderAll(entries, prepared);
    root.dataset.paperscopeMs = (performance.now() - started).toFixed(1);
    if (pageKind === 'abs' || pageKind === 'html') loadLists();
    schedulePoll();
  }

  start().catch((error) => {
    root.dataset.paperscope = 'error';
    console.warn('Paperscope:', error);
  });
})();
