// Unit tests of the phone's rules engine (app/static/offline/rules.js) under Node's test
// runner. Every expected value is worked out by hand from RULES.md §1.2–1.3 (I-1, I-2,
// I-4, I-6); the differential test tests/offline/test_rules_conformance.py holds the
// same engine to the Python one on random sequences.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const R = require("../../app/static/offline/rules.js");
const { importFresh } = require("./load.js");

const MINUTE = 60 * 1000 * 1000; // µs
const OPENS = Date.UTC(2026, 5, 13, 9, 0) * 1000; // µs since the epoch, UTC
const CLOSES = OPENS + 6 * 60 * MINUTE;

/* A course whose CP `C<card>` holds <card> and whose discard code is `D<card>`. */
function course(cards, saveCodes = ["SAVE1", "SAVE2", "SAVE3"]) {
  const checkpoints = {}, discards = {};
  cards.forEach((card, i) => {
    const ref = { checkpoint_id: 100 + i, number: i + 1, card };
    checkpoints["C" + card] = ref;
    discards["D" + card] = ref;
  });
  return { opens_at: OPENS, closes_at: CLOSES, checkpoints, discards, save_codes: saveCodes };
}

/* Takes of the codes one minute apart, received in field order. */
function takes(codes) {
  return codes.map((code, i) => ({ take_id: i + 1, code, taken_at: OPENS + (i + 1) * MINUTE }));
}

function play(cards, codes) {
  return R.replay(takes(codes), course(cards));
}

function results(outcomes) {
  return outcomes.map((o) => (o.outcome === "counted" ? "counted" : o.reason));
}

const NINE = ["QH", "QD", "QC", "TS", "AC", "KD", "5C", "JK1", "AS"];

test("the seed's worked example: four of a kind, queens (RULES.md §1.2)", () => {
  const r = play(NINE, [
    "CQH", "CQD", "CQC", "CTS", "CAC", // round 1
    "DTS", "DAC", "CKD", "C5C", // round 2
    "DKD", "D5C", "CJK1", "CAS", // round 3
    "DQH", "SAVE1", // no third discard step; save
  ]);
  assert.deepEqual(results(r.outcomes), [
    "counted", "counted", "counted", "counted", "counted",
    "counted", "counted", "counted", "counted",
    "counted", "counted", "counted", "counted",
    "no_discards_left", "counted",
  ]);
  assert.deepEqual(r.outcomes.map((o) => o.round), [1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]);
  assert.deepEqual(r.state.combinations, [{
    id: 15, cards: ["QH", "QD", "QC", "JK1", "AS"], category: "four_of_a_kind",
    deal: 1, saved_at: OPENS + 15 * MINUTE,
  }]);
  assert.equal(R.evaluate(["QH", "QD", "QC", "JK1", "AS"]).description, "four of a kind, queens, ace kicker");
  assert.deepEqual(
    { hand: r.state.hand, deal: r.state.deal, round: r.state.round, steps: r.state.discard_steps },
    { hand: [], deal: 2, round: 1, steps: 0 },
  );
});

test("a 6th card is refused with hand_full and its CP is not consumed (I-1)", () => {
  const r = play(NINE, ["CQH", "CQD", "CQC", "CTS", "CAC", "CKD", "DTS", "CKD"]);
  assert.deepEqual(results(r.outcomes), [
    "counted", "counted", "counted", "counted", "counted", "hand_full", "counted", "counted",
  ]);
  assert.deepEqual(r.outcomes[5].round, 1);
  // after the discard of 10♠ the same CP counts, in round 2
  assert.deepEqual(r.state.hand, ["QH", "QD", "QC", "AC", "KD"]);
  assert.deepEqual(r.state.taken, ["QH", "QD", "QC", "TS", "AC", "KD"]);
  assert.equal(r.state.round, 2);
});

test("a CP already counted is a duplicate, also after its card was discarded (§1.2 rule 2)", () => {
  const r = play(NINE, ["CQH", "CQH", "CQD", "CQC", "CTS", "CAC", "DQH", "CQH"]);
  assert.deepEqual(results(r.outcomes), [
    "counted", "duplicate", "counted", "counted", "counted", "counted", "counted", "duplicate",
  ]);
  assert.deepEqual(r.state.hand, ["QD", "QC", "TS", "AC"]);
});

