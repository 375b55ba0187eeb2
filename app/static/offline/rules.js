/* The rogaine rules of RULES.md §1.1–1.2 on the phone: a port of app/feed/rules.py,
 * and of the hand values of app/poker/evaluator.py (§1.3, I-5, I-6: `evaluate`,
 * `partialValue`, `handValue`, the text the server's phone pages show).
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
 * An ES module: the offline shell's modules import it, Node's tests import (or require) it.
 */

var HAND_SIZE = 5;
var MAX_DISCARD_STEPS = 2; // the first starts round 2, the second round 3 (§1.2 rule 4)

var URL_CODE = /\/t\/([^/?#\s]+)\/?(?:[?#].*)?$/i;
var SEPARATORS = /[\s\-_]+/g;

/* app.events.codes.normalize_code: the whole QR URL or the bare code; case, spaces,
 * dashes and underscores ignored. */
// The typed form printed under a CP's QR (app/events/codes.py `typed_lookalikes`):
// 18 characters of TYPED_ALPHABET, what looks like one of them read back as it.
var TYPED_ALPHABET = "0123456789ACEFHJKMNPRTUWXY", TYPED_LENGTH = 18;
var TYPED_LOOKALIKES = { O: "0", D: "0", Q: "0", I: "1", L: "1", Z: "2", S: "5", G: "6", B: "8", V: "U" };
function typedLookalikes(code) {
  if (code.length !== TYPED_LENGTH) return code;
  var mapped = "";
  for (var i = 0; i < code.length; i++) {
    var c = Object.prototype.hasOwnProperty.call(TYPED_LOOKALIKES, code[i]) ? TYPED_LOOKALIKES[code[i]] : code[i];
    if (TYPED_ALPHABET.indexOf(c) < 0) return code;
    mapped += c;
  }
  return mapped;
}
function normalizeCode(text) {
  text = String(text).trim();
  var match = URL_CODE.exec(text);
  if (match) text = match[1];
  return typedLookalikes(text.replace(SEPARATORS, "").toUpperCase());
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

// --- hand values: a port of app/poker/evaluator.py (RULES.md §1.3, I-5, I-6) ---------
/* Ranks are 2..14 (ace 14); a value is [category, tie-break ranks] as the evaluator's
 * value class. Which value a joker hand takes and its description are the same in both
 * presets (I-5; see the evaluator's docstring), so no preset is needed here. */
var RANKS = "23456789TJQKA";
var CATEGORIES = [ // highest first in the `seed` preset
  "five_of_a_kind", "royal_flush", "four_of_a_kind", "straight_flush", "full_house",
  "flush", "straight", "three_of_a_kind", "two_pair", "one_pair", "high_card"
];
var EN = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
  "queen", "king", "ace"];
var EN_PLURAL = ["twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
  "tens", "jacks", "queens", "kings", "aces"];
var RU = ["двойка", "тройка", "четвёрка", "пятёрка", "шестёрка", "семёрка", "восьмёрка",
  "девятка", "десятка", "валет", "дама", "король", "туз"];
var RU_GEN = ["двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки",
  "девятки", "десятки", "валета", "дамы", "короля", "туза"];
var RU_PLURAL = ["двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки",
  "восьмёрки", "девятки", "десятки", "валеты", "дамы", "короли", "тузы"];
var RU_GEN_PLURAL = ["двоек", "троек", "четвёрок", "пятёрок", "шестёрок", "семёрок",
  "восьмёрок", "девяток", "десяток", "валетов", "дам", "королей", "тузов"];

function isJoker(code) { return code.indexOf("JK") === 0; }
function rankOf(code) { return RANKS.indexOf(code[0]) + 2; }

/* Groups of equal ranks, largest first, then highest: [[rank, count], …]. */
function groups(ranks) {
  var counts = {};
  ranks.forEach(function (r) { counts[r] = (counts[r] || 0) + 1; });
  return Object.keys(counts).map(function (r) { return [Number(r), counts[r]]; })
    .sort(function (a, b) { return b[1] - a[1] || b[0] - a[0]; });
}

/* evaluator._classify: the value of 5 standard ranks; ace low only in 5-4-3-2-A. */
function classifyRanks(ranks, flush) {
  var g = groups(ranks), order = [], top = 0;
  var shape = g.map(function (x) { return x[1]; }).join("");
  g.forEach(function (x) { for (var i = 0; i < x[1]; i++) order.push(x[0]); });
  if (shape === "11111") {
    if (order[0] - order[4] === 4) top = order[0];
    else if (order.join() === "14,5,4,3,2") top = 5; // the wheel
  }
  if (top && flush) return [top === 14 ? "royal_flush" : "straight_flush", [top]];
  if (shape === "41") return ["four_of_a_kind", [order[0], order[4]]];
  if (shape === "32") return ["full_house", [order[0], order[3]]];
  if (flush) return ["flush", order];
  if (top) return ["straight", [top]];
  if (shape === "311") return ["three_of_a_kind", [order[0], order[3], order[4]]];
  if (shape === "221") return ["two_pair", [order[0], order[2], order[4]]];
  if (shape === "2111") return ["one_pair", [order[0]].concat(order.slice(2))];
  return ["high_card", order];
}

/* Whether value `a` beats value `b` (the `seed` order; ties inside a category by rank). */
function beats(a, b) {
  var d = CATEGORIES.indexOf(b[0]) - CATEGORIES.indexOf(a[0]);
  for (var i = 0; !d && i < a[1].length; i++) d = a[1][i] - b[1][i];
  return d > 0;
}

/* The value of 5 cards (canonical codes `QH`, `TS`, `JK1`). Jokers (I-6): five of a kind
 * when the most common rank plus the jokers make 5; otherwise each joker stands for a
 * standard card not in the hand (at most 4 of a rank; of the suit of the other cards
 * when they share one) and the best value so reachable counts. */
function valueOf(cards) {
  var naturals = cards.filter(function (c) { return !isJoker(c); });
  var jokers = cards.length - naturals.length, ranks = naturals.map(rankOf);
  var suited = naturals.every(function (c) { return c[1] === naturals[0][1]; });
  if (!jokers) return classifyRanks(ranks, suited);
  var most = groups(ranks)[0];
  if (most[1] + jokers === 5) return ["five_of_a_kind", [most[0]]];
  var best = null;
  function consider(extra) {
    var all = ranks.concat(extra), count = groups(all)[0][1];
    if (count > 4) return;
    var options = [classifyRanks(all, false)];
    if (suited && count === 1) options.push(classifyRanks(all, true));
    options.forEach(function (v) { if (!best || beats(v, best)) best = v; });
  }
  for (var r = 2; r <= 14; r++) {
    if (jokers === 1) consider([r]);
    else for (var q = r; q <= 14; q++) consider([r, q]);
  }
  return best;
}

function names(list, ranks) {
  return ranks.map(function (r) { return list[r - 2]; }).join(", ");
}

/* evaluator._describe: [English, Russian] description of a value. */
function describe(category, t) {
  var a = t[0] - 2, b = t[1] - 2;
  switch (category) {
    case "five_of_a_kind": return ["five of a kind, " + EN_PLURAL[a], "покер " + RU_GEN_PLURAL[a]];
    case "royal_flush": return ["royal flush", "флеш-рояль"];
    case "straight_flush": return ["straight flush, " + EN[a] + " high", "стрит-флеш до " + RU_GEN[a]];
    case "four_of_a_kind": return ["four of a kind, " + EN_PLURAL[a] + ", " + EN[b] + " kicker",
      "каре " + RU_GEN_PLURAL[a] + ", кикер " + RU[b]];
    case "full_house": return ["full house, " + EN_PLURAL[a] + " over " + EN_PLURAL[b],
      "фулл-хаус, тройка " + RU_GEN_PLURAL[a] + " и пара " + RU_GEN_PLURAL[b]];
    case "flush": return ["flush, " + names(EN, t), "флеш, " + names(RU, t)];
    case "straight": return ["straight, " + EN[a] + " high", "стрит до " + RU_GEN[a]];
    case "three_of_a_kind": return ["three of a kind, " + EN_PLURAL[a] + ", kickers " + names(EN, t.slice(1)),
      "тройка " + RU_GEN_PLURAL[a] + ", кикеры " + names(RU, t.slice(1))];
    case "two_pair": return ["two pair, " + EN_PLURAL[a] + " and " + EN_PLURAL[b] + ", " + EN[t[2] - 2] + " kicker",
      "две пары, " + RU_PLURAL[a] + " и " + RU_PLURAL[b] + ", кикер " + RU[t[2] - 2]];
    case "one_pair": return ["one pair, " + EN_PLURAL[a] + ", kickers " + names(EN, t.slice(1)),
      "пара " + RU_GEN_PLURAL[a] + ", кикеры " + names(RU, t.slice(1))];
    default: return ["high card, " + names(EN, t), "старшая карта, " + names(RU, t)];
  }
}

/* evaluator.evaluate, without the strength: {category, description, description_ru}. */
function evaluate(cards) {
  var v = valueOf(cards), text = describe(v[0], v[1]);
  return { category: v[0], description: text[0], description_ru: text[1] };
}

/* The category of a saved 5-card combination (the feed's `categoriser`). */
function categorise(cards) {
  return valueOf(cards)[0];
}

var PARTIAL = { 4: "four_of_a_kind", 3: "three_of_a_kind", 2: "one_pair", 1: "high_card" };

/* evaluator.partial_value: the best category 1 to 4 cards already make, no kickers.
 * All jokers join the largest group (the highest such rank); jokers alone are aces. */
function partialValue(cards) {
  var naturals = cards.filter(function (c) { return !isJoker(c); });
  var g = groups(naturals.map(rankOf)), top = g.length ? g[0] : [14, 0];
  var size = top[1] + cards.length - naturals.length, a = top[0] - 2, en, ru;
  if (size === 2 && g.length > 1 && g[1][1] === 2) {
    var b = g[1][0] - 2;
    return { category: "two_pair", description: "two pair, " + EN_PLURAL[a] + " and " + EN_PLURAL[b],
      description_ru: "две пары, " + RU_PLURAL[a] + " и " + RU_PLURAL[b] };
  }
  if (size === 4) { en = "four of a kind, " + EN_PLURAL[a]; ru = "каре " + RU_GEN_PLURAL[a]; }
  else if (size === 3) { en = "three of a kind, " + EN_PLURAL[a]; ru = "тройка " + RU_GEN_PLURAL[a]; }
  else if (size === 2) { en = "one pair, " + EN_PLURAL[a]; ru = "пара " + RU_GEN_PLURAL[a]; }
  else { en = "high card, " + EN[a]; ru = "старшая карта, " + RU[a]; }
  return { category: PARTIAL[size], description: en, description_ru: ru };
}

/* The hand's value as the server's phone pages show it (app.web.phone.pages.hand_value):
 * the full description of 5 cards, the partial value of 1 to 4, null for none;
 * `lang` "ru" gives the Russian text, anything else the English. */
function handValue(hand, lang) {
  if (!hand.length) return null;
  var v = hand.length === HAND_SIZE ? evaluate(hand) : partialValue(hand);
  return lang === "ru" ? v.description_ru : v.description;
}

export {
  HAND_SIZE, MAX_DISCARD_STEPS, normalizeCode, TYPED_ALPHABET, TYPED_LENGTH,
  initialState, classify, applyTake, replay, fieldOrder, categorise, evaluate,
  partialValue, handValue
};
