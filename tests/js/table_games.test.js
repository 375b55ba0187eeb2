// Unit tests of the table-game pages' shared helpers (app/static/table_games.js, an ES
// module), imported afresh for each test with the few page objects it reads stubbed: strings, the tokens kept on the device and merged
// from a link's `#p=…`, and whose turn this device may play.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { importFresh } = require("./load.js");

/* Values made in the script's context have that context's prototypes: compare as JSON. */
function plain(value) {
  return JSON.parse(JSON.stringify(value));
}

async function page({ strings = {}, hash = "", stored = {}, gameId = "42" } = {}) {
  const elements = {
    strings: { textContent: JSON.stringify(strings) },
    game: { getAttribute: (name) => (name === "data-game-id" ? gameId : null) },
    readonly: { hidden: false },
  };
  const storage = new Map(Object.entries(stored).map(([k, v]) => [k, JSON.stringify(v)]));
  const replaced = [];
  const G = await importFresh("table_games.js", {
    document: { getElementById: (id) => elements[id] || null },
    location: { hash, pathname: "/tables/dice/" + gameId },
    history: { replaceState: (state, title, url) => replaced.push(url) },
    localStorage: {
      getItem: (k) => (storage.has(k) ? storage.get(k) : null),
      setItem: (k, v) => storage.set(k, String(v)),
    },
  });
  return { G, elements, storage, replaced };
}

test("t: a page string with its {placeholders} filled, the key itself when missing", async () => {
  const { G } = await page({ strings: { "dice.turn": "{name} to roll ({name}, roll {n})" } });
  assert.equal(G.t("dice.turn", { name: "Anna", n: 2 }), "Anna to roll (Anna, roll 2)");
  assert.equal(G.t("dice.turn"), "{name} to roll ({name}, roll {n})");
  assert.equal(G.t("dice.missing"), "dice.missing");
});

test("a /g/ link's one token is merged with the tokens this device keeps, then the hash is dropped", async () => {
  const { G, elements, storage, replaced } = await page({
    hash: "#p=,seat0",
    stored: { "rogaine-game-42": { table_token: null, player_tokens: ["", "seat1"] } },
  });
  const game = new G.GamePage(() => {});
  const expected = { table_token: null, player_tokens: ["seat0", "seat1"] };
  assert.deepEqual(plain(game.tokens), expected);
  assert.deepEqual(JSON.parse(storage.get("rogaine-game-42")), expected);
  assert.deepEqual(replaced, ["/tables/dice/42"]);
  assert.equal(elements.readonly.hidden, true);
});

test("no link and no kept tokens: the page is read-only", async () => {
  const { G, elements, replaced } = await page();
  const game = new G.GamePage(() => {});
  assert.equal(game.tokens, null);
  assert.equal(elements.readonly.hidden, false);
  assert.deepEqual(replaced, []);
});

test("canAct: a seat's token acts only on that seat's turn; the table's token on any", async () => {
  const { G } = await page();
  const act = (tokens, game, busy = false) =>
    Object.assign(Object.create(G.GamePage.prototype), { tokens, game, busy }).canAct();
  const seat0 = { table_token: null, player_tokens: ["s0", ""] };
  const table = { table_token: "tt", player_tokens: [] };
  const turn = (seat, over = false) => ({ is_over: over, current_players: [seat] });
  assert.equal(act(seat0, turn(0)), true);
  assert.equal(act(seat0, turn(1)), false);
  assert.equal(act(table, turn(1)), true);
  assert.equal(act(table, turn(1, true)), false);
  assert.equal(act(table, turn(1), true), false);
  assert.equal(act(null, turn(0)), false);
});
