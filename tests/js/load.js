// Loads an ES module of app/static afresh, as a page's <script type="module"> would, with
// the page objects it reads (`globals`: document, location, …) put on Node's global
// object first; each call evaluates the module again (a new query string), so a test's
// stubs are the ones its module sees. The stubs stay until the next call (the tests of
// a file run one after another).
"use strict";
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const STATIC = path.join(__dirname, "..", "..", "app", "static");
let loads = 0;

async function importFresh(relative, globals = {}) {
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  loads += 1;
  const url = pathToFileURL(path.join(STATIC, relative)).href + "?load=" + loads;
  return import(url);
}

module.exports = { STATIC, importFresh };
