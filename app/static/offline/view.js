/* What a participant sees of their game, and what to do next: the one place of the
 * offline shell for RULES.md I-1 (a card is shown only once the participant has seen it;
 * a `hand_full` take consumes nothing and shows no card) and §1.2 rule 4 (the next step).
 * The phone's copy of what the server builds for /me: app/feed/views.py
 * `participant_view` (the seen cards, the hidden cards of the log, the discard codes) and
 * app/web/phone/pages.py `game_view` (the next step).
 *
 * Pure: no DOM, no clock, no storage. tests/js/view.test.js checks it on worked examples;
 * tests/offline/test_view_conformance.py holds it to the Python view on random take
 * sequences (seeded), run through the feed.
 *
 * Shapes: `takes` and `course` as rules.js `replay` takes them (µs since the epoch, UTC);
 * a course's refs {checkpoint_id, number, card}. `participantView` gives
 *   {deal, round, discarding, discards_left, save_codes_left, next, missing,
 *    hand: [{card, discard_code}], combinations: [{id, cards, category, deal}],
 *    takes: [{take_id, kind, outcome, reason, card, checkpoint, deal, round,
 *             discard_code}] (field-time order), seen: [card] (sorted),
 *    state (the engine's), outcomes (the engine's, every card in them)}.
 */
import { HAND_SIZE, MAX_DISCARD_STEPS, replay } from "./rules.js";

var own = Object.prototype.hasOwnProperty;
var HAND_FULL = "hand_full";
// Card takes whose card stays unseen (app/feed/views.py UNSEEN_REASONS): nothing counts
// outside the course window, a full hand does not consume the CP. A voided take is not
// replayed at all, so it shows nothing either.
var UNSEEN_REASONS = ["outside_course_hours", HAND_FULL];

/* The cards the participant has seen ({card: true}): those of card takes in the course
 * window that did not meet a full hand (RULES.md I-1; `seen_cards`). */
export function seenCards(outcomes) {
  var seen = {};
  outcomes.forEach(function (o) {
    if (o.kind === "card" && o.card && UNSEEN_REASONS.indexOf(o.reason) < 0) seen[o.card] = true;
  });
  return seen;
}

/* A take's card as its participant sees it: the card when seen and the take was not
 * refused as `hand_full`, else null (RULES.md I-1; `_card_hidden`). */
export function shownCard(card, reason, seen) {
  return card && own.call(seen, card) && reason !== HAND_FULL ? card : null;
}

/* A take's CP number as its participant sees it (`_hidden_card`): with a shown card; a
 * `hand_full` take keeps it (they stood there; numbers are public); with a hidden card
 * none (it would tell which CP a discard code belongs to). */
export function shownCheckpoint(card, reason, checkpoint, seen) {
  if (!card || shownCard(card, reason, seen)) return checkpoint;
  return reason === HAND_FULL ? checkpoint : null;
}

/* The next step of a state (app/web/phone/pages.py `game_view`, RULES.md §1.2 rule 4):
 * `collect` (round 1, hand not full), `discarding` (inside a discard step: more discard
 * codes, or draw), `draw` (after a discard step), `decide` (full hand, a discard step
 * left: discard or save), `must_save` (full hand, no discard step left); with `missing`
 * cards to a full hand and `discards_left` steps. */
export function nextStep(state) {
  var missing = HAND_SIZE - state.hand.length;
  var discardsLeft = MAX_DISCARD_STEPS - state.discard_steps, next;
  if (missing > 0) next = state.round === 1 ? "collect" : state.in_discard_step ? "discarding" : "draw";
  else next = discardsLeft > 0 ? "decide" : "must_save";
  return { next: next, missing: missing, discards_left: discardsLeft };
}

/* {card: discard code} and {checkpoint_id: CP number} of a course's refs. */
function courseIndex(course) {
  var discardOf = {}, numbers = {};
  Object.keys(course.discards).forEach(function (code) {
    var ref = course.discards[code];
    if (ref.card) discardOf[ref.card] = code;
    numbers[ref.checkpoint_id] = ref.number;
  });
  Object.keys(course.checkpoints).forEach(function (code) {
    var ref = course.checkpoints[code];
    numbers[ref.checkpoint_id] = ref.number;
  });
  return { discardOf: discardOf, numbers: numbers };
}

/* One take of the log as the participant sees it; `discard_code` with a counted card
 * take's card (`ParticipantView.take_discard_code`). */
function shownTake(o, seen, index) {
  var card = shownCard(o.card, o.reason, seen);
  var number = o.checkpoint_id === null ? null : own.call(index.numbers, o.checkpoint_id) ? index.numbers[o.checkpoint_id] : null;
  return {
    take_id: o.take_id, kind: o.kind, outcome: o.outcome, reason: o.reason, card: card,
    checkpoint: shownCheckpoint(o.card, o.reason, number, seen), deal: o.deal, round: o.round,
    discard_code: card && o.kind === "card" && o.outcome === "counted" && own.call(index.discardOf, card)
      ? index.discardOf[card] : null
  };
}

/* The participant's view of their game after `takes` on `course` (shape above). */
export function participantView(takes, course) {
  var r = replay(takes, course), s = r.state, seen = seenCards(r.outcomes);
  var index = courseIndex(course), step = nextStep(s);
  return {
    deal: s.deal, round: s.round, discarding: s.in_discard_step,
    discards_left: step.discards_left,
    save_codes_left: course.save_codes.length - s.used_save_codes.length,
    next: step.next, missing: step.missing,
    hand: s.hand.map(function (card) {
      return { card: card, discard_code: own.call(index.discardOf, card) ? index.discardOf[card] : null };
    }),
    combinations: s.combinations.map(function (c) {
      return { id: c.id, cards: c.cards.slice(), category: c.category, deal: c.deal };
    }),
    takes: r.outcomes.map(function (o) { return shownTake(o, seen, index); }),
    seen: Object.keys(seen).sort(),
    state: s, outcomes: r.outcomes
  };
}
