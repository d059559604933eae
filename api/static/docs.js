// The API docs page (/api/docs): Swagger UI over the service's OpenAPI document. A file of its
// own, not an inline script, so the page's Content-Security-Policy needs no 'unsafe-inline'.
"use strict";
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({url: root.dataset.specUrl, dom_id: "#swagger-ui"});
});
