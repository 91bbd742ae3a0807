/* Paperscope: keyboard navigation of paper lists and collapsible abstracts.
 *
 * Progressive enhancement: every page works without this file (links are links, abstracts are
 * shown in full). No framework, no build step. Server data is never written as HTML: the script
 * only toggles classes and attributes and sets textContent on elements it creates.
 *
 * Keys on pages with a list of papers: J / K move the selection (the reading view's pane shows
 * it), Enter opens the selected paper, / focuses search, ? shows the shortcuts, Esc closes the
 * phone sheet. S and X come from /static/accounts/triage.js.
 */
(function () {
  "use strict";

  var COLLAPSED = "is-collapsed";
  var SELECTED = "is-selected";

  function isTypingTarget(target) {
    if (!(target instanceof Element)) {
      return false;
    }
    if (target.isContentEditable) {
      return true;
    }
    return target.closest("input, textarea, select") !== null;
  }

  function isInteractive(target) {
    return (
      target instanceof Element &&
      target.closest("a[href], button, summary, input, textarea, select") !== null
    );
  }

  /* --- Collapsible abstracts ---------------------------------------------------------------- */

  function setAbstract(box, button, expanded) {
    box.classList.toggle(COLLAPSED, !expanded);
    button.setAttribute("aria-expanded", expanded ? "true" : "false");
    button.textContent = expanded ? "Show less" : "Show full abstract";
  }

  function setupAbstracts() {
    var boxes = document.querySelectorAll("[data-collapsible]");
    Array.prototype.forEach.call(boxes, function (box) {
      var text = box.querySelector("p");
      if (!text || !box.id) {
        return;
      }
      box.classList.add(COLLAPSED);
      // Short abstracts fit in the clamped lines: no button for them.
      if (text.scrollHeight <= text.clientHeight + 2) {
        box.classList.remove(COLLAPSED);
        return;
      }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "abstract-toggle";
      button.setAttribute("aria-controls", box.id);
      setAbstract(box, button, false);
      button.addEventListener("click", function () {
        setAbstract(box, button, box.classList.contains(COLLAPSED));
      });
      box.appendChild(button);
    });
  }

  /* --- Help dialog -------------------------------------------------------------------------- */

  function helpDialog() {
    return document.getElementById("keyboard-help");
  }

  function openHelp() {
    var dialog = helpDialog();
    if (!dialog || dialog.open) {
      return;
    }
    if (typeof dialog.showModal === "function") {
      dialog.showModal();
    } else {
      dialog.setAttribute("open", "");
    }
  }

  function setupHelpButtons() {
    if (!helpDialog()) {
      return;
    }
    var buttons = document.querySelectorAll("[data-help-open]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.hidden = false;
      button.addEventListener("click", openHelp);
    });
  }

  /* --- Reading view: the selected paper in the pane beside the list ----------------------- */
  // The pane shows a copy of the row's server-rendered detail block (no HTML is built from
  // data here); on narrow screens CSS turns the pane into a bottom sheet.

  var reader = null;

  function setupReader() {
    var root = document.querySelector("[data-reader]");
    var pane = root ? root.querySelector("[data-reader-pane]") : null;
    var body = pane ? pane.querySelector("[data-reader-body]") : null;
    if (!root || !pane || !body) {
      return;
    }
    root.classList.add("has-pane");
    pane.hidden = false;
    reader = { root: root, pane: pane, body: body };
    var close = pane.querySelector("[data-reader-close]");
    if (close) {
      close.addEventListener("click", closeSheet);
    }
  }

  // remember: keep the selection in the address; open: on a phone, raise the sheet (not when
  // the tap was on a link of the row, which must simply be followed).
  function showInPane(item, remember, open) {
    if (!reader || !item) {
      return;
    }
    var detail = item.querySelector("[data-row-detail]");
    if (!detail) {
      return;
    }
    reader.body.replaceChildren(detail.cloneNode(true));
    reader.pane.setAttribute("data-arxiv-id", item.getAttribute("data-arxiv-id") || "");
    if (open) {
      reader.root.classList.add("is-open");
    }
    if (remember) {
      // Keep the selection in the address, so Back from the paper page returns to it.
      var id = item.getAttribute("data-arxiv-id");
      if (id && window.history && window.history.replaceState) {
        var url = new URL(window.location.href);
        url.searchParams.set("p", id);
        window.history.replaceState(window.history.state, "", url.toString());
      }
    }
  }

  function closeSheet() {
    if (!reader || !reader.root.classList.contains("is-open")) {
      return;
    }
    reader.root.classList.remove("is-open");
    // Focus goes back to the paper the sheet showed (not to a button that is now hidden).
    var link = reader.root.querySelector("." + SELECTED + " [data-keynav-link]");
    if (link) {
      link.focus({ preventScroll: true });
    }
  }

  /* --- Keyboard navigation ------------------------------------------------------------------ */

  function setupKeyboard() {
    var list = document.querySelector("[data-keynav]");
    var items = list ? Array.prototype.slice.call(list.querySelectorAll("[data-keynav-item]")) : [];
    var current = -1;

    function select(index, moveFocus, open) {
      if (!items.length) {
        return;
      }
      var next = Math.max(0, Math.min(items.length - 1, index));
      if (current >= 0 && items[current]) {
        items[current].classList.remove(SELECTED);
        items[current].removeAttribute("aria-current");
      }
      current = next;
      var item = items[current];
      item.classList.add(SELECTED);
      item.setAttribute("aria-current", "true");
      showInPane(item, true, open !== false);
      if (moveFocus) {
        var link = item.querySelector("[data-keynav-link]");
        if (link) {
          link.focus({ preventScroll: true });
        }
        item.scrollIntoView({ block: "nearest" });
      }
    }

    if (list) {
      // Keep the selection where the reader is: a click or a Tab into a row selects it.
      list.addEventListener("focusin", function (event) {
        var item = event.target instanceof Element ? event.target.closest("[data-keynav-item]") : null;
        var index = items.indexOf(item);
        if (index >= 0 && index !== current) {
          select(index, false, false);
        }
      });
      list.addEventListener("click", function (event) {
        var item = event.target instanceof Element ? event.target.closest("[data-keynav-item]") : null;
        var index = items.indexOf(item);
        if (index < 0 || isInteractive(event.target)) {
          return; // links and buttons of a row do their own thing
        }
        if (index !== current) {
          select(index, false);
        } else if (reader) {
          reader.root.classList.add("is-open"); // a second tap reopens a closed sheet
        }
      });
    }

    // ?p=<arxiv_id> (set as the selection moves): come back to the same paper; otherwise the pane
    // previews the first paper without selecting it (J then selects that one).
    var wanted = new URLSearchParams(window.location.search).get("p");
    var start = wanted
      ? items.findIndex(function (item) {
          return item.getAttribute("data-arxiv-id") === wanted;
        })
      : -1;
    if (start >= 0) {
      select(start, false, false);
      items[start].scrollIntoView({ block: "center" });
    } else if (items.length) {
      showInPane(items[0], false, false);
    }

    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
        return;
      }
      if (isTypingTarget(event.target)) {
        return;
      }
      var dialog = helpDialog();
      if (dialog && dialog.open) {
        return; // the dialog handles Esc and its own button
      }
      switch (event.key) {
        case "Escape":
          if (!reader || !reader.root.classList.contains("is-open")) {
            return;
          }
          closeSheet();
          break;
        case "j":
        case "J":
          if (!items.length) {
            return;
          }
          select(current + 1, true);
          break;
        case "k":
        case "K":
          if (!items.length) {
            return;
          }
          select(current < 0 ? 0 : current - 1, true);
          break;
        case "Enter": {
          if (current < 0 || isInteractive(event.target)) {
            return; // a focused link or button opens itself
          }
          var link = items[current].querySelector("[data-keynav-link]");
          if (!link) {
            return;
          }
          link.click();
          break;
        }
        case "?":
          if (!dialog) {
            return;
          }
          openHelp();
          break;
        case "/": {
          var search = document.getElementById("site-search-q");
          if (!search) {
            return;
          }
          search.focus();
          search.select();
          break;
        }
        default:
          return;
      }
      event.preventDefault();
    });
  }

  function init() {
    document.documentElement.classList.add("js");
    // Touch screens: key hints go (pages.css), also where a media query alone is not re-read.
    if (window.matchMedia && window.matchMedia("(hover: none), (pointer: coarse)").matches) {
      document.documentElement.classList.add("touch");
    }
    setupAbstracts();
    setupHelpButtons();
    setupReader();
    setupKeyboard();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
