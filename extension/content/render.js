// DOM for chips, Save buttons and the listing toolbar. Server text goes in through textContent and
// attribute values only, never as HTML.
(() => {
  const PS = (globalThis.Paperscope ??= {});
  if (PS.render) return;

  function el(doc, tag, className, text) {
    const node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Chips, bars and Save buttons are clones of nodes built once per document: a 2,000-entry
  // listing makes ~10,000 of them, and cloning a prepared node is much cheaper than building each
  // from createElement and property writes. No HTML is parsed: the templates are made with DOM
  // calls and server text still goes in through textContent and attribute values only.
  //
  // A bar is one flex box: the chips, then the Save button, as its own children (no holder, no
  // wrapper around the button), so an entry adds a bar, its chip links and one button, and the
  // page's own lines are left as they are. Putting the button in the entry's id line (a `dt`)
  // made Blink lay that line out again for each of 2,000 entries (issue 17, fourth round).
  const templates = new WeakMap();

  function template(doc) {
    let made = templates.get(doc);
    if (made) return made;
    const barNode = el(doc, 'div', 'paperscope-bar');
    const button = el(doc, 'button', 'paperscope-save', 'Save');
    button.type = 'button';
    button.title = 'Save to your Paperscope reading list (s)';
    button.dataset.state = 'idle';
    barNode.append(button);
    const link = el(doc, 'a', 'paperscope-chip');
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    made = { bar: barNode, link, span: el(doc, 'span', 'paperscope-chip'), chips: new Map() };
    templates.set(doc, made);
    return made;
  }

  // A bar (with its Save button) not yet in the page: the content script makes them while the
  // lookup is away and fills them before they go in.
  function newBar(doc, id) {
    const node = template(doc).bar.cloneNode(true);
    node.dataset.paperscopeId = id;
    node.firstChild.dataset.paperscopeId = id;
    return node;
  }

  // The entry's chips bar if it has one already (right after entry.after): a bar is made once per
  // entry and found again after re-renders. null: make one with newBar, fill it, then place it.
  function bar(entry) {
    const next = entry.after.nextElementSibling;
    return next?.classList.contains('paperscope-bar') && next.getAttribute('data-paperscope-id') === entry.id ? next : null;
  }

  function place(entry, barNode) {
    if (!barNode.isConnected) entry.after.after(barNode);
  }

  function newChip(doc, made, view) {
    const link = (view.href ? made.link : made.span).cloneNode(false);
    if (view.followed) link.classList.add('paperscope-chip--followed');
    if (view.href) link.href = view.href;
    link.dataset.slug = view.slug;
    if (view.followed) {
      const mark = el(doc, 'span', 'paperscope-follow-mark', '★');
      mark.setAttribute('aria-label', 'followed topic');
      link.append(mark);
    }
    link.append(doc.createTextNode(view.text));
    return link;
  }

  // One prototype per topic as shown (link, name, followed or not), kept for the document: a
  // listing repeats a few dozen topics over its 2,000 entries, so a chip is one deep clone and its
  // title (which carries the tag's confidence), not five node and attribute writes.
  function chip(doc, view) {
    const made = template(doc);
    const key = `${view.followed ? 1 : 0}${view.slug}\u0000${view.href}\u0000${view.text}`;
    let prototype = made.chips.get(key);
    if (!prototype) {
      prototype = newChip(doc, made, view);
      made.chips.set(key, prototype);
    }
    const link = prototype.cloneNode(true);
    link.title = view.title;
    return link;
  }

  // The bar's Save button: the first of its own children that is one (after the chips).
  function buttonOf(barNode) {
    for (let node = barNode.firstElementChild; node; node = node.nextElementSibling) {
      if (node.tagName === 'BUTTON' && node.classList.contains('paperscope-save')) return node;
    }
    return null;
  }

  // The chips (and a "+n" or status note) go before the Save button; what an earlier fill put
  // there is replaced. `button`: the bar's Save button when the caller has it (a new bar).
  function fill(doc, barNode, view, button = buttonOf(barNode)) {
    if (!button) {
      button = template(doc).bar.firstChild.cloneNode(true);
      button.dataset.paperscopeId = barNode.dataset.paperscopeId;
      barNode.append(button);
    }
    while (barNode.firstChild !== button) barNode.firstChild.remove();
    for (const item of view.chips) barNode.insertBefore(chip(doc, item), button);
    if (view.more) barNode.insertBefore(el(doc, 'span', 'paperscope-more', `+${view.more}`), button);
    const status = PS.model.STATUS_TEXT[view.state];
    if (status) barNode.insertBefore(el(doc, 'span', `paperscope-status paperscope-status--${view.state}`, status), button);
    barNode.setAttribute('data-state', view.state);
    return button;
  }

  const SAVE_LABELS = {
    idle: ['Save', 'Save to your Paperscope reading list (s)'],
    busy: ['Saving…', ''],
    saved: ['Saved ✓', 'Saved to your reading list; click to remove it'],
    queued: ['Queued', 'Kept in the browser; delivered when the server answers'],
    failed: ['Save failed', ''],
  };

  function setSaveState(button, state, detail) {
    const [text, title] = SAVE_LABELS[state] ?? SAVE_LABELS.idle;
    button.textContent = text;
    button.title = detail || title;
    button.dataset.state = state;
    button.disabled = state === 'busy';
  }

  // A list picker right after a single paper's Save button (abs and HTML pages).
  function listPicker(doc, button, lists, selected) {
    const barNode = button.parentElement;
    let select = barNode.querySelector(':scope > select.paperscope-list');
    if (!lists.length) {
      select?.remove();
      return null;
    }
    if (!select) {
      select = el(doc, 'select', 'paperscope-list');
      select.setAttribute('aria-label', 'Reading list');
      button.after(select);
    }
    select.replaceChildren(
      ...lists.map((list) => {
        const option = el(doc, 'option', '', list.name);
        option.value = String(list.id);
        option.selected = String(list.id) === String(selected);
        return option;
      }),
    );
    return select;
  }

  const FILTERS = [
    ['all', 'All papers'],
    ['dim', 'Dim the rest'],
    ['only', 'Only followed topics'],
  ];

  function toolbar(doc, anchor, onChange) {
    let node = doc.querySelector('.paperscope-toolbar');
    if (node) return node;
    node = el(doc, 'div', 'paperscope-toolbar');
    node.append(el(doc, 'span', 'paperscope-toolbar-label', 'Paperscope'));
    for (const [mode, label] of FILTERS) {
      const button = el(doc, 'button', 'paperscope-filter', label);
      button.type = 'button';
      button.dataset.mode = mode;
      button.addEventListener('click', (event) => {
        if (PS.model.isUserAction(event)) onChange(mode);
      });
      node.append(button);
    }
    node.append(el(doc, 'span', 'paperscope-toolbar-status'));
    anchor.after(node);
    return node;
  }

  function setToolbar(node, { mode, followedCount, total, status }) {
    for (const button of node.querySelectorAll('.paperscope-filter')) button.setAttribute('aria-pressed', String(button.dataset.mode === mode));
    node.querySelector('.paperscope-toolbar-status').textContent = status ?? `${followedCount} of ${total} in topics you follow`;
  }

  PS.render = { newBar, bar, place, fill, setSaveState, listPicker, toolbar, setToolbar };
})();