test("a discard code removes its card; one step of several codes is one round (§1.2 rule 4)", () => {
  const r = play(NINE, ["CQH", "CQD", "CQC", "CTS", "CAC", "DQD"]);
  assert.deepEqual(r.state.hand, ["QH", "QC", "TS", "AC"]);
  assert.deepEqual([r.state.round, r.state.discard_steps, r.state.in_discard_step], [2, 1, true]);
  const two = play(NINE, ["CQH", "CQD", "CQC", "CTS", "CAC", "DQD", "DAC", "CKD"]);
  assert.deepEqual(two.state.hand, ["QH", "QC", "TS", "KD"]);
  assert.deepEqual([two.state.round, two.state.discard_steps, two.state.in_discard_step], [2, 1, false]);
});

test("discards are refused: hand not full (I-2), card not in hand, no third step", () => {
  const notFull = play(NINE, ["CQH", "CQD", "DQH"]);
  assert.deepEqual(results(notFull.outcomes), ["counted", "counted", "hand_not_full"]);
  assert.deepEqual(notFull.state.hand, ["QH", "QD"]);
  assert.equal(notFull.state.round, 1);

  const notInHand = play(NINE, ["CQH", "CQD", "CQC", "CTS", "CAC", "DKD"]);
  assert.equal(results(notInHand.outcomes)[5], "card_not_in_hand");
  assert.equal(notInHand.state.round, 1);

  const third = play(NINE, [
    "CQH", "CQD", "CQC", "CTS", "CAC", "DTS", "CKD", "DKD", "C5C", "DQH",
  ]);
  assert.deepEqual(results(third.outcomes).slice(5), ["counted", "counted", "counted", "counted", "no_discards_left"]);
  assert.deepEqual(third.state.hand, ["QH", "QD", "QC", "AC", "5C"]);
  assert.equal(third.state.round, 3);
});

test("a save code with 5 cards saves a combination; with 4 it is refused and stays unused (§1.2 rule 6)", () => {
  const r = play(NINE, ["CQH", "CQD", "CQC", "CTS", "SAVE1", "CAC", "SAVE1", "CKD", "C5C", "CJK1", "CAS", "CTS", "SAVE1", "SAVE2", "OTHER"]);
  assert.deepEqual(results(r.outcomes), [
    "counted", "counted", "counted", "counted", "hand_not_full", "counted", "counted",
    "counted", "counted", "counted", "counted", "duplicate", "code_already_used", "hand_not_full", "unknown_code",
  ]);
  // SAVE2 found 4 cards in the second deal: refused, and still unused; OTHER is no one's
  assert.deepEqual(r.state.combinations.map((c) => [c.id, c.cards, c.category, c.deal]), [
    [7, ["QH", "QD", "QC", "TS", "AC"], "three_of_a_kind", 1],
  ]);
  assert.deepEqual(r.state.hand, ["KD", "5C", "JK1", "AS"]);
  assert.deepEqual(r.state.used_save_codes, ["SAVE1"]);
  assert.deepEqual([r.state.deal, r.state.round], [2, 1]);
});

test("takes outside the course window are rejected; the window is [opens, closes) (§1.1)", () => {
  const c = course(NINE);
  const list = [
    { take_id: 1, code: "CQH", taken_at: OPENS - 1 },
    { take_id: 2, code: "CQD", taken_at: OPENS },
    { take_id: 3, code: "CQC", taken_at: CLOSES - 1 },
    { take_id: 4, code: "CTS", taken_at: CLOSES },
  ];
  const r = R.replay(list, c);
  assert.deepEqual(results(r.outcomes), ["outside_course_hours", "counted", "counted", "outside_course_hours"]);
  assert.deepEqual(r.state.hand, ["QD", "QC"]);
});

test("takes apply in field-time order, then order of receipt; a late take changes later outcomes (I-4)", () => {
  const c = course(NINE);
  const t = (id, code, minute) => ({ take_id: id, code, taken_at: OPENS + minute * MINUTE });
  const five = [t(1, "CQH", 1), t(2, "CQD", 2), t(3, "CQC", 3), t(4, "CTS", 4), t(5, "CAC", 5)];
  const before = R.replay(five.concat([t(6, "CKD", 7)]), c);
  assert.equal(results(before.outcomes)[5], "hand_full");
  // SAVE1 reaches the server later (id 7) but was entered in the field before K♦
  const after = R.replay(five.concat([t(6, "CKD", 7), t(7, "SAVE1", 6)]), c);
  assert.deepEqual(after.outcomes.map((o) => o.take_id), [1, 2, 3, 4, 5, 7, 6]);
  assert.deepEqual(results(after.outcomes).slice(5), ["counted", "counted"]);
  assert.deepEqual(after.state.hand, ["KD"]);
  assert.equal(after.state.deal, 2);
  // equal field times: order of receipt
  const tie = R.replay([t(2, "CQD", 1), t(1, "CQH", 1)], c);
  assert.deepEqual(tie.outcomes.map((o) => o.take_id), [1, 2]);
});

