"""A simulated participant's own reading of cards and hands.

This is the participant's "mental poker": what to keep, where to go and what to
bid. A participant knows the rules, so hands are judged with the service's own
pure evaluator (`app.poker.evaluator`); only the card helpers are local.

Cards are canonical codes (API.md): rank `2`-`9`, `T`, `J`, `Q`, `K`, `A` + suit
`S` `H` `D` `C`; jokers `JK1`, `JK2`.
"""

from __future__ import annotations

from app.poker.cards import DECK, JOKERS, RANKS, SUITS, is_joker
from app.poker.evaluator import CATEGORIES, evaluate, score

__all__ = ["CATEGORIES", "DECK", "JOKERS", "SUITS", "is_joker"]

STANDARD: tuple[str, ...] = DECK[:52]

RED = frozenset("HD")
PICTURE = frozenset("JQK")

# A sortable strength: app.poker.evaluator.score in the seed preset (higher wins).
Strength = int


def rank(card: str) -> int | None:
    """Rank value 2..14 (ace 14); None for a joker."""
    return None if is_joker(card) else RANKS.index(card[0]) + 2


def suit(card: str) -> str | None:
    """Suit letter S/H/D/C; None for a joker."""
    return None if is_joker(card) else card[1]


def category(hand: list[str] | tuple[str, ...]) -> str:
    """The category of a 5-card hand (jokers at their best, seed order; RULES.md I-5, I-6)."""
    return evaluate(hand, "seed").category


def strength(hand: list[str] | tuple[str, ...]) -> Strength:
    """A sortable strength of a 5-card hand: higher is better (seed order, I-5/I-6)."""
    return score(tuple(hand), "seed")


def category_rank(name: str) -> int:
    """0 for high card up to 10 for five of a kind (seed order)."""
    return len(CATEGORIES) - 1 - CATEGORIES.index(name)
