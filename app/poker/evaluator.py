"""Poker hand evaluation with jokers, in the two ranking presets (RULES.md §1.3, I-5, I-6).

Pure module. Design (fast and easy to check):

- The value of a 5-card hand depends only on the multiset of its ranks, on whether
  its cards share one suit, and on its jokers. Each rank has a prime (2, 3, 5, …, 41)
  and a joker counts as the prime 43, so the product of the five primes identifies
  the multiset (unique factorisation). Each card has a suit bit; a joker has all four,
  so the AND of the five suit bits is non-zero exactly when the standard cards all
  share a suit (RULES.md I-6: a joker can then become a card of that suit).
- Two tables keyed by that product (one for hands whose standard cards share a
  suit, one for the rest) map every possible hand to its value class. They are
  built once at import: the joker-free entries by classifying each rank multiset
  (≈ 7,500 entries), the joker entries by trying every rank (and, when the standard
  cards share a suit, the suit) each joker can stand for and keeping the best
  (≈ 3,300 entries). Evaluating a hand is then five dictionary lookups, four
  multiplications and one lookup, with or without jokers.

Jokers (I-6): a joker stands for a standard card not already in the hand; the
hand takes the best value so reachable. Exception: five of a kind when the count
of the most common rank plus the jokers is 5 (four queens + joker; three sevens +
two jokers). Reaching four of a kind and reaching a straight flush exclude each
other (four of a kind needs a repeated standard rank, a straight flush five
different ranks), so the best reachable category is the same in both presets.

Presets (I-5): `seed` — five of a kind > royal flush > four of a kind > straight
flush > full house > flush > straight > three of a kind > two pair > one pair >
high card; `classic` — five of a kind > straight flush (the royal flush is its top
and is still reported as `royal_flush`) > four of a kind > full house > … Ties
inside a category follow the standard order; suits never rank; all royal flushes
are equal; a joker hand equals a natural hand of the same value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from operator import attrgetter, itemgetter

from app.core.errors import AppError
from app.poker.cards import DECK, JOKERS, RANKS, SUITS, CardError, parse_hand

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
"""Every category, highest first in the `seed` preset."""

RANKINGS = ("seed", "classic")
"""The ranking presets (RULES.md I-5); `seed` is the default."""

# Category level per preset: the first element of a strength tuple (higher wins).
_LEVELS: dict[str, dict[str, int]] = {
    "seed": {cat: len(CATEGORIES) - 1 - i for i, cat in enumerate(CATEGORIES)},
    "classic": {
        "five_of_a_kind": 10,
        "royal_flush": 9,  # the top straight flush: strength (9, 14)
        "straight_flush": 9,
        "four_of_a_kind": 8,
        "full_house": 6,
        "flush": 5,
        "straight": 4,
        "three_of_a_kind": 3,
        "two_pair": 2,
        "one_pair": 1,
        "high_card": 0,
    },
}


class RankingError(AppError):
    """An unknown ranking preset: 422, code `invalid_ranking`."""

    status, code = 422, "invalid_ranking"


class HandSizeError(AppError):
    """A hand with the wrong number of cards: 422, code `invalid_hand_size`."""

    status, code = 422, "invalid_hand_size"


@dataclass(frozen=True)
class HandValue:
    """The value of a 5-card hand in one ranking preset.

    - `category`: one of CATEGORIES (`royal_flush` is reported in both presets);
    - `strength`: compare with < > == against other hands of the SAME preset; equal
      strengths tie. It is (category level, tie-break ranks…), ranks 2..14;
    - `cards`: the 5 concrete cards the hand counts as, jokers replaced by the card
      each stands for, in display order (the combination's ranks first: quads, then
      kicker; a wheel shows 5-4-3-2-A). In five of a kind a joker that has no
      standard card left to stand for stays a joker code;
    - `source`: the 5 cards as given, canonical codes, in the order given;
    - `description` / `description_ru`: "four of a kind, queens, ace kicker" /
      "каре дам, кикер туз".
    """

    category: str
    strength: tuple[int, ...]
    cards: tuple[str, ...]
    source: tuple[str, ...]
    description: str
    description_ru: str


# --- rank names -----------------------------------------------------------------------

_EN = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_EN += ("jack", "queen", "king", "ace")
_EN_PLURAL = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens")
_EN_PLURAL += ("jacks", "queens", "kings", "aces")
_RU = ("двойка", "тройка", "четвёрка", "пятёрка", "шестёрка", "семёрка", "восьмёрка")
_RU += ("девятка", "десятка", "валет", "дама", "король", "туз")
_RU_GEN = ("двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки")
_RU_GEN += ("девятки", "десятки", "валета", "дамы", "короля", "туза")
_RU_PLURAL = ("двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки")
_RU_PLURAL += ("девятки", "десятки", "валеты", "дамы", "короли", "тузы")
_RU_GEN_PLURAL = ("двоек", "троек", "четвёрок", "пятёрок", "шестёрок", "семёрок", "восьмёрок")
_RU_GEN_PLURAL += ("девяток", "десяток", "валетов", "дам", "королей", "тузов")


def _en(rank: int) -> str:
    return _EN[rank - 2]


def _ru(rank: int) -> str:
    return _RU[rank - 2]


def _describe(category: str, tiebreak: tuple[int, ...]) -> tuple[str, str]:
    """English and Russian description of a value class."""
    t = tiebreak
    if category == "five_of_a_kind":
        return f"five of a kind, {_EN_PLURAL[t[0] - 2]}", f"покер {_RU_GEN_PLURAL[t[0] - 2]}"
    if category == "royal_flush":
        return "royal flush", "флеш-рояль"
    if category == "straight_flush":
        return f"straight flush, {_en(t[0])} high", f"стрит-флеш до {_RU_GEN[t[0] - 2]}"
    if category == "four_of_a_kind":
        return (
            f"four of a kind, {_EN_PLURAL[t[0] - 2]}, {_en(t[1])} kicker",
            f"каре {_RU_GEN_PLURAL[t[0] - 2]}, кикер {_ru(t[1])}",
        )
    if category == "full_house":
        return (
            f"full house, {_EN_PLURAL[t[0] - 2]} over {_EN_PLURAL[t[1] - 2]}",
            f"фулл-хаус, тройка {_RU_GEN_PLURAL[t[0] - 2]} и пара {_RU_GEN_PLURAL[t[1] - 2]}",
        )
    if category == "flush":
        return (
            "flush, " + ", ".join(_en(r) for r in t),
            "флеш, " + ", ".join(_ru(r) for r in t),
        )
    if category == "straight":
        return f"straight, {_en(t[0])} high", f"стрит до {_RU_GEN[t[0] - 2]}"
    if category == "three_of_a_kind":
        return (
            f"three of a kind, {_EN_PLURAL[t[0] - 2]}, kickers {_en(t[1])}, {_en(t[2])}",
            f"тройка {_RU_GEN_PLURAL[t[0] - 2]}, кикеры {_ru(t[1])}, {_ru(t[2])}",
        )
    if category == "two_pair":
        return (
            f"two pair, {_EN_PLURAL[t[0] - 2]} and {_EN_PLURAL[t[1] - 2]}, {_en(t[2])} kicker",
            f"две пары, {_RU_PLURAL[t[0] - 2]} и {_RU_PLURAL[t[1] - 2]}, кикер {_ru(t[2])}",
        )
    if category == "one_pair":
        return (
            f"one pair, {_EN_PLURAL[t[0] - 2]}, kickers " + ", ".join(_en(r) for r in t[1:]),
            f"пара {_RU_GEN_PLURAL[t[0] - 2]}, кикеры " + ", ".join(_ru(r) for r in t[1:]),
        )
    return (
        "high card, " + ", ".join(_en(r) for r in t),
        "старшая карта, " + ", ".join(_ru(r) for r in t),
    )


# --- value classes and the tables -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Class:
    """Everything about a hand that depends only on its ranks and flush flag."""

    category: str
    ranks: tuple[int, ...]  # the 5 concrete ranks in display order
    flush: bool  # the concrete cards share one suit
    strength_seed: tuple[int, ...]
    strength_classic: tuple[int, ...]
    description: str
    description_ru: str


def _classify(ranks: Sequence[int], flush: bool) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """(category, tie-break ranks, display ranks) of 5 standard ranks (RULES.md §1.3).

    Ace is high, and low only in 5-4-3-2-A; no wrap-around.
    """
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    order = tuple(r for r, c in groups for _ in range(c))  # by count, then rank
    top = 0
    if shape == (1, 1, 1, 1, 1):
        if order[0] - order[4] == 4:
            top = order[0]
        elif order == (14, 5, 4, 3, 2):  # the wheel: its top card is the 5
            top, order = 5, (5, 4, 3, 2, 14)
    if top and flush:
        return ("royal_flush" if top == 14 else "straight_flush"), (top,), order
    if shape == (4, 1):
        return "four_of_a_kind", order[::4], order
    if shape == (3, 2):
        return "full_house", (order[0], order[3]), order
    if flush:
        return "flush", order, order
    if top:
        return "straight", (top,), order
    if shape == (3, 1, 1):
        return "three_of_a_kind", (order[0], order[3], order[4]), order
    if shape == (2, 2, 1):
        return "two_pair", (order[0], order[2], order[4]), order
    if shape == (2, 1, 1, 1):
        return "one_pair", (order[0], *order[2:]), order
    return "high_card", order, order


def _make_class(category: str, tiebreak: tuple[int, ...], ranks: tuple[int, ...], flush: bool):
    description, description_ru = _describe(category, tiebreak)
    return _Class(
        category=category,
        ranks=ranks,
        flush=flush,
        strength_seed=(_LEVELS["seed"][category], *tiebreak),
        strength_classic=(_LEVELS["classic"][category], *tiebreak),
        description=description,
        description_ru=description_ru,
    )


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # rank value v -> _PRIMES[v - 2]
_JOKER_PRIME = 43
_ALL_SUITS = 0b1111


def _prime(rank: int) -> int:
    return _PRIMES[rank - 2]


def _product(ranks: Sequence[int]) -> int:
    p = 1
    for r in ranks:
        p *= _PRIMES[r - 2]
    return p


def _build_tables() -> tuple[dict[int, _Class], dict[int, _Class], dict[int, tuple[int, ...]]]:
    """The lookup tables {prime product: value class} for mixed-suit and one-suit hands,
    and {prime product: the standard ranks, highest first} (the jokers left out)."""
    plain: dict[int, _Class] = {}
    suited: dict[int, _Class] = {}
    naturals: dict[int, tuple[int, ...]] = {}
    values = range(2, 15)

    # Hands without jokers.
    for combo in combinations_with_replacement(values, 5):
        if max(Counter(combo).values()) > 4:
            continue
        key = _product(combo)
        naturals[key] = combo[::-1]
        plain[key] = _make_class(*_classify(combo, False), False)
        if len(set(combo)) == 5:
            suited[key] = _make_class(*_classify(combo, True), True)

    # Five of a kind by count (I-6): four of a rank + a joker, three of a rank + two jokers.
    for rank in values:
        five = _make_class("five_of_a_kind", (rank,), (rank,) * 5, False)
        plain[_prime(rank) ** 4 * _JOKER_PRIME] = five
        plain[_prime(rank) ** 3 * _JOKER_PRIME**2] = five
        naturals[_prime(rank) ** 4 * _JOKER_PRIME] = (rank,) * 4
        naturals[_prime(rank) ** 3 * _JOKER_PRIME**2] = (rank,) * 3

    # Jokers (I-6): each joker becomes a standard card not in the hand. A rank multiset
    # is reachable with a free suit for every card exactly when it has at most four
    # cards of a rank, i.e. when it is a key of `plain`; the jokers can take the suit of
    # one-suit standard cards exactly when all five ranks differ, i.e. when it is a key
    # of `suited`. So the options are found by membership, and the best one is kept.
    extras = {
        1: _PRIMES,  # one joker: any rank
        2: tuple(p * q for p, q in combinations_with_replacement(_PRIMES, 2)),  # two jokers
    }
    by_strength = attrgetter("strength_seed")
    for jokers, reach in extras.items():
        for combo in combinations_with_replacement(values, 5 - jokers):
            if max(Counter(combo).values()) + jokers == 5:
                continue  # five of a kind, above
            key = _product(combo)
            joker_key = key * _JOKER_PRIME**jokers
            naturals[joker_key] = combo[::-1]
            options = [plain[k] for k in (key * e for e in reach) if k in plain]
            plain[joker_key] = max(options, key=by_strength)
            if len(set(combo)) == len(combo):  # may share one suit
                options += [suited[k] for k in (key * e for e in reach) if k in suited]
                suited[joker_key] = max(options, key=by_strength)
    return plain, suited, naturals


_PLAIN, _SUITED, _NATURALS = _build_tables()

# Per canonical code: its prime (joker 43) and suit bits (joker: all four).
_CARD_PRIME: dict[str, int] = {code: _JOKER_PRIME for code in JOKERS}
_CARD_SUIT: dict[str, int] = {code: _ALL_SUITS for code in JOKERS}
for _code in DECK[:52]:
    _CARD_PRIME[_code] = _PRIMES[RANKS.index(_code[0])]
    _CARD_SUIT[_code] = 1 << SUITS.index(_code[1])


def _dense_scores(attr: str) -> tuple[dict[int, int], dict[int, int]]:
    """Integer scores per table key: equal strengths get equal scores, higher wins."""
    strengths = sorted({getattr(c, attr) for t in (_PLAIN, _SUITED) for c in t.values()})
    dense = {s: i for i, s in enumerate(strengths)}
    return (
        {k: dense[getattr(c, attr)] for k, c in _PLAIN.items()},
        {k: dense[getattr(c, attr)] for k, c in _SUITED.items()},
    )


_SCORES: dict[str, tuple[dict[int, int], dict[int, int]]] = {
    "seed": _dense_scores("strength_seed"),
    "classic": _dense_scores("strength_classic"),
}


# --- public API --------------------------------------------------------------------------


def _check_ranking(ranking: str) -> None:
    if ranking not in _LEVELS:
        raise RankingError(
            f"Unknown ranking {ranking!r}: expected one of {', '.join(RANKINGS)}.",
        )


_CANONICAL = frozenset(DECK)


def _five_codes(cards: Sequence[str]) -> list[str]:
    """Canonical codes of exactly five distinct cards (any notation)."""
    codes = parse_hand(cards)
    if len(codes) != 5:
        raise HandSizeError(f"A hand is exactly 5 cards; got {len(codes)}.")
    return codes


def _plan(cls: _Class, naturals: tuple[int, ...]) -> tuple[int | str, ...]:
    """Where each card of `cls.ranks` (display order) comes from: an int is the index of a
    standard card in the hand sorted by rank (highest first, then ♠ ♥ ♦ ♣); a rank
    character is a card a joker stands for."""
    taken: dict[int, int] = {}  # rank -> how many of its standard cards are placed
    plan: list[int | str] = []
    for rank in cls.ranks:
        k = taken.get(rank, 0)
        if naturals.count(rank) > k:
            plan.append(naturals.index(rank) + k)
            taken[rank] = k + 1
        else:
            plan.append(RANKS[rank - 2])
    return tuple(plan)


def _entries(table: dict[int, _Class]) -> dict[int, tuple[_Class, object]]:
    """{key: (value class, plan)}: for joker-free hands the plan is an itemgetter that
    puts the rank-sorted hand in display order, otherwise the `_plan` tuple."""
    entries: dict[int, tuple[_Class, object]] = {}
    for key, cls in table.items():
        plan = _plan(cls, _NATURALS[key])
        if key % _JOKER_PRIME:
            entries[key] = (cls, itemgetter(*plan))
        else:
            entries[key] = (cls, plan)
    return entries


_PLAIN_ENTRIES = _entries(_PLAIN)
_SUITED_ENTRIES = _entries(_SUITED)

# Sort key of a code: rank (highest first), then suit ♠ ♥ ♦ ♣; jokers last.
_ORDER: dict[str, int] = {code: i for i, code in enumerate(DECK)}
for _rank_index, _rank in enumerate(reversed(RANKS)):
    for _suit_index, _suit in enumerate(SUITS):
        _ORDER[_rank + _suit] = _rank_index * 4 + _suit_index


def _with_jokers(plan: tuple[int | str, ...], ordered: list[str], flush: bool) -> tuple[str, ...]:
    """The concrete cards of a hand with jokers (I-6): each joker becomes a standard card
    not in the hand — of the flush suit in a flush, else the first free suit ♠ ♥ ♦ ♣ —
    or stays a joker in five of a kind when no card of the rank is left.

    `ordered` is the hand sorted by `_ORDER` (the jokers last)."""
    used = set(ordered)
    suits = ordered[0][1] if flush else SUITS
    jokers = 3 if ordered[3] in JOKERS else 4  # index of the next joker to replace
    cards: list[str] = []
    for slot in plan:
        if slot.__class__ is int:
            cards.append(ordered[slot])
            continue
        for suit in suits:
            card = slot + suit
            if card not in used:
                used.add(card)
                cards.append(card)
                jokers += 1
                break
        else:  # five of a kind: the joker stays a joker
            cards.append(ordered[jokers])
            jokers += 1
    return tuple(cards)


def _value(codes: Sequence[str], ranking: str) -> HandValue:
    """The HandValue of 5 distinct canonical codes."""
    a, b, c, d, e = codes
    p, s = _CARD_PRIME, _CARD_SUIT
    key = p[a] * p[b] * p[c] * p[d] * p[e]
    flush = s[a] & s[b] & s[c] & s[d] & s[e]
    cls, plan = _SUITED_ENTRIES[key] if flush else _PLAIN_ENTRIES[key]
    ordered = sorted(codes, key=_ORDER.__getitem__)
    cards = _with_jokers(plan, ordered, cls.flush) if plan.__class__ is tuple else plan(ordered)
    return HandValue(
        cls.category,
        cls.strength_seed if ranking == "seed" else cls.strength_classic,
        cards,
        tuple(codes),
        cls.description,
        cls.description_ru,
    )


def evaluate(cards: Sequence[str], ranking: str = "seed") -> HandValue:
    """The value of exactly 5 cards (any notation of API.md) in preset `ranking`.

    RULES.md §1.3, I-5 (presets), I-6 (jokers). Raises CardError (`invalid_card`,
    `duplicate_card`), HandSizeError (`invalid_hand_size`) unless 5 cards are given,
    RankingError (`invalid_ranking`).
    """
    if ranking not in _SCORES:
        _check_ranking(ranking)
    try:  # fast path: five distinct canonical codes
        canonical = len(cards) == 5 and _CANONICAL.issuperset(cards) and len(set(cards)) == 5
    except TypeError:  # unhashable items: let the parser name them
        canonical = False
    return _value(cards if canonical else _five_codes(cards), ranking)


def score(cards: Sequence[str], ranking: str = "seed") -> int:
    """A single integer ranking 5 canonical codes in preset `ranking`: higher wins, equal ties.

    The fast path (used by `compare`, `best_hand` and the benchmark): no parsing and
    no duplicate check, like treys' `evaluate`. Callers pass 5 distinct canonical
    codes (from `parse_hand`); an unknown code or preset raises CardError/RankingError.
    Scores of different presets must not be compared.
    """
    try:
        a, b, c, d, e = cards
        plain, suited = _SCORES[ranking]
        p, s = _CARD_PRIME, _CARD_SUIT
        key = p[a] * p[b] * p[c] * p[d] * p[e]
        if s[a] & s[b] & s[c] & s[d] & s[e]:
            return suited[key]
        return plain[key]
    except (KeyError, ValueError, TypeError):
        _check_ranking(ranking)
        _five_codes(cards)  # raises the precise CardError / HandSizeError
        raise  # pragma: no cover - valid codes always have a table entry


def best_hand(cards: Sequence[str], ranking: str = "seed") -> HandValue:
    """The best 5-card hand out of 5 to 7 cards (any notation), in preset `ranking`.

    Each 5-card subset is valued as a hand of its own (jokers per I-6 within it).
    Among equal best subsets the first in `itertools.combinations` order is shown.
    Raises CardError, HandSizeError (fewer than 5 or more than 7 cards), RankingError.
    """
    _check_ranking(ranking)
    codes = parse_hand(cards)
    if not 5 <= len(codes) <= 7:
        raise HandSizeError(f"best_hand takes 5 to 7 cards; got {len(codes)}.")
    top = best_score(codes, ranking)  # the 7-card path; then the first subset that makes it
    best = next(hand for hand in combinations(codes, 5) if score(hand, ranking) == top)
    return _value(best, ranking)


# --- best of 5 to 7 cards: one sum, one test, one lookup ----------------------------------
#
# Each standard card is an integer with two parts that a plain sum keeps apart (no field
# can carry into the next): a 3-bit count of its rank (ranks 2..A at bits 0, 3, …, 36;
# at most 4 cards a rank) and a 4-bit count of its suit (bits 40, 44, 48, 52). The sum of
# 5 to 7 cards plus `_SUIT_BIAS` (3 in each suit field) therefore holds the rank multiset
# in its low 39 bits, and a suit field's top bit is set exactly when the suit has 5 or
# more cards (3 + 5 = 8): the hand may then make a flush. A joker adds `_JOKER_BIT`.
# `_BEST` maps each rank multiset of 5 to 7 cards to the best plain score of its 5-card
# sub-multisets; `_BEST_FLUSH` maps each set of 5 to 7 ranks of one suit to the best
# suited score of its 5-subsets. Among 7 cards at most one suit has 5, and a 5-subset
# scores suited exactly when it is all of that suit, so the best of the 21 subsets is
# `max(_BEST[ranks], _BEST_FLUSH[ranks of the flush suit])` (a suited score beats the
# plain one of the same ranks in both presets); without a flush it is `_BEST[ranks]`.

_RANK_MASK = (1 << 39) - 1
_SUIT_SHIFT = 40
_SUIT_BIAS = sum(3 << (_SUIT_SHIFT + 4 * i) for i in range(4))
_FLUSH_BITS = sum(8 << (_SUIT_SHIFT + 4 * i) for i in range(4))
_JOKER_BIT = 1 << 60
_SLOW = _FLUSH_BITS | (3 << 60)  # a possible flush, or one or two jokers

_CARD_SUM: dict[str, int] = dict.fromkeys(JOKERS, _JOKER_BIT)
_CARD_RANK_BIT: dict[str, int] = {}  # 1 << rank index (for the flush table's key)
for _code in DECK[:52]:
    _r, _s = RANKS.index(_code[0]), SUITS.index(_code[1])
    _CARD_SUM[_code] = (1 << 3 * _r) + (1 << (_SUIT_SHIFT + 4 * _s))
    _CARD_RANK_BIT[_code] = 1 << _r


def _build_best(ranking: str) -> tuple[dict[int, int], dict[int, int]]:
    """(`_BEST`, `_BEST_FLUSH`) of `ranking`, from the 5-card score tables: a multiset of
    n + 1 cards is worth the best of the multisets of n cards it contains."""
    plain, suited = _SCORES[ranking]
    best: dict[int, int] = {}
    flush: dict[int, int] = {}
    for combo in combinations_with_replacement(range(13), 5):
        key = _product([r + 2 for r in combo])
        if key not in plain:  # five of a rank
            continue
        best[sum(1 << 3 * r for r in combo)] = plain[key]
        if key in suited:
            flush[sum(1 << r for r in combo)] = suited[key]
    steps = tuple((1 << 3 * r, 7 << 3 * r) for r in range(13))  # one card of rank r, its field
    for size in (6, 7):
        for combo in combinations_with_replacement(range(13), size):
            if max(Counter(combo).values()) > 4:
                continue
            key = sum(1 << 3 * r for r in combo)
            best[key] = max(best[key - one] for one, field in steps if key & field)
            if len(set(combo)) == size:
                bits = sum(1 << r for r in combo)
                flush[bits] = max(flush[bits ^ (1 << r)] for r in combo)
    return best, flush


_BEST: dict[str, dict[int, int]] = {}  # per preset, built at its first call
_BEST_FLUSH: dict[str, dict[int, int]] = {}


def _slow_best(cards: Sequence[str], total: int, ranking: str) -> int:
    """`best_score` of 5 to 7 cards that may make a flush or hold a joker."""
    if total >= _JOKER_BIT:  # jokers (I-6): every 5-card subset on its own
        return max(score(hand, ranking) for hand in combinations(cards, 5))
    fields = (total + _SUIT_BIAS) >> _SUIT_SHIFT
    suit = SUITS[next(i for i in range(4) if fields >> 4 * i & 8)]
    ranks = sum(_CARD_RANK_BIT[c] for c in cards if c[1] == suit)
    return max(_BEST[ranking][total & _RANK_MASK], _BEST_FLUSH[ranking][ranks])


def _checked_best(cards: Sequence[str], ranking: str) -> int:
    """`best_score` off its 7-code fast path: checks the preset (building its tables at
    the first call, ≈ 0.3 s), parses the cards (any notation, 5 or 6 cards too) and
    raises the precise error."""
    _check_ranking(ranking)
    codes = parse_hand(cards)
    if not 5 <= len(codes) <= 7:
        raise HandSizeError(f"best_score takes 5 to 7 cards; got {len(codes)}.")
    if ranking not in _BEST:
        _BEST[ranking], _BEST_FLUSH[ranking] = _build_best(ranking)
    total = sum(_CARD_SUM[code] for code in codes)
    if total + _SUIT_BIAS & _SLOW:
        return _slow_best(codes, total, ranking)
    return _BEST[ranking][total & _RANK_MASK]


def best_score(cards: Sequence[str], ranking: str = "seed", _sums=_CARD_SUM) -> int:
    """The `score` of the best 5 of 5 to 7 cards in preset `ranking`: equal to
    `max(score(hand, ranking) for hand in combinations(cards, 5))`, without the 21 calls.

    The 7-card fast path (RULES.md §1.3, I-5; a hand with jokers, I-6, takes the
    subsets): 7 distinct canonical codes cost one sum of per-card integers, one test
    and one lookup (see above); like `score`, it does not check for duplicates. Other
    notations and 5 or 6 cards are parsed first (`_checked_best`). `_sums` is not a
    parameter (a local name for speed). Raises CardError (`invalid_card`,
    `duplicate_card`), HandSizeError (fewer than 5 or more than 7), RankingError.
    """
    try:
        a, b, c, d, e, f, g = cards
        total = _sums[a] + _sums[b] + _sums[c] + _sums[d] + _sums[e] + _sums[f] + _sums[g]
        if total + _SUIT_BIAS & _SLOW:
            return _slow_best(cards, total, ranking)
        return _BEST[ranking][total & _RANK_MASK]
    except (KeyError, TypeError, ValueError):
        return _checked_best(cards, ranking)


@dataclass(frozen=True)
class PartialValue:
    """The best category 1 to 4 cards already make (see `partial_value`).

    - `category`: `four_of_a_kind`, `three_of_a_kind`, `two_pair`, `one_pair` or
      `high_card`;
    - `ranks`: the ranks that name it (2..14): the group's rank, the two pairs' ranks
      (higher first), or the high card's rank;
    - `description` / `description_ru`: "three of a kind, queens" / "тройка дам" — the
      evaluator's wording (`_describe`) without the kickers.
    """

    category: str
    ranks: tuple[int, ...]
    description: str
    description_ru: str


def _describe_partial(category: str, ranks: tuple[int, ...]) -> tuple[str, str]:
    """English and Russian names of a partial hand: `_describe`'s wording, no kickers."""
    top = ranks[0] - 2
    if category == "four_of_a_kind":
        return f"four of a kind, {_EN_PLURAL[top]}", f"каре {_RU_GEN_PLURAL[top]}"
    if category == "three_of_a_kind":
        return f"three of a kind, {_EN_PLURAL[top]}", f"тройка {_RU_GEN_PLURAL[top]}"
    if category == "two_pair":
        low = ranks[1] - 2
        return (
            f"two pair, {_EN_PLURAL[top]} and {_EN_PLURAL[low]}",
            f"две пары, {_RU_PLURAL[top]} и {_RU_PLURAL[low]}",
        )
    if category == "one_pair":
        return f"one pair, {_EN_PLURAL[top]}", f"пара {_RU_GEN_PLURAL[top]}"
    return f"high card, {_EN[top]}", f"старшая карта, {_RU[top]}"


