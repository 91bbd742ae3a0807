/* Paperscope accounts: in-place Save, Not interested, Follow and Copy, and the S / X keys.
 *
 * Progressive enhancement: every button here is a plain form that works without this file.
 * With it, the forms post in the background (the server answers JSON to Accept:
 * application/json) and the page updates in place. S saves the selected paper to the default
 * list, X hides it from the feed for good; J / K / Enter come from /static/js/paperscope.js.
 * Server data is never written as HTML: only textContent, attributes and the hidden flag change.
 */
(function () {
  "use strict";

  // Pages may load this file twice (base.html and a page's own head): bind the handlers once.
  if (window.paperscopeTriageLoaded) {
    return;
  }
  window.paperscopeTriageLoaded = true;

  function say(text) {
    var region = document.querySelector("[data-triage-status]");
    if (!region) {
      // Pages without their own status line (topic and paper pages) get a hidden one.
      region = document.createElement("p");
      region.className = "visually-hidden";
      region.setAttribute("role", "status");
      region.setAttribute("aria-live", "polite");
      region.setAttribute("data-triage-status", "");
      document.body.appendChild(region);
    }
    region.textContent = text;
  }

  function isTypingTarget(target) {
    return (
      target instanceof Element &&
      (target.isContentEditable || target.closest("input, textarea, select") !== null)
    );
  }

  // form.action / form.method would return a control named "action" or "method" (the Follow
  // form has <input name="action">) instead of the attribute: read the attributes themselves.
  function formUrl(form) {
    return form.getAttribute("action") || window.location.href;
  }

  function post(form) {
    return fetch(formUrl(form), {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    }).then(function (response) {
      return response
        .json()
        .catch(function () {
          return { ok: false, message: "The server did not answer; try again." };
        })
        .then(function (body) {
          if (!response.ok || !body.ok) {
            throw new Error(body.message || "That did not work; try again.");
          }
          return body;
        });
    });
  }

  function submitButton(form) {
    return form.querySelector("button[type=submit], button:not([type])");
  }

  function paperId(form) {
    var input = form.querySelector("input[name=arxiv_id]");
    return input ? input.value : "";
  }

  // A paper's Save controls: the row's light one and the detail pane's (and its copy in the pane).
  function saveButtons(form) {
    var id = paperId(form);
    var forms = Array.prototype.filter.call(
      document.querySelectorAll("[data-save-form]"),
      function (other) {
        return other === form || (id && paperId(other) === id);
      }
    );
    return forms.map(submitButton).filter(Boolean);
  }

  function save(form) {
    post(form).then(
      function (body) {
        saveButtons(form).forEach(function (button) {
          button.textContent = "Saved ✓";
          button.setAttribute("data-saved", "true");
        });
        say(body.message);
      },
      function (error) {
        say(error.message);
        toast(error.message);
      }
    );
  }

  /* A visible note for what must not pass unseen (S without an account, a failed save). */
  function toast(text, link) {
    var box = document.querySelector("[data-toast]");
    if (!box) {
      box = document.createElement("div");
      box.className = "toast";
      box.setAttribute("role", "alert");
      box.setAttribute("data-toast", "");
      document.body.appendChild(box);
    }
    box.replaceChildren(document.createTextNode(text));
    if (link) {
      box.appendChild(document.createTextNode(" "));
      var anchor = document.createElement("a");
      anchor.href = link.href;
      anchor.textContent = link.text;
      box.appendChild(anchor);
    }
    box.hidden = false;
    window.clearTimeout(box.timer);
    box.timer = window.setTimeout(function () {
      box.hidden = true;
    }, 6000);
  }

  function rowParts(form) {
    // The form may sit in the reading view's pane, outside the row: find the row by paper id.
    var id = paperId(form);
    var row =
      form.closest("[data-keynav-item]") ||
      (id ? document.querySelector('[data-keynav-item][data-arxiv-id="' + CSS.escape(id) + '"]') : null);
    return {
      article: row ? row.querySelector("article") : null,
      undo: row ? row.querySelector("[data-unhide-form]") : null,
    };
  }

  function hide(form, advance) {
    post(form).then(
      function (body) {
        var parts = rowParts(form);
        if (parts.article) {
          parts.article.hidden = true;
        }
        if (parts.undo) {
          parts.undo.hidden = false;
        }
        say(body.message);
        if (advance) {
          // Move on to the next paper the way J does (paperscope.js owns the selection).
          document.dispatchEvent(new KeyboardEvent("keydown", { key: "j", bubbles: true }));
        }
      },
      function (error) {
        say(error.message);
        toast(error.message); // seen, not only announced
      }
    );
  }

  function unhide(form) {
    post(form).then(
      function (body) {
        var parts = rowParts(form);
        if (parts.article) {
          parts.article.hidden = false;
        }
        form.hidden = true;
        say(body.message);
      },
      function (error) {
        say(error.message);
        toast(error.message); // seen, not only announced
      }
    );
  }

  function follow(form) {
    var action = form.querySelector("input[name=action]");
    var button = submitButton(form);
    post(form).then(
      function (body) {
        var following = body.following === true;
        if (action) {
          action.value = following ? "unfollow" : "follow";
        }
        if (button) {
          button.textContent = following
            ? button.getAttribute("data-label-on") || "Following"
            : button.getAttribute("data-label-off") || "Follow";
          button.setAttribute("aria-pressed", following ? "true" : "false");
          button.classList.toggle("button-primary", !following);
        }
        say(body.message);
      },
      function (error) {
        say(error.message);
        toast(error.message); // seen, not only announced
      }
    );
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || typeof fetch !== "function") {
      return;
    }
    if (form.matches("[data-save-form]")) {
      event.preventDefault();
      save(form);
    } else if (form.matches("[data-hide-form]")) {
      event.preventDefault();
      hide(form, false);
    } else if (form.matches("[data-unhide-form]")) {
      event.preventDefault();
      unhide(form);
    } else if (form.matches("[data-follow-form]")) {
      event.preventDefault();
      follow(form);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (isTypingTarget(event.target)) {
      return;
    }
    var dialog = document.getElementById("keyboard-help");
    if (dialog && dialog.open) {
      return;
    }
    var key = (event.key || "").toLowerCase();
    if (key !== "s" && key !== "x") {
      return;
    }
    var row = document.querySelector("[data-keynav-item].is-selected");
    if (!row || typeof fetch !== "function") {
      return;
    }
    var article = row.querySelector("article");
    var form = row.querySelector(key === "s" ? "[data-save-form]" : "[data-hide-form]");
    var signIn = row.querySelector("[data-sign-in-to-save]");
    if (!form && signIn) {
      event.preventDefault();
      toast(key === "s" ? "Sign in to save papers to your lists." : "Sign in to hide papers.", {
        href: signIn.getAttribute("href"),
        text: "Sign in",
      });
      return;
    }
    if (!form || (article && article.hidden)) {
      return;
    }
    event.preventDefault();
    if (key === "s") {
      save(form);
    } else {
      hide(form, true);
    }
  });

  /* Copy buttons next to a token shown once. */
  function setupCopy() {
    var buttons = document.querySelectorAll("[data-copy-button]");
    Array.prototype.forEach.call(buttons, function (button) {
      var source = button.parentElement
        ? button.parentElement.querySelector("[data-copy-source]")
        : null;
      if (!source) {
        return;
      }
      button.hidden = false;
      button.addEventListener("click", function () {
        var done = function () {
          button.textContent = "Copied";
        };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(source.value).then(done, function () {
            source.select();
          });
        } else {
          source.select();
          if (document.execCommand && document.execCommand("copy")) {
            done();
          }
        }
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setupCopy);
  } else {
    setupCopy();
  }
})();
