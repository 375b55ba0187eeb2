// Runs app/static/offline/rules.js under Node for the conformance test:
// stdin {"cases": [{"course", "takes"}], "hands": [[5 cards]], "calls": [[name, [args]]]}
// -> stdout {"replays": [{"state", "outcomes"}], "categories": [category], "calls": [result]}
// (`calls`: any function of the module by name, e.g. ["handValue", [["QH", "JK1"], "ru"]]).
"use strict";
const path = require("path");
const rules = require(path.join(__dirname, "..", "..", "app", "static", "offline", "rules.js"));

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const { cases = [], hands = [], calls = [] } = JSON.parse(input);
  const out = {
    replays: cases.map(({ course, takes }) => rules.replay(takes, course)),
    categories: hands.map((hand) => rules.categorise(hand)),
    calls: calls.map(([name, args]) => rules[name](...args)),
  };
  process.stdout.write(JSON.stringify(out));
});
