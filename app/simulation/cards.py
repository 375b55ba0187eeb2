"""A simulated participant's own reading of cards and hands.

This is the participant's "mental poker": good enough to choose what to keep,
where to go and what to bid. It is never the service's verdict (the feed and
the auctions score with `app.poker`); a disagreement in an edge case would only
make a simulated participant play a little worse.

Cards are canonical codes (API.md): rank `2`-`9`, `T`, `J`, `Q`, `K`, `A` + suit
`S` `H` `D` `C`; jokers `JK1`, `JK2`.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "SHDC"
JOKERS = ("JK1", "JK2")
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + JOKERS
STANDARD: tuple[str, ...] = DECK[:52]

# Seed ranking (RULES.md §1.3, I-5), highest first.
CATEGORIES = (
    "five_of_a_kind",
    "royal_flush",
    "four_of_a_kind",
    "straight_flush",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "one_pair",
    "high_card",
)
RED = frozenset("HD")
PICTURE = frozenset("JQK")

Strength = tuple[int, tuple[int, ...]]


def is_joker(card: str) -> bool:
    return card.startswith("JK")


def rank(card: str) -> int | None:
    """Rank value 2..14 (ace 14); None for a joker."""
    return None if is_joker(card) else RANKS.index(card[0]) + 2


def suit(card: str) -> str | None:
    """Suit letter S/H/D/C; None for a joker."""
    return None if is_joker(card) else card[1]


def _straight_top(values: set[int]) -> int | None:
    if len(values) != 5:
        return None
    if max(values) - min(values) == 4:
        return max(values)
    if values == {14, 2, 3, 4, 5}:
        return 5  # the wheel: its top card is the 5
    return None


def _natural(cards: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """Category and tie-break ranks of five standard cards."""
    values = sorted((rank(c) or 0 for c in cards), reverse=True)
    counts = Counter(values)
    by_count = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [n for _, n in by_count]
    order = tuple(v for v, _ in by_count)
    flush = len({suit(c) for c in cards}) == 1
    top = _straight_top(set(values))
    if flush and top == 14:
        return "royal_flush", (14,)
    if flush and top:
        return "straight_flush", (top,)
    if shape[0] == 4:
        return "four_of_a_kind", order
    if shape[:2] == [3, 2]:
        return "full_house", order
    if flush:
        return "flush", tuple(values)
    if top:
        return "straight", (top,)
    if shape[0] == 3:
        return "three_of_a_kind", order
    if shape[:2] == [2, 2]:
        return "two_pair", order
    if shape[0] == 2:
        return "one_pair", order
    return "high_card", tuple(values)


@lru_cache(maxsize=65536)
def _best(hand: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    naturals = tuple(c for c in hand if not is_joker(c))
    jokers = len(hand) - len(naturals)
    if jokers == 0:
        return _natural(naturals)
    counts = Counter(rank(c) for c in naturals)
    top_rank, top_count = max(counts.items(), key=lambda item: (item[1], item[0]))
    if top_count + jokers == 5:  # RULES.md I-6: five of a kind by count
        return "five_of_a_kind", (top_rank,)
    free = [c for c in STANDARD if c not in naturals]
    best: tuple[str, tuple[int, ...]] | None = None
    for extra in combinations(free, jokers):
        found = _natural(naturals + extra)
        if best is None or _key(found) > _key(best):
            best = found
    assert best is not None
    return best


def _key(found: tuple[str, tuple[int, ...]]) -> Strength:
    return len(CATEGORIES) - CATEGORIES.index(found[0]), found[1]


def category(hand: list[str] | tuple[str, ...]) -> str:
    """The category of a 5-card hand (jokers at their best, seed order)."""
    return _best(tuple(sorted(hand)))[0]


def strength(hand: list[str] | tuple[str, ...]) -> Strength:
    """A sortable strength of a 5-card hand: higher is better (seed order, I-5/I-6)."""
    return _key(_best(tuple(sorted(hand))))


def category_rank(name: str) -> int:
    """0 for high card up to 10 for five of a kind (seed order)."""
    return len(CATEGORIES) - 1 - CATEGORIES.index(name)
