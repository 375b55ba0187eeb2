// Loads a classic browser script of app/static into a fresh `vm` context, as a page's
// <script> would: `globals` become the context's global object (`window` and `self`
// point to it), and the context is returned to read what the script put there.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const STATIC = path.join(__dirname, "..", "..", "app", "static");

function loadScript(relative, globals = {}) {
  const file = path.join(STATIC, relative);
  const context = vm.createContext({ ...globals });
  context.window = context;
  context.self = context;
  vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
  return context;
}

module.exports = { STATIC, loadScript };
