"""One simulated participant: what they know and what they decide.

An agent knows only what a real participant knows: the public CP list
(number, coordinates, hint), their own save codes, the cards and discard codes
the feed showed them at their takes, and their own state as their phone shows
it (`GET /api/v1/me/state`) when they are online. While their device is offline
they do not see the cards they take (the card is face down in the field), so
they count takes and decide blind.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.events.codes import normalize_code
from app.simulation.course import PublicCP, distance_km, possible_cards
from app.simulation.strategies import PlayStrategy, hint_value


@dataclass
class Decision:
    """What the agent enters at a decision point: discard codes, or a save code."""

    discards: list[str] = field(default_factory=list)  # cards to discard
    save: bool = False


@dataclass
class Agent:
    """A participant's knowledge and choices (pure: no HTTP, no clock)."""

    external_id: str
    name: str
    strategy: PlayStrategy
    bidding: str
    uses_hints: bool
    speed_kmh: float
    start_at: datetime
    finish_at: datetime
    rng: random.Random
    public: Mapping[int, PublicCP]
    save_codes: list[str] = field(default_factory=list)
    access_token: str = ""
    forgets_last_save: bool = False
    position: tuple[float, float] = (0.0, 0.0)
    # knowledge
    hand: list[tuple[int, str | None]] = field(default_factory=list)  # (CP, card or unknown)
    consumed: set[int] = field(default_factory=set)  # CPs that counted for me
    card_of_cp: dict[int, str] = field(default_factory=dict)
    discard_codes: dict[str, str] = field(default_factory=dict)  # card -> its discard code
    round: int = 1
    used_save_codes: set[str] = field(default_factory=set)
    finished: bool = False
    index: int = 0  # position in the simulation's list
    forgot_decision: bool = False  # walked on with 5 cards (the next take is a 6th)

    # --- what the agent sees -------------------------------------------------

    @property
    def seen(self) -> frozenset[str]:
        return frozenset(self.card_of_cp.values())

    @property
    def hand_cards(self) -> list[str]:
        return [card for _, card in self.hand if card is not None]

    @property
    def hand_known(self) -> bool:
        return all(card is not None for _, card in self.hand)

    def next_save_code(self) -> str | None:
        """The first of my save codes not used yet, or None when all are used."""
        for code in self.save_codes:
            if code not in self.used_save_codes:
                return code
        return None

    def observe_card_take(self, number: int, result: Mapping[str, Any]) -> None:
        """Learn from the feed's answer to my take of CP `number` (sent online)."""
        card = result.get("card")
        if card:
            self.card_of_cp[number] = card
            if result.get("discard_code"):
                self.discard_codes[card] = result["discard_code"]
        if result.get("outcome") == "counted":
            self.consumed.add(number)
            self.hand.append((number, card))
        elif result.get("reason") == "duplicate":
            self.consumed.add(number)  # it counted before: never go back there

    def record_offline_take(self, number: int) -> None:
        """A take recorded by an offline device: it probably counts, the card is unknown."""
        self.consumed.add(number)
        self.hand.append((number, None))

    def learn_results(self, numbers_by_code: Mapping[str, int], results: Sequence[dict]) -> None:
        """Remember the cards and discard codes a late sync showed (by CP code)."""
        for result in results:
            number = numbers_by_code.get(result.get("_code", ""))
            card = result.get("card")
            if number is not None and card:
                self.card_of_cp[number] = card
                if result.get("discard_code"):
                    self.discard_codes[card] = result["discard_code"]

    def sync(self, state: Mapping[str, Any], numbers_by_code: Mapping[str, int]) -> None:
        """Replace my bookkeeping by my state as the phone shows it (`/me/state`)."""
        self.round = int(state.get("round") or 1)
        self.consumed = set()
        for take in state.get("takes", []):
            number = numbers_by_code.get(normalize_code(take.get("code") or ""))
            if number is None or take.get("kind") != "card":
                continue
            if take.get("card"):
                self.card_of_cp[number] = take["card"]
            if take.get("outcome") == "counted":
                self.consumed.add(number)
        cp_of_card = {card: number for number, card in self.card_of_cp.items()}
        self.hand = [(cp_of_card.get(card, 0), card) for card in state.get("hand", [])]

    # --- what the agent decides ----------------------------------------------

    def choose_next_cp(self, exclude: set[int] | None = None) -> int | None:
        """The next CP to visit: the nearest one not taken yet; a hint user weighs
        each hint's chance of a card they want (1 in 1 is worth a 2 km detour)."""
        candidates = [
            cp
            for cp in self.public.values()
            if cp.number not in self.consumed
            and cp.number not in {n for n, _ in self.hand}
            and cp.number not in (exclude or set())
        ]
        if not candidates:
            return None
        wanted = self.strategy.wanted(self.hand_cards)
        seen = self.seen

        def cost(cp: PublicCP) -> float:
            km = distance_km(self.position, (cp.lat, cp.lon)) + self.rng.uniform(0, 0.3)
            if self.uses_hints:
                km -= 2.0 * hint_value(possible_cards(cp.hint), wanted, seen)
            return km

        return min(candidates, key=lambda cp: (cost(cp), cp.number)).number

    def at_decision_point(self) -> bool:
        return len(self.hand) >= 5

    def decide(self) -> Decision:
        """At a decision point with known cards: save, or discard some (RULES.md §1.2)."""
        discards = self.strategy.decide(self.hand_cards, self.round, self.rng)
        discards = [card for card in discards if card in self.discard_codes]
        if not discards or self.round >= 3:
            return Decision(save=True)
        return Decision(discards=discards)

    def decide_blind(self) -> Decision:
        """At 5 takes with cards not seen (offline): usually save, else carry on."""
        return Decision(save=self.rng.random() < 0.8)

    def applied(self, decision: Decision, save_code: str | None = None) -> None:
        """Update my bookkeeping after entering the codes of `decision` (all accepted)."""
        if decision.save:
            self.hand = []
            self.round = 1
            if save_code:
                self.used_save_codes.add(save_code)
        elif decision.discards:
            self.hand = [(n, c) for n, c in self.hand if c not in decision.discards]
            self.round += 1
