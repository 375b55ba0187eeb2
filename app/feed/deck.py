"""An event's deck as the feed reads it: the CPs' codes and cards, the sources' clocks.

`load_deck` reads it once per request (the CPs once per process once the deck is in
play); `Deck.course` hands the pure rules
engine (`app.feed.rules`) what it needs. The display helpers beside it (`display`,
`describe`, `by_strength`, `categoriser`) wrap the poker evaluator for the feed's views.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.events.codes import normalize_code, typed_form
from app.events.models import Event
from app.feed import repository as repo
from app.feed import rules

# -- cards ---------------------------------------------------------------------------------


def display(card: str | None) -> str | None:
    """The display form of a canonical card code (`Q♥`, `10♠`, `Joker`)."""
    if card is None:
        return None
    from app.poker.cards import display as poker_display

    return poker_display(card)


def categoriser(ranking: str) -> Callable[[Sequence[str]], str]:
    """The category name of a 5-card hand under `ranking` (the poker evaluator)."""
    from app.poker.evaluator import evaluate

    def categorise(cards: Sequence[str]) -> str:
        return evaluate(list(cards), ranking=ranking).category

    return categorise


def by_strength(combinations: Iterable[Any], ranking: str) -> list[Any]:
    """Combinations (anything with `cards` and `id`) from the strongest to the weakest
    under `ranking` (RULES.md §1.3, the poker evaluator); equal ones by id (saved first)."""
    from app.poker.evaluator import evaluate

    def key(combination: Any) -> tuple[Any, ...]:
        strength = evaluate(list(combination.cards), ranking=ranking).strength
        return tuple(-level for level in strength), combination.id

    return sorted(combinations, key=key)


def describe(cards: Sequence[str], ranking: str) -> tuple[str, str]:
    """The English and Russian descriptions of a saved 5-card combination (RULES.md §1.3)."""
    from app.poker.evaluator import evaluate

    value = evaluate(list(cards), ranking=ranking)
    return value.description, value.description_ru


# -- the deck of an event --------------------------------------------------------------------


@dataclass
class Deck:
    """An event's codes, loaded once per request: what `rules.Course` needs."""

    event: Event
    checkpoints: dict[str, rules.CheckpointRef]
    discards: dict[str, rules.CheckpointRef]
    numbers: dict[int, int]  # checkpoint id -> CP number
    discard_codes: dict[int, str]  # checkpoint id -> discard code
    categorise: Callable[[Sequence[str]], str]
    clocks: dict[str, float] = field(default_factory=dict)  # source -> organiser's offset (s)

    def field_time(
        self, source: str, taken_at: datetime, device_taken_at: datetime | None
    ) -> datetime:
        """A take's field time (UTC, RULES.md I-4): `taken_at` as stored (a device clock
        corrected at receipt already), or, when the organiser set an offset for `source`
        (`ingest.set_source_clock`), the device time (`device_taken_at`, else `taken_at`)
        plus that offset. The log is never edited: the time is derived each time."""
        offset = self.clocks.get(source)
        if offset is None:
            return taken_at
        try:
            return (device_taken_at or taken_at) + timedelta(seconds=offset)
        except OverflowError:  # a device time at the end of the calendar: as stored
            return taken_at

    def card_or_discard(self, code: str) -> rules.CheckpointRef | None:
        """The CP whose code or discard code `code` is, else None."""
        normalised = normalize_code(code)
        return self.checkpoints.get(normalised) or self.discards.get(normalised)

    def discard_codes_by_card(self) -> dict[str, str]:
        """card -> the discard code of its CP (for cards a participant may see only:
        `views.participant_view`)."""
        return {
            ref.card: self.discard_codes[ref.checkpoint_id] for ref in self.checkpoints.values()
        }

    def course(self, save_codes: Iterable[str]) -> rules.Course:
        """The `rules.Course` of one participant with these save codes."""
        return rules.Course(
            opens_at=self.event.opens_at,
            closes_at=self.event.closes_at,
            checkpoints=self.checkpoints,
            discards=self.discards,
            save_codes=frozenset(normalize_code(code) for code in save_codes),
            categorise=self.categorise,
        )


# The CPs of events whose deck is in play, by (event id, created_at): once a take is
# recorded the deck's cards and codes cannot change (`app.flows.event_setup`:
# `deck_in_play`; a CP's coordinates and hint may, and are not read here), so the feed
# reads them once per process instead of once per delivery (issue 24).
_Cards = tuple[
    dict[str, rules.CheckpointRef], dict[str, rules.CheckpointRef], dict[int, int], dict[int, str]
]
_DECKS_IN_PLAY: dict[tuple[int, str], _Cards] = {}
_DECKS_KEPT = 64  # events remembered per process


def _cards(session: Session, event: Event) -> _Cards:
    """The event's CPs by code, by discard code, numbers and discard codes by CP id."""
    key = (event.id, str(event.created_at))
    found = _DECKS_IN_PLAY.get(key)
    if found is not None:
        return found
    checkpoints: dict[str, rules.CheckpointRef] = {}
    discards: dict[str, rules.CheckpointRef] = {}
    numbers: dict[int, int] = {}
    discard_codes: dict[int, str] = {}
    # Codes are stored normalised (app.events.service), so they are keys as they are.
    for cp_id, number, card, code, discard_code in repo.checkpoints_of_event(session, event.id):
        ref = rules.CheckpointRef(cp_id, number, card)
        checkpoints[code] = ref
        checkpoints[typed_form(code)] = ref  # the form printed under the QR (issue 26)
        discards[discard_code] = ref
        numbers[cp_id] = number
        discard_codes[cp_id] = discard_code
    found = (checkpoints, discards, numbers, discard_codes)
    if checkpoints and repo.event_has_takes(session, event.id):  # in play: kept for good
        if len(_DECKS_IN_PLAY) >= _DECKS_KEPT:
            _DECKS_IN_PLAY.pop(next(iter(_DECKS_IN_PLAY)))
        _DECKS_IN_PLAY[key] = found
    return found


def is_card_or_discard_code(session: Session, event: Event, code: str) -> bool:
    """True when `code` (as typed or scanned) is one of the event's CP or discard codes
    (no query once the deck is in play: `_cards`)."""
    checkpoints, discards, _, _ = _cards(session, event)
    normalised = normalize_code(code)
    return normalised in checkpoints or normalised in discards


def load_deck(session: Session, event: Event) -> Deck:
    """The event's CPs and its sources' clock offsets as a `Deck` (two queries; one once
    the deck is in play: its CPs are read once per process)."""
    checkpoints, discards, numbers, discard_codes = _cards(session, event)
    return Deck(
        event,
        checkpoints,
        discards,
        numbers,
        discard_codes,
        categoriser(event.hand_ranking),
        repo.source_clocks(session, event.id),
    )


def course_of(session: Session, deck: Deck, participant_id: int) -> rules.Course:
    """The participant's `rules.Course` (the deck plus their save codes: one query)."""
    return deck.course(repo.save_codes_of(session, participant_id))