_PARTIAL_CATEGORY = {4: "four_of_a_kind", 3: "three_of_a_kind", 2: "one_pair", 1: "high_card"}


def partial_value(cards: Sequence[str]) -> PartialValue:
    """The best poker category 1 to 4 cards (any notation of API.md) already make.

    RULES.md §1.3 (categories; a full hand is 5 cards, valued by `evaluate`) and I-6
    (jokers): each joker stands for a standard card not already held, so all jokers
    join the largest group of a rank (the highest such rank); jokers alone become aces
    (JK → high card, ace; JK JK → one pair, aces). With at most 4 cards only four of a
    kind, three of a kind, two pair, one pair and high card are reachable, in the same
    order in both presets (I-5), so no preset is needed. Kickers are not named.
    Raises CardError (`invalid_card`, `duplicate_card`) and HandSizeError
    (`invalid_hand_size`) unless 1 to 4 cards are given.
    """
    codes = parse_hand(cards)
    if not 1 <= len(codes) <= 4:
        raise HandSizeError(f"A partial hand is 1 to 4 cards; got {len(codes)}.")
    jokers = sum(code in JOKERS for code in codes)
    counts = Counter(RANKS.index(code[0]) + 2 for code in codes if code not in JOKERS)
    # Groups by size, then rank, largest first; jokers alone stand for aces.
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True) or [(14, 0)]
    (top, size), rest = groups[0], groups[1:]
    size += jokers
    if size == 2 and rest and rest[0][1] == 2:
        category, ranks = "two_pair", (top, rest[0][0])
    else:
        category, ranks = _PARTIAL_CATEGORY[size], (top,)
    return PartialValue(category, ranks, *_describe_partial(category, ranks))


def compare(hands: Sequence[Sequence[str]], ranking: str = "seed") -> list[int]:
    """Indices (ascending) of the best hands among `hands`, each exactly 5 cards.

    Equal values all win (a tie). The same card may appear in different hands
    (several participants can hold the same checkpoint's card). Raises CardError,
    HandSizeError, RankingError; an empty list of hands gives [].
    """
    _check_ranking(ranking)
    scores = [score(_five_codes(hand), ranking) for hand in hands]
    top = max(scores, default=None)
    return [i for i, value in enumerate(scores) if value == top]


__all__ = [
    "CATEGORIES",
    "RANKINGS",
    "CardError",
    "HandSizeError",
    "HandValue",
    "PartialValue",
    "RankingError",
    "best_hand",
    "best_score",
    "compare",
    "evaluate",
    "partial_value",
    "score",
]
