// Unit tests of what a participant sees on the offline phone and their next step
// (app/static/offline/view.js) under Node's test runner. Every expected value is worked
// out by hand from RULES.md §1.2 (I-1: a card is shown only once seen, a `hand_full`
// take shows none; rule 4 and I-2: discard steps and rounds; rule 6: saving);
// tests/offline/test_view_conformance.py holds the same module to the Python view
// (app/feed/views.py `participant_view`, app/web/phone/pages.py `game_view`).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const V = require("../../app/static/offline/view.js");

const MINUTE = 60 * 1000 * 1000; // µs
const OPENS = Date.UTC(2026, 5, 13, 9, 0) * 1000; // µs since the epoch, UTC
const CLOSES = OPENS + 6 * 60 * MINUTE;

/* A course whose CP number i+1 (id 100+i) holds cards[i]: code `C<card>`, discard code
 * `D<card>`; save codes SAVE1..3. */
function course(cards) {
  const checkpoints = {}, discards = {};
  cards.forEach((card, i) => {
    const ref = { checkpoint_id: 100 + i, number: i + 1, card };
    checkpoints["C" + card] = ref;
    discards["D" + card] = ref;
  });
  return { opens_at: OPENS, closes_at: CLOSES, checkpoints, discards, save_codes: ["SAVE1", "SAVE2", "SAVE3"] };
}

/* Takes of the codes one minute apart (a code may be [code, minutes] for another time). */
function takes(codes) {
  return codes.map((c, i) => {
    const [code, minutes] = Array.isArray(c) ? c : [c, i + 1];
    return { take_id: i + 1, code, taken_at: OPENS + minutes * MINUTE };
  });
}

// RULES.md §1.2's worked example: CP 1 Q♥, 2 Q♦, 3 Q♣, 4 10♠, 5 A♣, 6 K♦, 7 5♣, 8 joker, 9 A♠.
const NINE = ["QH", "QD", "QC", "TS", "AC", "KD", "5C", "JK1", "AS"];
const ROUND_1 = ["CQH", "CQD", "CQC", "CTS", "CAC"];

function view(codes, cards = NINE) {
  return V.participantView(takes(codes), course(cards));
}

/* The parts of a view a page draws (without the engine's state and outcomes). */
function shown(v) {
  const { state, outcomes, ...rest } = v; // eslint-disable-line no-unused-vars
  return rest;
}

test("nothing taken: an empty hand, collect 5 cards, two discard steps and three save codes", () => {
  assert.deepEqual(shown(view([])), {
    deal: 1, round: 1, discarding: false, discards_left: 2, save_codes_left: 3,
    next: "collect", missing: 5, hand: [], combinations: [], takes: [], seen: [],
  });
});

test("a card take shows the card, its CP number and its discard code; the hand shows the discard codes", () => {
  const v = view(["CQH", "CQD"]);
  assert.deepEqual(v.hand, [{ card: "QH", discard_code: "DQH" }, { card: "QD", discard_code: "DQD" }]);
  assert.deepEqual(v.takes[1], {
    take_id: 2, kind: "card", outcome: "counted", reason: null, card: "QD", checkpoint: 2,
    deal: 1, round: 1, discard_code: "DQD",
  });
  assert.equal(v.next, "collect");
  assert.equal(v.missing, 3);
  assert.deepEqual(v.seen, ["QD", "QH"]);
});

test("I-1: a take with a full hand shows no card and consumes nothing; its CP number stays", () => {
  const v = view([...ROUND_1, "CKD"]);
  assert.deepEqual(v.takes[5], {
    take_id: 6, kind: "card", outcome: "rejected", reason: "hand_full", card: null, checkpoint: 6,
    deal: 1, round: 1, discard_code: null,
  });
  assert.deepEqual(v.seen, ["AC", "QC", "QD", "QH", "TS"]); // K♦ was not seen
  assert.equal(v.next, "decide");
  assert.equal(v.missing, 0);
});

test("I-1: a discard code of a card never seen names neither the card nor its CP", () => {
  const v = view([...ROUND_1, "CKD", "DKD"]);
  assert.deepEqual(v.takes[6], {
    take_id: 7, kind: "discard", outcome: "rejected", reason: "card_not_in_hand", card: null,
    checkpoint: null, deal: 1, round: 1, discard_code: null,
  });
});

test("a seen card's discard, a duplicate take and a discard of a card no longer held show the card", () => {
  const v = view([...ROUND_1, "DTS", "CTS", "DTS"]);
  // the discard starts round 2 (rule 4); the repeat of CP 4 is a duplicate (rule 2)
  assert.deepEqual(v.takes.slice(5).map((x) => [x.kind, x.reason, x.card, x.checkpoint, x.round, x.discard_code]), [
    ["discard", null, "TS", 4, 2, null],
    ["card", "duplicate", "TS", 4, 2, null],
    ["discard", "card_not_in_hand", "TS", 4, 2, null],
  ]);
});

