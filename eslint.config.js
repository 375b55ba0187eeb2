// eslint (flat config) for the front end: app/static, the Node tests and this file.
// Every file of app/static (but the vendored ones) is an ES module: what it shares it
// exports, what it needs it imports; nothing goes through `window` (the rules below).
// Run: `make lint-js` (or `npx eslint` after `npm ci`).
"use strict";
const js = require("@eslint/js");
const globals = require("globals");

// Writing a name onto the global object (`window.x = …`, `globalThis.x = …`).
// (`self` is left alone: the constructors of live-stream.js and table_games.js name
// their object `self`; sw.js only reads what the server set on it.)
const GLOBAL_WRITE = "AssignmentExpression > MemberExpression.left[object.name=/^(window|globalThis)$/]";

module.exports = [
  { ignores: ["app/static/vendor/", "node_modules/", ".venv/", "test-artifacts/"] },
  js.configs.recommended,
  {
    files: ["app/static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      // No window globals: a module exports what it shares.
      "no-restricted-syntax": ["error",
        { selector: GLOBAL_WRITE, message: "Export it from the module instead of putting it on the global object." }],
      "no-restricted-globals": ["error",
        { name: "globalThis", message: "Import what you need; nothing is shared through the global object." }],
      // `catch (e) {}` with `e` unused is kept (the style of these files).
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    // The service worker (a module worker): its own global scope, `self` and caches.
    files: ["app/static/offline/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    // hall.js uses ES2022 syntax.
    files: ["app/static/hall.js"],
    languageOptions: { ecmaVersion: 2022 },
  },
  {
    // Read only: Swagger UI's bundle (vendored, a classic script) defines it first.
    files: ["app/static/docs-init.js"],
    languageOptions: { globals: { SwaggerUIBundle: "readonly" } },
  },
  {
    files: ["eslint.config.js", "tests/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { ...globals.node },
    },
  },
  {
    files: ["tests/**/*.mjs"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node },
    },
  },
];
