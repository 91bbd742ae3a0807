// Ask: sends the question, reads the answer as server-sent events, and renders everything as
// text nodes (never innerHTML of what the server or the papers say).
(function () {
  "use strict";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function passageText(passage) {
    // The answering sentence in a <mark>; the rest as plain text around it.
    const wrap = el("p", "ask-passage-text");
    const text = String(passage.text || "");
    const [start, end] = Array.isArray(passage.highlight) ? passage.highlight : [0, 0];
    if (end > start && start >= 0 && end <= text.length) {
      wrap.append(document.createTextNode(text.slice(0, start)));
      wrap.append(el("mark", "", text.slice(start, end)));
      wrap.append(document.createTextNode(text.slice(end)));
    } else {
      wrap.textContent = text;
    }
    return wrap;
  }

  function renderPapers(box, data) {
    const list = box.querySelector("[data-ask-papers]");
    list.replaceChildren();
    const byNumber = new Map((data.passages || []).map((p) => [p.n, p]));
    for (const paper of data.papers || []) {
      const item = el("li", "ask-paper");
      const head = el("p", "ask-paper-head");
      const link = el("a", "ask-paper-title", paper.title);
      link.href = paper.url;
      head.append(link, el("span", "fine ask-paper-meta", ` arXiv:${paper.arxiv_id}` + (paper.announced ? ` · ${paper.announced}` : "")));
      item.append(head);
      for (const n of paper.passages || []) {
        const passage = byNumber.get(n);
        if (!passage) continue;
        const block = el("div", "ask-passage");
        block.id = `ask-passage-${n}`;
        const label = el("span", "ask-passage-n", `[${n}]`);
        const where = passage.kind === "title" ? "title" : passage.section || passage.kind;
        block.append(label, el("span", "fine ask-passage-where", ` ${where}`), passageText(passage));
        item.append(block);
      }
      list.append(item);
    }
  }

  function renderAnswer(box, text, cited) {
    // "[n]" becomes a link to passage n when n was retrieved; anything else stays text.
    const answer = box.querySelector("[data-ask-answer]");
    answer.replaceChildren();
    const para = el("p", "ask-answer-text");
    const pattern = /\[(\d{1,3})\]/g;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      para.append(document.createTextNode(text.slice(last, match.index)));
      const n = Number(match[1]);
      if (cited.has(n)) {
        const link = el("a", "ask-cite", `[${n}]`);
        link.href = `#ask-passage-${n}`;
        para.append(link);
      } else {
        para.append(document.createTextNode(match[0]));
      }
      last = pattern.lastIndex;
    }
    para.append(document.createTextNode(text.slice(last)));
    answer.append(para);
    answer.hidden = false;
  }

  function handle(box, state, name, data) {
    const status = box.querySelector("[data-ask-status]");
    if (name === "passages") {
      state.numbers = new Set((data.passages || []).map((p) => p.n));
      renderPapers(box, data);
      status.textContent = data.papers && data.papers.length ? "Writing the answer…" : "";
    } else if (name === "delta") {
      state.text += data.text || "";
      renderAnswer(box, state.text, state.numbers);
    } else if (name === "done") {
      renderPapers(box, data);
      const count = (data.papers || []).length;
      if (data.answer) {
        renderAnswer(box, data.answer, new Set((data.citations || []).map((c) => c.n)));
      } else {
        box.querySelector("[data-ask-answer]").hidden = true;
      }
      const found = count ? `Passages from ${count} paper${count === 1 ? "" : "s"}.` : "";
      status.textContent = [data.notice, found].filter(Boolean).join(" ");
      if (data.fulltext === "pending") status.textContent += " The full text is being fetched; ask again shortly for answers from the whole paper.";
    }
  }

  function parseEvents(buffer, onEvent) {
    // Splits complete "event: x\ndata: {...}\n\n" blocks off the buffer; returns the rest.
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
    return buffer;
  }

  async function ask(box, form) {
    const status = box.querySelector("[data-ask-status]");
    const question = form.elements.question.value.trim();
    if (!question) return;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    box.querySelector("[data-ask-answer]").hidden = true;
    box.querySelector("[data-ask-papers]").replaceChildren();
    status.textContent = "Searching the papers…";
    const state = { text: "", numbers: new Set() };
    try {
      const token = form.elements.csrfmiddlewaretoken;
      const response = await fetch(box.dataset.askUrl, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "text/event-stream",
          "X-CSRFToken": token ? token.value : "",
        },
        credentials: "same-origin",
        body: JSON.stringify({ question }),
      });
      if (!response.ok) {
        let detail = `The question could not be answered (HTTP ${response.status}).`;
        try {
          const body = await response.json();
          if (body && body.detail) detail = String(body.detail);
        } catch (_) { /* not JSON */ }
        const wait = response.headers.get("Retry-After");
        if (response.status === 429 && wait) detail += ` Try again in ${wait} s.`;
        status.textContent = detail;
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer = parseEvents(buffer + decoder.decode(value, { stream: true }), (name, data) => handle(box, state, name, data));
      }
      parseEvents(buffer + "\n\n", (name, data) => handle(box, state, name, data));
    } catch (error) {
      status.textContent = "The answer could not be loaded. Check your connection and try again.";
    } finally {
      button.disabled = false;
    }
  }

  for (const box of document.querySelectorAll("[data-ask]")) {
    const form = box.querySelector("[data-ask-form]");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      ask(box, form);
    });
    form.elements.question.addEventListener("keydown", (event) => {
      // Enter asks, Shift+Enter adds a line; keys never reach the page's J/K shortcuts.
      event.stopPropagation();
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }
})();