test("outside the course window a card is not seen; taken later in the window, it is", () => {
  const early = view([["CQH", -5]]);
  assert.deepEqual([early.takes[0].reason, early.takes[0].card, early.takes[0].checkpoint], ["outside_course_hours", null, null]);
  assert.deepEqual(early.hand, []);
  const both = view([["CQH", -5], ["CQH", 10]]);
  assert.deepEqual(both.takes.map((x) => [x.outcome, x.reason, x.card, x.discard_code]), [
    ["rejected", "outside_course_hours", "QH", null],
    ["counted", null, "QH", "DQH"],
  ]);
});

test("the next step through the seed's worked example (rule 4, I-2) to the save (rule 6)", () => {
  const steps = [
    [ROUND_1, { next: "decide", missing: 0, round: 1, discards_left: 2, discarding: false }],
    [[...ROUND_1, "DTS", "DAC"], { next: "discarding", missing: 2, round: 2, discards_left: 1, discarding: true }],
    [[...ROUND_1, "DTS", "DAC", "CKD"], { next: "draw", missing: 1, round: 2, discards_left: 1, discarding: false }],
    [[...ROUND_1, "DTS", "DAC", "CKD", "C5C"], { next: "decide", missing: 0, round: 2, discards_left: 1, discarding: false }],
    [[...ROUND_1, "DTS", "DAC", "CKD", "C5C", "DKD", "D5C", "CJK1", "CAS"],
      { next: "must_save", missing: 0, round: 3, discards_left: 0, discarding: false }],
  ];
  for (const [codes, expected] of steps) {
    const v = view(codes);
    assert.deepEqual({ next: v.next, missing: v.missing, round: v.round, discards_left: v.discards_left, discarding: v.discarding }, expected, codes.join(" "));
  }
  const saved = view([...ROUND_1, "DTS", "DAC", "CKD", "C5C", "DKD", "D5C", "CJK1", "CAS", "SAVE1"]);
  assert.deepEqual(shown(saved), {
    deal: 2, round: 1, discarding: false, discards_left: 2, save_codes_left: 2, next: "collect", missing: 5,
    hand: [],
    combinations: [{ id: 14, cards: ["QH", "QD", "QC", "JK1", "AS"], category: "four_of_a_kind", deal: 1 }],
    takes: saved.takes,
    seen: ["5C", "AC", "AS", "JK1", "KD", "QC", "QD", "QH", "TS"],
  });
  assert.deepEqual(saved.takes[13], {
    take_id: 14, kind: "save", outcome: "counted", reason: null, card: null, checkpoint: null,
    deal: 1, round: 3, discard_code: null,
  });
});

test("I-2: a discard before the hand is full is refused and the next step stays collect", () => {
  const v = view(["CQH", "CQD", "DQH"]);
  assert.deepEqual([v.takes[2].reason, v.takes[2].card, v.takes[2].checkpoint], ["hand_not_full", "QH", 1]);
  assert.deepEqual([v.next, v.missing, v.round], ["collect", 3, 1]);
});

test("nextStep on states: collect, discarding, draw, decide, must_save", () => {
  const state = (hand, round, steps, inStep) => ({ hand: Array(hand).fill("2S"), round, discard_steps: steps, in_discard_step: inStep });
  assert.deepEqual(V.nextStep(state(0, 1, 0, false)), { next: "collect", missing: 5, discards_left: 2 });
  assert.deepEqual(V.nextStep(state(3, 2, 1, true)), { next: "discarding", missing: 2, discards_left: 1 });
  assert.deepEqual(V.nextStep(state(4, 3, 2, false)), { next: "draw", missing: 1, discards_left: 0 });
  assert.deepEqual(V.nextStep(state(5, 2, 1, false)), { next: "decide", missing: 0, discards_left: 1 });
  assert.deepEqual(V.nextStep(state(5, 3, 2, false)), { next: "must_save", missing: 0, discards_left: 0 });
});

test("shownCard and shownCheckpoint: the one I-1 rule", () => {
  const seen = { QH: true };
  assert.equal(V.shownCard("QH", null, seen), "QH");
  assert.equal(V.shownCard("QH", "hand_full", seen), null);
  assert.equal(V.shownCard("KD", null, seen), null);
  assert.equal(V.shownCard(null, null, seen), null);
  assert.equal(V.shownCheckpoint("KD", "hand_full", 6, seen), 6);
  assert.equal(V.shownCheckpoint("KD", "card_not_in_hand", 6, seen), null);
  assert.equal(V.shownCheckpoint("QH", null, 1, seen), 1);
});
