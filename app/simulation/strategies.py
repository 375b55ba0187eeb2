"""How simulated participants play the course and bid at the ceremony.

Play strategies decide at each decision point (a hand of 5, RULES.md §1.2 rule 3)
whether to save or which cards to discard, and which cards they would like to
find next (what makes a CP's hint attractive). Bidding styles decide which saved
combination, if any, goes into each auction (RULES.md §1.4).
Everything here is pure: a hand in, a decision out; randomness only from the
`random.Random` passed in.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from app.simulation.cards import (
    DECK,
    RED,
    SUITS,
    Strength,
    category,
    category_rank,
    is_joker,
    rank,
    strength,
    suit,
)

# category_rank thresholds (0 high card ... 10 five of a kind, seed order)
TWO_PAIR = category_rank("two_pair")
THREE = category_rank("three_of_a_kind")
STRAIGHT = category_rank("straight")
FLUSH = category_rank("flush")


def _grouped(hand: Sequence[str]) -> list[str]:
    """Jokers and the cards of ranks held at least twice."""
    counts = Counter(rank(c) for c in hand if not is_joker(c))
    return [c for c in hand if is_joker(c) or counts[rank(c)] >= 2]


def _by_rank(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda c: (rank(c) or 15, c))


def _main_suit(hand: Sequence[str]) -> tuple[str | None, int]:
    counts = Counter(suit(c) for c in hand if not is_joker(c))
    if not counts:
        return None, 0
    best = max(SUITS, key=lambda s: (counts[s], -SUITS.index(s)))
    return best, counts[best]


class PlayStrategy:
    """Base: `decide` returns the cards to discard (empty = save the hand)."""

    name = "base"

    def decide(self, hand: Sequence[str], round_: int, rng: random.Random) -> list[str]:
        raise NotImplementedError

    def wanted(self, hand: Sequence[str]) -> frozenset[str]:
        """Cards this player would like to find next, given the hand they hold."""
        return frozenset(c for c in DECK if is_joker(c))


class Keeper(PlayStrategy):
    """Keeps strong hands: saves a straight or better at once, three of a kind or
    better in round 2; otherwise keeps pairs, triples and jokers and redraws the rest."""

    name = "keeper"

    def decide(self, hand: Sequence[str], round_: int, rng: random.Random) -> list[str]:
        if round_ >= 3:
            return []
        level = category_rank(category(hand))
        if level >= STRAIGHT or (round_ == 2 and level >= THREE):
            return []
        keep = _grouped(hand)
        if not keep:  # nothing grouped: keep the highest card
            keep = _by_rank(hand)[-1:]
        if len(keep) == 5:  # two pair + joker etc. already counted above; keep all
            return []
        return [c for c in hand if c not in keep]

    def wanted(self, hand: Sequence[str]) -> frozenset[str]:
        ranks = {rank(c) for c in _grouped(hand) if not is_joker(c)}
        if not ranks:
            ranks = {rank(c) for c in hand if not is_joker(c) and (rank(c) or 0) >= 11} or {14}
        return frozenset(c for c in DECK if is_joker(c) or rank(c) in ranks)


class FlushChaser(PlayStrategy):
    """Chases flushes: keeps the longest suit (and jokers) once it has three of it,
    saves a flush or better, and otherwise plays like a keeper."""

    name = "flush_chaser"

    def decide(self, hand: Sequence[str], round_: int, rng: random.Random) -> list[str]:
        if round_ >= 3:
            return []
        level = category_rank(category(hand))
        if level >= FLUSH or (round_ == 2 and level >= THREE):
            return []
        main, count = _main_suit(hand)
        jokers = sum(1 for c in hand if is_joker(c))
        if main is not None and count + jokers >= 3:
            return [c for c in hand if not is_joker(c) and suit(c) != main]
        return Keeper().decide(hand, round_, rng)

    def wanted(self, hand: Sequence[str]) -> frozenset[str]:
        main, count = _main_suit(hand)
        if main is None or count < 2:
            return super().wanted(hand) | frozenset(c for c in DECK if suit(c) in RED)
        return frozenset(c for c in DECK if is_joker(c) or suit(c) == main)


class Casual(PlayStrategy):
    """Plays for fun: often saves the first five cards, else throws away a few low ones."""

    name = "casual"

    def decide(self, hand: Sequence[str], round_: int, rng: random.Random) -> list[str]:
        if round_ >= 3 or rng.random() < (0.5 if round_ == 1 else 0.7):
            return []
        naturals = _by_rank([c for c in hand if not is_joker(c)])
        return naturals[: rng.randint(1, min(3, len(naturals)))] if naturals else []


PLAY_STRATEGIES: dict[str, type[PlayStrategy]] = {
    "keeper": Keeper,
    "flush_chaser": FlushChaser,
    "casual": Casual,
}


def hint_value(possible: frozenset[str], wanted: frozenset[str], seen: frozenset[str]) -> float:
    """The chance that a CP whose hint allows `possible` holds a wanted card,
    among the cards this participant has not seen yet (uniform over them)."""
    candidates = possible - seen
    if not candidates:
        return 0.0
    return len(candidates & wanted) / len(candidates)


# --- bidding ---------------------------------------------------------------------


@dataclass(frozen=True)
class OwnCombination:
    """One of the bidder's saved combinations, as their state shows it."""

    id: int
    cards: tuple[str, ...]

    @property
    def strength(self) -> Strength:
        return strength(self.cards)


BIDDING_STYLES = ("greedy", "patient", "modest", "absent")


def choose_bid(
    style: str,
    unused: Sequence[OwnCombination],
    place: int,
    previous_winner: Strength | None,
) -> OwnCombination | None:
    """The combination to put into the auction for `place`, or None to abstain.

    - greedy: the best unused combination, in every auction;
    - patient: keeps the best for 1st place; in earlier auctions bids its best
      other combination if it beats the previous auction's revealed winner (or is
      two pair or better when nothing was revealed yet), else abstains;
    - modest: bids the best only when it is three of a kind or better;
    - absent: never bids (went home before the ceremony).
    """
    if not unused or style == "absent":
        return None
    ordered = sorted(unused, key=lambda c: c.strength, reverse=True)
    best = ordered[0]
    if style == "greedy":
        return best
    if style == "modest":
        return best if category_rank(category(best.cards)) >= THREE else None
    if style == "patient":
        if place == 1:
            return best
        others = ordered[1:]
        if not others:
            return None
        candidate = others[0]
        if previous_winner is not None:
            return candidate if candidate.strength > previous_winner else None
        return candidate if category_rank(category(candidate.cards)) >= TWO_PAIR else None
    raise ValueError(f"unknown bidding style {style!r}")


def tie_break_bid(unused: Sequence[OwnCombination]) -> OwnCombination | None:
    """In a tie-break round (RULES.md I-9) every style bids its best remaining combination."""
    return max(unused, key=lambda c: c.strength) if unused else None
