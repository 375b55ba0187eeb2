"""Property tests: the classic order agrees with treys (an independent evaluator) on
joker-free hands; jokers follow RULES.md I-6 (never weaker than any replacement; equal
to the best replacement by a standard card absent from the hand)."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card, Evaluator

from app.poker.cards import DECK
from app.poker.evaluator import evaluate, score

STANDARD = DECK[:52]
TREYS = Evaluator()


def _treys(hand: list[str]) -> int:
    return TREYS.evaluate([Card.new(c[0] + c[1].lower()) for c in hand], [])


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


hands = st.lists(st.sampled_from(STANDARD), min_size=5, max_size=5, unique=True)


@settings(max_examples=1500, deadline=None)
@given(hands, hands)
def test_classic_order_agrees_with_treys(left, right):
    ours = _sign(_cmp(evaluate(left, "classic").strength, evaluate(right, "classic").strength))
    theirs = _sign(_treys(right) - _treys(left))  # treys: a lower rank is a better hand
    assert ours == theirs
    assert _sign(score(left, "classic") - score(right, "classic")) == theirs


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return (a > b) - (a < b)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(STANDARD), min_size=4, max_size=4, unique=True), st.data())
def test_a_joker_is_never_weaker_than_a_card_it_could_be(naturals, data):
    hand = [*naturals, "JK1"]
    absent = [c for c in STANDARD if c not in naturals]
    for ranking in ("seed", "classic"):
        with_joker = evaluate(hand, ranking).strength
        for card in data.draw(st.lists(st.sampled_from(absent), min_size=1, max_size=8)):
            assert with_joker >= evaluate([*naturals, card], ranking).strength


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(STANDARD), min_size=4, max_size=4, unique=True))
def test_one_joker_is_the_best_absent_card(naturals):
    # I-6 by brute force: the best value over every absent standard card, unless the
    # four standard cards are four of a kind (then five of a kind by count).
    absent = [c for c in STANDARD if c not in naturals]
    for ranking in ("seed", "classic"):
        value = evaluate([*naturals, "JK2"], ranking)
        if len({c[0] for c in naturals}) == 1:
            assert value.category == "five_of_a_kind"
            continue
        best = max(evaluate([*naturals, c], ranking).strength for c in absent)
        assert value.strength == best
        # the concrete cards shown are a real hand of that value
        assert evaluate(list(value.cards), ranking).strength == best


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(STANDARD), min_size=3, max_size=3, unique=True))
def test_two_jokers_are_the_best_two_absent_cards(naturals):
    absent = [c for c in STANDARD if c not in naturals]
    for ranking in ("seed", "classic"):
        value = evaluate([*naturals, "JK1", "JK2"], ranking)
        if len({c[0] for c in naturals}) == 1:
            assert value.category == "five_of_a_kind"
            continue
        best = max(score([*naturals, a, b], ranking) for a, b in combinations(absent, 2))
        assert score([*naturals, "JK1", "JK2"], ranking) == best
        assert score(list(value.cards), ranking) == best


def _representatives(size: int):
    """One hand of `size` standard cards per rank multiset (at most 3 of a rank) in mixed
    suits, plus an all-spades hand when the ranks all differ. Under I-6 a joker hand's
    value depends only on these two things (the suits are otherwise interchangeable)."""
    for ranks in combinations_with_replacement("23456789TJQKA", size):
        if max(ranks.count(r) for r in ranks) + (5 - size) >= 5:
            continue  # five of a kind by count, tested by hand
        seen: dict[str, int] = {}
        hand = []
        for r in ranks:
            hand.append(r + "SHDC"[seen.get(r, 0)])
            seen[r] = seen.get(r, 0) + 1
        if len(set(ranks)) == size:
            hand[0] = ranks[0] + "H"  # mixed suits
            yield hand
            yield [r + "S" for r in ranks]
        else:
            yield hand


def test_joker_tables_are_the_best_replacement_exhaustively():
    # I-6 checked for every rank pattern: one joker = the best absent card, two jokers =
    # the best two absent cards, in both presets (four of a kind and straight flush are
    # never both reachable, so one table serves both presets).
    for size, jokers in ((4, ("JK1",)), (3, ("JK1", "JK2"))):
        for naturals in _representatives(size):
            absent = [c for c in STANDARD if c not in naturals]
            for ranking in ("seed", "classic"):
                best = max(
                    score([*naturals, *extra], ranking)
                    for extra in combinations(absent, len(jokers))
                )
                assert score([*naturals, *jokers], ranking) == best, (naturals, ranking)
