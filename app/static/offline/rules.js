/* The rogaine rules of RULES.md §1.1–1.2 on the phone: a port of app/feed/rules.py.
 *
 * Pure: no DOM, no network, no clock. The same fold as the Python engine, so the
 * hand the phone shows offline is the one the server will compute; the
 * conformance test (tests/offline/test_rules_conformance.py) runs thousands of
 * random take sequences through both and compares every outcome and state.
 *
 * Shapes (plain JSON, as the Python engine's `to_json`):
 *   course: {opens_at, closes_at (µs since the epoch, UTC), checkpoints: {code: cp},
 *            discards: {code: cp}, save_codes: [code]}, cp = {checkpoint_id, number, card}
 *            (card may be null for a discard code whose CP the device cannot open);
 *   take:   {take_id (order of receipt), code, taken_at (µs since the epoch)};
 *   state:  {hand, deal, round, discard_steps, in_discard_step, taken, used_save_codes,
 *            combinations: [{id, cards, category, deal, saved_at (µs)}]};
 *   outcome:{take_id, kind, outcome, reason, card, checkpoint_id, deal, round}.
 * Works as a browser global (`RogainePokerRules`) and as a Node module.
 */
(function (root) {
  "use strict";

  var HAND_SIZE = 5;
  var MAX_DISCARD_STEPS = 2; // the first starts round 2, the second round 3 (§1.2 rule 4)

  var URL_CODE = /\/t\/([^\/?#\s]+)\/?(?:[?#].*)?$/i;
  var SEPARATORS = /[\s\-_]+/g;

  /* app.events.codes.normalize_code: the whole QR URL or the bare code; case, spaces,
   * dashes and underscores ignored. */
  function normalizeCode(text) {
    text = String(text).trim();
    var match = URL_CODE.exec(text);
    if (match) text = match[1];
    return text.replace(SEPARATORS, "").toUpperCase();
  }

  function initialState() {
    return {
      hand: [], deal: 1, round: 1, discard_steps: 0, in_discard_step: false,
      taken: [], used_save_codes: [], combinations: []
    };
  }

  function copyState(s) {
    return {
      hand: s.hand.slice(), deal: s.deal, round: s.round, discard_steps: s.discard_steps,
      in_discard_step: s.in_discard_step, taken: s.taken.slice(),
      used_save_codes: s.used_save_codes.slice(), combinations: s.combinations.slice()
    };
  }

  var own = Object.prototype.hasOwnProperty;

  /* Course.classify: [kind, cp or null, normalised code]. */
  function classify(course, code) {
    var n = normalizeCode(code);
    if (own.call(course.checkpoints, n)) return ["card", course.checkpoints[n], n];
    if (own.call(course.discards, n)) return ["discard", course.discards[n], n];
    if (course.save_codes.indexOf(n) >= 0) return ["save", null, n];
    return ["unknown", null, n];
  }

  function outcome(take, kind, result, reason, cp, state) {
    return {
      take_id: take.take_id, kind: kind, outcome: result, reason: reason,
      card: cp ? cp.card : null, checkpoint_id: cp ? cp.checkpoint_id : null,
      deal: state.deal, round: state.round
    };
  }

  /* rules.apply_take: [new state, outcome]; `state` is not modified. */
  function applyTake(state, take, course) {
    var c = classify(course, take.code), kind = c[0], cp = c[1], normalised = c[2];
    if (!(course.opens_at <= take.taken_at && take.taken_at < course.closes_at)) {
      return [state, outcome(take, kind, "rejected", "outside_course_hours", cp, state)];
    }
    var next;
    if (kind === "card") {
      if (state.taken.indexOf(cp.card) >= 0) {
        return [state, outcome(take, kind, "rejected", "duplicate", cp, state)];
      }
      if (state.hand.length >= HAND_SIZE) { // RULES.md I-1: the CP is not consumed
        return [state, outcome(take, kind, "rejected", "hand_full", cp, state)];
      }
      next = copyState(state);
      next.hand.push(cp.card);
      next.taken.push(cp.card);
      next.in_discard_step = false;
      return [next, outcome(take, kind, "counted", null, cp, next)];
    }
    if (kind === "discard") {
      if (cp.card === null || state.hand.indexOf(cp.card) < 0) {
        return [state, outcome(take, kind, "rejected", "card_not_in_hand", cp, state)];
      }
      next = copyState(state);
      if (!state.in_discard_step) {
        if (state.discard_steps >= MAX_DISCARD_STEPS) {
          return [state, outcome(take, kind, "rejected", "no_discards_left", cp, state)];
        }
        if (state.hand.length !== HAND_SIZE) { // RULES.md I-2
          return [state, outcome(take, kind, "rejected", "hand_not_full", cp, state)];
        }
        next.discard_steps += 1;
        next.round += 1;
        next.in_discard_step = true;
      }
      next.hand = next.hand.filter(function (card) { return card !== cp.card; });
      return [next, outcome(take, kind, "counted", null, cp, next)];
    }
    if (kind === "save") {
      if (state.used_save_codes.indexOf(normalised) >= 0) {
        return [state, outcome(take, kind, "rejected", "code_already_used", null, state)];
      }
      if (state.hand.length !== HAND_SIZE) {
        return [state, outcome(take, kind, "rejected", "hand_not_full", null, state)];
      }
      var result = outcome(take, kind, "counted", null, null, state);
      next = copyState(state);
      next.combinations.push({
        id: take.take_id, cards: state.hand.slice(), category: categorise(state.hand),
        deal: state.deal, saved_at: take.taken_at
      });
      next.hand = [];
      next.deal += 1;
      next.round = 1;
      next.discard_steps = 0;
      next.in_discard_step = false;
      next.used_save_codes.push(normalised);
      return [next, result];
    }
    return [state, outcome(take, kind, "rejected", "unknown_code", null, state)];
  }

  /* rules.field_order (RULES.md I-4): field time, then order of receipt. */
  function fieldOrder(a, b) {
    return a.taken_at - b.taken_at || a.take_id - b.take_id;
  }

  /* rules.replay: {state, outcomes} with the outcomes in field-time order. */
  function replay(takes, course, state) {
    state = state || initialState();
    var outcomes = [];
    takes.slice().sort(fieldOrder).forEach(function (take) {
      var r = applyTake(state, take, course);
      state = r[0];
      outcomes.push(r[1]);
    });
    return { state: state, outcomes: outcomes };
  }

  // --- the category of a saved combination (RULES.md §1.3, I-6) -------------------------
  var RANKS = "23456789TJQKA", SUITS = "SHDC";
  var CATEGORIES = [ // highest first (preset `seed`; the best reachable one is the same
    "five_of_a_kind", "royal_flush", "four_of_a_kind", "straight_flush", "full_house",
    "flush", "straight", "three_of_a_kind", "two_pair", "one_pair", "high_card"
  ]; // in `classic`, app/poker/evaluator.py)

  function categoryOfNaturals(cards) {
    var counts = {}, ranks = [], flush = true;
    cards.forEach(function (card) {
      var r = RANKS.indexOf(card[0]);
      counts[r] = (counts[r] || 0) + 1;
      ranks.push(r);
      if (card[1] !== cards[0][1]) flush = false;
    });
    var shape = Object.keys(counts).map(function (k) { return counts[k]; })
      .sort(function (a, b) { return b - a; });
    var distinct = ranks.slice().sort(function (a, b) { return a - b; });
    var straight = false, aceHigh = false;
    if (shape.length === 5) {
      if (distinct[4] - distinct[0] === 4) { straight = true; aceHigh = distinct[4] === 12; }
      else if (distinct.join() === "0,1,2,3,12") straight = true; // the wheel, 5-high
    }
    if (straight && flush) return aceHigh ? "royal_flush" : "straight_flush";
    if (shape[0] === 4) return "four_of_a_kind";
    if (shape[0] === 3 && shape[1] === 2) return "full_house";
    if (flush) return "flush";
    if (straight) return "straight";
    if (shape[0] === 3) return "three_of_a_kind";
    if (shape[0] === 2 && shape[1] === 2) return "two_pair";
    if (shape[0] === 2) return "one_pair";
    return "high_card";
  }

  /* The category of a 5-card hand (canonical codes `QH`, `TS`, `JK1`): jokers stand for
   * the best standard card not already in the hand; five of a kind when the most common
   * rank plus the jokers make 5 (I-6). */
  function categorise(cards) {
    var naturals = cards.filter(function (c) { return c.indexOf("JK") !== 0; });
    var jokers = cards.length - naturals.length;
    if (jokers === 0) return categoryOfNaturals(naturals);
    var most = 0, counts = {};
    naturals.forEach(function (c) { counts[c[0]] = (counts[c[0]] || 0) + 1; most = Math.max(most, counts[c[0]]); });
    if (most + jokers === 5) return "five_of_a_kind";
    var free = [];
    for (var s = 0; s < 4; s++) for (var r = 0; r < 13; r++) {
      var card = RANKS[r] + SUITS[s];
      if (naturals.indexOf(card) < 0) free.push(card);
    }
    var best = CATEGORIES.length;
    function consider(hand) {
      var level = CATEGORIES.indexOf(categoryOfNaturals(hand));
      if (level < best) best = level;
    }
    for (var i = 0; i < free.length; i++) {
      if (jokers === 1) consider(naturals.concat([free[i]]));
      else for (var j = i + 1; j < free.length; j++) consider(naturals.concat([free[i], free[j]]));
    }
    return CATEGORIES[best];
  }

  var api = {
    HAND_SIZE: HAND_SIZE, MAX_DISCARD_STEPS: MAX_DISCARD_STEPS, normalizeCode: normalizeCode,
    initialState: initialState, classify: classify, applyTake: applyTake, replay: replay,
    fieldOrder: fieldOrder, categorise: categorise
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.RogainePokerRules = api;
})(typeof self !== "undefined" ? self : this);
