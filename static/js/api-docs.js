/* Starts Swagger UI (served from our own static files by drf-spectacular-sidecar) on /api/docs/.
 * A static file because the Content-Security-Policy allows no inline script. */
(function () {
  "use strict";
  var container = document.getElementById("api-docs");
  if (!container || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  window.SwaggerUIBundle({
    url: container.getAttribute("data-schema-url"),
    domNode: container,
    // BaseLayout: no top bar with a URL box; validatorUrl null: no badge from validator.swagger.io.
    layout: "BaseLayout",
    validatorUrl: null,
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    // Same-origin requests carry the session cookie; Django wants its CSRF token on writes.
    requestInterceptor: function (request) {
      var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
      if (match) {
        request.headers["X-CSRFToken"] = decodeURIComponent(match[1]);
      }
      return request;
    },
  });
})();
