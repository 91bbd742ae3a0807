/* Paperscope: hand a freshly made API token to the browser extension.
 *
 * The connect page embeds the token with json_script; this posts it to the page's own origin,
 * where the extension's content script listens:
 *   window.postMessage({type: "paperscope:token", token, server: location.origin}, location.origin)
 * The message is repeated for a few seconds in case the content script starts after this
 * script, until the extension answers {type: "paperscope:token-received"} (optional). The token
 * is also shown in a text field with a Copy button as a fallback.
 */
(function () {
  "use strict";

  var RETRIES = 10;
  var INTERVAL_MS = 1000;

  function start() {
    var data = document.getElementById("paperscope-token");
    if (!data) {
      return;
    }
    var token;
    try {
      token = JSON.parse(data.textContent);
    } catch (error) {
      return;
    }
    if (typeof token !== "string" || !token) {
      return;
    }
    var received = false;
    var sent = 0;
    var message = { type: "paperscope:token", token: token, server: location.origin };

    window.addEventListener("message", function (event) {
      if (event.source !== window || event.origin !== location.origin) {
        return;
      }
      if (event.data && event.data.type === "paperscope:token-received") {
        received = true;
        var status = document.querySelector("[data-connect-status]");
        if (status) {
          status.textContent = "The extension is connected. You can close this tab.";
        }
      }
    });

    function send() {
      if (received || sent >= RETRIES) {
        return;
      }
      sent += 1;
      window.postMessage(message, location.origin);
      window.setTimeout(send, INTERVAL_MS);
    }
    send();

    var button = document.querySelector("[data-copy-button]");
    var source = document.querySelector("[data-copy-source]");
    if (button && source) {
      button.hidden = false;
      button.addEventListener("click", function () {
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(source.value).then(function () {
            button.textContent = "Copied";
          });
        } else {
          source.select();
        }
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
