// Runs app/static/offline/view.js under Node for the view conformance test:
// stdin {"cases": [{"course", "takes"}]} -> stdout {"views": [participantView without the
// engine's `state` and `outcomes`]} (tests/offline/test_view_conformance.py).
"use strict";
const path = require("path");
const { participantView } = require(path.join(__dirname, "..", "..", "app", "static", "offline", "view.js"));

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const { cases = [] } = JSON.parse(input);
  const views = cases.map(({ course, takes }) => {
    const { state, outcomes, ...shown } = participantView(takes, course); // eslint-disable-line no-unused-vars
    return shown;
  });
  process.stdout.write(JSON.stringify({ views }));
});
