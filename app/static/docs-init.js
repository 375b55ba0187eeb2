// Starts Swagger UI on the page's container (no inline script: the CSP allows 'self' only).
(function () {
  "use strict";
  var node = document.getElementById("swagger-ui");
  if (!node || typeof SwaggerUIBundle === "undefined") return;
  window.ui = SwaggerUIBundle({
    url: node.getAttribute("data-openapi-url") || "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    showExtensions: true,
    showCommonExtensions: true
  });
})();
