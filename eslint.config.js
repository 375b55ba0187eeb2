// eslint (flat config) for the front end: app/static, the Node tests and this file.
// The browser files are classic scripts (no import/export; they share a few window
// globals, listed per file below), linted as sourceType "script"; the ES modules
// (hall.js) as "module".
// Run: `make lint-js` (or `npx eslint` after `npm ci`).
"use strict";
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  { ignores: ["app/static/vendor/", "node_modules/", ".venv/", "test-artifacts/"] },
  js.configs.recommended,
  {
    files: ["app/static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser },
    },
    rules: {
      // Page scripts share only what they put on `window` explicitly (a stray top-level
      // `var` or function would become a global every other script sees).
      "no-implicit-globals": "error",
      // `catch (e) {}` with `e` unused is kept: the optional catch binding (`catch {}`) is
      // newer syntax than the rest of these ES5-style scripts use, and a syntax error on
      // an old phone would stop the whole script.
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    // Work in a page and under `importScripts` in the service worker, and (rules.js)
    // under Node's require for the tests: UMD-style, `root` is `self` or `this`.
    files: ["app/static/offline/rules.js", "app/static/offline/store.js", "app/static/offline/deck.js"],
    languageOptions: { globals: { ...globals.serviceworker, module: "readonly" } },
  },
  {
    // The service worker has a global scope of its own: its top-level names are its own.
    files: ["app/static/offline/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
    rules: { "no-implicit-globals": "off" },
  },
  {
    // ES modules (`<script type="module">`): their top-level names are the module's own.
    files: ["app/static/hall.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
  },
  {
    // Swagger UI's bundle (vendored) defines this global before docs-init.js runs.
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
];
