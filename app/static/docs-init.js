// Starts Swagger UI on the page's container (no inline script: the CSP allows 'self' only).
// An ES module; SwaggerUIBundle is the vendored bundle's global (a classic script before it).
var node = document.getElementById("swagger-ui");
if (node && typeof SwaggerUIBundle !== "undefined") {
  SwaggerUIBundle({
    url: node.getAttribute("data-openapi-url") || "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    showExtensions: true,
    showCommonExtensions: true
  });
}
