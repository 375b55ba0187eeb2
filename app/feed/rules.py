"""The rogaine rules of RULES.md §1.1–1.2 as a pure fold over one participant's takes.

No database, no HTTP, no clock. The service hands the engine a `Course` (the
course window and the codes of the event and of this participant) and the
participant's takes in field-time order (RULES.md I-4: `taken_at`, then the
order of receipt); the engine returns the participant's `PlayState` and one
`Outcome` per take.

`PlayState` is plain data and round-trips through JSON (`to_json` /
`from_json`), so the service stores it and applies later takes incrementally:
`replay(takes) == apply each take in turn to the stored state`.

Reasons (API.md): `outside_course_hours`, `hand_full`, `duplicate`,
`hand_not_full`, `no_discards_left`, `card_not_in_hand`, `code_already_used`,
`unknown_code`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from app.events.codes import normalize_code

HAND_SIZE = 5
MAX_DISCARD_STEPS = 2  # the first starts round 2, the second round 3 (§1.2 rule 4)

Kind = Literal["card", "discard", "save", "unknown"]
COUNTED, REJECTED = "counted", "rejected"

OUTSIDE_COURSE_HOURS = "outside_course_hours"
HAND_FULL = "hand_full"
DUPLICATE = "duplicate"
HAND_NOT_FULL = "hand_not_full"
NO_DISCARDS_LEFT = "no_discards_left"
CARD_NOT_IN_HAND = "card_not_in_hand"
CODE_ALREADY_USED = "code_already_used"
UNKNOWN_CODE = "unknown_code"
REASONS = (
    OUTSIDE_COURSE_HOURS,
    HAND_FULL,
    DUPLICATE,
    HAND_NOT_FULL,
    NO_DISCARDS_LEFT,
    CARD_NOT_IN_HAND,
    CODE_ALREADY_USED,
    UNKNOWN_CODE,
)


@dataclass(frozen=True)
class CheckpointRef:
    """A CP as the engine needs it: its id, its public number and its card (canonical code)."""

    checkpoint_id: int
    number: int
    card: str


@dataclass(frozen=True)
class Course:
    """What the rules need to know about the event and this participant.

    - `opens_at`, `closes_at`: the course window, aware UTC datetimes; a take
      counts when `opens_at <= taken_at < closes_at` (RULES.md §1.1).
    - `checkpoints`: normalised CP code -> CP; `discards`: normalised discard
      code -> CP; `save_codes`: this participant's normalised save codes.
    - `categorise(cards)`: the category name of a 5-card combination under the
      event's ranking preset (the poker evaluator, injected to keep this pure).
    """

    opens_at: datetime
    closes_at: datetime
    checkpoints: Mapping[str, CheckpointRef]
    discards: Mapping[str, CheckpointRef]
    save_codes: frozenset[str]
    categorise: Callable[[Sequence[str]], str]

    def classify(self, code: str) -> tuple[Kind, CheckpointRef | None, str]:
        """(kind, CP or None, normalised code) of a code as typed or scanned.

        CP code -> card take; discard code -> discard; one of this participant's
        save codes -> save; anything else (including other participants' save
        codes) -> unknown. Matching uses `normalize_code` (case, spaces, dashes,
        the whole QR URL).
        """
        normalised = normalize_code(code)
        if normalised in self.checkpoints:
            return "card", self.checkpoints[normalised], normalised
        if normalised in self.discards:
            return "discard", self.discards[normalised], normalised
        if normalised in self.save_codes:
            return "save", None, normalised
        return "unknown", None, normalised


@dataclass(frozen=True)
class TakeIn:
    """One take as the engine sees it: the log id, the code as sent, the field time (UTC)."""

    take_id: int
    code: str
    taken_at: datetime


@dataclass(frozen=True)
class Outcome:
    """What the rules made of one take; `deal`/`round` are the participant's after it.

    For a counted save they are the deal and round that the save ended.
    """

    take_id: int
    kind: Kind
    outcome: str
    reason: str | None
    card: str | None
    checkpoint_id: int | None
    deal: int
    round: int


@dataclass(frozen=True)
class SavedCombination:
    """A saved hand (RULES.md §1.2 rule 6); `id` is the id of its save take."""

    id: int
    cards: tuple[str, ...]
    category: str
    deal: int
    saved_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cards": list(self.cards),
            "category": self.category,
            "deal": self.deal,
            "saved_at": self.saved_at.isoformat(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SavedCombination:
        return cls(
            id=int(data["id"]),
            cards=tuple(data["cards"]),
            category=str(data["category"]),
            deal=int(data["deal"]),
            saved_at=datetime.fromisoformat(data["saved_at"]),
        )


@dataclass(frozen=True)
class PlayState:
    """One participant's rules state after some takes (RULES.md §1.2).

    - `hand`: cards in hand (canonical codes) in the order they counted, 0–5.
    - `deal` (1, 2, …) and `round` (1–3) inside the deal.
    - `discard_steps`: discard steps made in this deal (0–2);
      `in_discard_step`: the last effective take was a discard, so a further
      discard code continues the same step (rule 4).
    - `taken`: cards of the CPs counted for this participant (in hand,
      discarded or saved), in counting order (rule 2).
    - `used_save_codes`: normalised save codes already used (rule 6).
    - `combinations`: the saved combinations, oldest first.
    """

    hand: tuple[str, ...] = ()
    deal: int = 1
    round: int = 1
    discard_steps: int = 0
    in_discard_step: bool = False
    taken: tuple[str, ...] = ()
    used_save_codes: tuple[str, ...] = ()
    combinations: tuple[SavedCombination, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict; `PlayState.from_json(s.to_json()) == s`."""
        return {
            "hand": list(self.hand),
            "deal": self.deal,
            "round": self.round,
            "discard_steps": self.discard_steps,
            "in_discard_step": self.in_discard_step,
            "taken": list(self.taken),
            "used_save_codes": list(self.used_save_codes),
            "combinations": [combination.to_json() for combination in self.combinations],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> PlayState:
        """The state stored by `to_json`; an empty/None value is the initial state."""
        if not data:
            return cls()
        return cls(
            hand=tuple(data["hand"]),
            deal=int(data["deal"]),
            round=int(data["round"]),
            discard_steps=int(data["discard_steps"]),
            in_discard_step=bool(data["in_discard_step"]),
            taken=tuple(data["taken"]),
            used_save_codes=tuple(data["used_save_codes"]),
            combinations=tuple(SavedCombination.from_json(c) for c in data["combinations"]),
        )


def _rejected(
    take: TakeIn, kind: Kind, reason: str, state: PlayState, cp: CheckpointRef | None
) -> tuple[PlayState, Outcome]:
    card = cp.card if cp else None
    checkpoint_id = cp.checkpoint_id if cp else None
    outcome = Outcome(
        take.take_id, kind, REJECTED, reason, card, checkpoint_id, state.deal, state.round
    )
    return state, outcome


def apply_take(state: PlayState, take: TakeIn, course: Course) -> tuple[PlayState, Outcome]:
    """Apply one take to `state`; returns the new state and the take's outcome.

    `state` is not modified. Rules, in the order they are checked:
    - any take outside `[opens_at, closes_at)`: `outside_course_hours`, no effect (§1.1);
    - card take: a CP already counted -> `duplicate` (rule 2); a full hand ->
      `hand_full`, and the CP is NOT consumed, it may count later (rule 1, I-1);
      otherwise the card joins the hand and any discard step ends;
    - discard: continuing a discard step -> the card leaves the hand, or
      `card_not_in_hand`; starting a new step -> `card_not_in_hand` when the
      card is not in the hand, `no_discards_left` after two steps in this deal,
      `hand_not_full` unless the hand holds 5 cards (I-2); a new step starts
      the next round (rule 4);
    - save: a used code -> `code_already_used`; a hand of fewer than 5 cards ->
      `hand_not_full` and the code stays unused; otherwise the hand becomes a
      combination, the hand empties and the next deal starts (rule 6);
    - unknown code: `unknown_code`, no effect (rule 9).
    Rejected takes change nothing (a discard step continues across them).
    """
    kind, cp, normalised = course.classify(take.code)
    if not (course.opens_at <= take.taken_at < course.closes_at):
        return _rejected(take, kind, OUTSIDE_COURSE_HOURS, state, cp)
    if kind == "card":
        assert cp is not None
        return _take_card(state, take, cp)
    if kind == "discard":
        assert cp is not None
        return _discard(state, take, cp)
    if kind == "save":
        return _save(state, take, normalised, course)
    return _rejected(take, kind, UNKNOWN_CODE, state, None)


def _take_card(state: PlayState, take: TakeIn, cp: CheckpointRef) -> tuple[PlayState, Outcome]:
    """A card take (RULES.md §1.2 rules 1–2, I-1): `duplicate` for a CP already counted;
    `hand_full` with 5 cards in hand, the CP NOT consumed; else the card joins the hand
    and any discard step ends."""
    if cp.card in state.taken:
        return _rejected(take, "card", DUPLICATE, state, cp)
    if len(state.hand) >= HAND_SIZE:
        return _rejected(take, "card", HAND_FULL, state, cp)
    state = replace(
        state,
        hand=(*state.hand, cp.card),
        taken=(*state.taken, cp.card),
        in_discard_step=False,
    )
    return state, Outcome(
        take.take_id, "card", COUNTED, None, cp.card, cp.checkpoint_id, state.deal, state.round
    )


def _discard(state: PlayState, take: TakeIn, cp: CheckpointRef) -> tuple[PlayState, Outcome]:
    """A discard code (RULES.md §1.2 rule 4, I-2): continuing a discard step, the card
    leaves the hand; a new step needs the card in hand, a step left and a full hand, and
    starts the next round."""
    if cp.card not in state.hand:
        return _rejected(take, "discard", CARD_NOT_IN_HAND, state, cp)
    if not state.in_discard_step:
        if state.discard_steps >= MAX_DISCARD_STEPS:
            return _rejected(take, "discard", NO_DISCARDS_LEFT, state, cp)
        if len(state.hand) != HAND_SIZE:
            return _rejected(take, "discard", HAND_NOT_FULL, state, cp)
        state = replace(
            state,
            discard_steps=state.discard_steps + 1,
            round=state.round + 1,
            in_discard_step=True,
        )
    state = replace(state, hand=tuple(card for card in state.hand if card != cp.card))
    return state, Outcome(
        take.take_id, "discard", COUNTED, None, cp.card, cp.checkpoint_id, state.deal, state.round
    )


def _save(
    state: PlayState, take: TakeIn, normalised: str, course: Course
) -> tuple[PlayState, Outcome]:
    """A save code (RULES.md §1.2 rule 6): a used code -> `code_already_used`; fewer than
    5 cards -> `hand_not_full` (the code stays unused); else the hand becomes a
    combination, the hand empties and the next deal starts."""
    if normalised in state.used_save_codes:
        return _rejected(take, "save", CODE_ALREADY_USED, state, None)
    if len(state.hand) != HAND_SIZE:
        return _rejected(take, "save", HAND_NOT_FULL, state, None)
    combination = SavedCombination(
        id=take.take_id,
        cards=state.hand,
        category=course.categorise(state.hand),
        deal=state.deal,
        saved_at=take.taken_at,
    )
    outcome = Outcome(take.take_id, "save", COUNTED, None, None, None, state.deal, state.round)
    state = replace(
        state,
        hand=(),
        deal=state.deal + 1,
        round=1,
        discard_steps=0,
        in_discard_step=False,
        used_save_codes=(*state.used_save_codes, normalised),
        combinations=(*state.combinations, combination),
    )
    return state, outcome


def field_order(take: TakeIn) -> tuple[datetime, int]:
    """The sort key of RULES.md I-4: field time, then order of receipt (the log id)."""
    return take.taken_at, take.take_id


def replay(
    takes: Iterable[TakeIn], course: Course, state: PlayState | None = None
) -> tuple[PlayState, list[Outcome]]:
    """Fold `takes` (sorted here by `field_order`, RULES.md I-4) into `state`.

    From the initial state by default. Returns the final state and the outcomes
    in field-time order.
    """
    state = state or PlayState()
    outcomes: list[Outcome] = []
    for take in sorted(takes, key=field_order):
        state, outcome = apply_take(state, take, course)
        outcomes.append(outcome)
    return state, outcomes


def outcome_counts(outcomes: Iterable[Outcome], *, voided_reason: str) -> dict[str, int]:
    """`takes`, `unknown_codes` (takes of unknown codes whose reason is not
    `voided_reason`) and `hand_full` (takes refused as `HAND_FULL`, RULES.md I-1) among
    `outcomes`: the tallies the organiser's dashboard sums."""
    counts = {"takes": 0, "unknown_codes": 0, "hand_full": 0}
    for outcome in outcomes:
        counts["takes"] += 1
        counts["unknown_codes"] += outcome.kind == "unknown" and outcome.reason != voided_reason
        counts["hand_full"] += outcome.reason == HAND_FULL
    return counts