test("applyTake returns a new state and leaves the old one as it was", () => {
  const c = course(NINE);
  const s0 = R.initialState();
  const [s1, o1] = R.applyTake(s0, { take_id: 1, code: "CQH", taken_at: OPENS }, c);
  assert.deepEqual(s0, R.initialState());
  assert.deepEqual(s1.hand, ["QH"]);
  assert.deepEqual(o1, {
    take_id: 1, kind: "card", outcome: "counted", reason: null, card: "QH",
    checkpoint_id: 100, deal: 1, round: 1,
  });
});

test("codes are read as the server's normaliser reads them (app/events/codes.py)", () => {
  assert.equal(R.normalizeCode("https://poker.example/t/cp-01code/?utm=1"), "CP01CODE");
  assert.equal(R.normalizeCode("https://poker.example/t/ab#x"), "AB");
  assert.equal(R.normalizeCode("  ab_c d-e "), "ABCDE");
  // 18 characters: look-alikes read as the typed alphabet's characters
  assert.equal(R.normalizeCode("oizs-gbva 0123 456789"), "012568UA0123456789");
  // not 18 characters, or a character that is no look-alike: left as it is
  assert.equal(R.normalizeCode("OIZSGBVA012345678"), "OIZSGBVA012345678");
  assert.equal(R.normalizeCode("OIZSGBVA01234567!K"), "OIZSGBVA01234567!K");
  assert.equal(R.classify(course(NINE), "cqh")[0], "card");
  assert.equal(R.classify(course(NINE), "d-qh")[0], "discard");
  assert.deepEqual(R.classify(course(NINE), "save 1"), ["save", null, "SAVE1"]);
});

test("hand values (RULES.md §1.3, I-6)", () => {
  const en = (cards) => R.evaluate(cards).description;
  assert.equal(en(["AD", "2D", "3S", "4H", "5D"]), "straight, five high");
  assert.equal(en(["QH", "KD", "AS", "2C", "3H"]), "high card, ace, king, queen, three, two");
  assert.equal(en(["AS", "2S", "3S", "4S", "JK1"]), "straight flush, five high");
  assert.equal(en(["AH", "AD", "AC", "AS", "JK2"]), "five of a kind, aces");
  assert.equal(en(["KS", "JS", "8S", "4S", "JK1"]), "flush, ace, king, jack, eight, four");
  assert.equal(en(["2C", "7D", "KH", "JK1", "JK2"]), "three of a kind, kings, kickers seven, two");
  assert.equal(en(["TH", "TD", "TS", "8C", "8H"]), "full house, tens over eights");
  assert.equal(R.evaluate(["AH", "KH", "QH", "JH", "TH"]).category, "royal_flush");
  assert.equal(R.evaluate(["QH", "QD", "QC", "JK1", "AS"]).description_ru, "каре дам, кикер туз");
  assert.equal(R.categorise(["8C", "8S", "4H", "4C", "2D"]), "two_pair");
});

test("the hand's value as the phone shows it: partial for 1–4 cards, none for no card", () => {
  assert.equal(R.handValue([], "en"), null);
  assert.equal(R.handValue(["JK1"], "en"), "high card, ace");
  assert.equal(R.handValue(["QH", "QD"], "ru"), "пара дам");
  assert.equal(R.handValue(["QH", "QD", "JK1"], "en"), "three of a kind, queens");
  assert.equal(R.handValue(["8C", "8S", "4H", "4C"], "en"), "two pair, eights and fours");
  assert.equal(R.handValue(["QH", "QD", "QC", "JK1", "AS"], "fr"), "four of a kind, queens, ace kicker");
});

test("loaded as a page loads it (an ES module), it puts nothing on the global object", async () => {
  const before = Object.keys(globalThis).sort();
  const page = await importFresh("offline/rules.js");
  assert.equal(typeof page.replay, "function");
  assert.equal(page.normalizeCode("https://x.example/t/ab-c"), "ABC");
  assert.equal(page.HAND_SIZE, 5);
  assert.deepEqual(Object.keys(globalThis).sort(), before);
});
