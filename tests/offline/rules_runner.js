// Runs app/static/offline/rules.js under Node for the conformance test:
// stdin {"cases": [{"course", "takes"}]} -> stdout [{"state", "outcomes"}].
"use strict";
const path = require("path");
const rules = require(path.join(__dirname, "..", "..", "app", "static", "offline", "rules.js"));

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const { cases } = JSON.parse(input);
  const out = cases.map(({ course, takes }) => rules.replay(takes, course));
  process.stdout.write(JSON.stringify(out));
});
