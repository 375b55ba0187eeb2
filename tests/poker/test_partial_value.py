"""The value of a hand of 1 to 4 cards (RULES.md §1.3, I-6 jokers): the best category
the cards already make. Expected values are worked out by hand from the rule text."""

from __future__ import annotations

import pytest

from app.poker.cards import CardError
from app.poker.evaluator import HandSizeError, partial_value


@pytest.mark.parametrize(
    ("cards", "category", "ranks", "en", "ru"),
    [
        # A joker stands for a card not held: the third queen.
        (["QH", "QD", "JK1"], "three_of_a_kind", (12,), "three of a kind, queens", "тройка дам"),
        # A joker with a seven: the second seven.
        (["7S", "JK2"], "one_pair", (7,), "one pair, sevens", "пара семёрок"),
        # Two jokers alone: the best two cards not held are two aces.
        (["JK1", "JK2"], "one_pair", (14,), "one pair, aces", "пара тузов"),
        (["JK1"], "high_card", (14,), "high card, ace", "старшая карта, туз"),
        (["KD", "7C"], "high_card", (13,), "high card, king", "старшая карта, король"),
        (
            ["8S", "8H", "5D", "5C"],
            "two_pair",
            (8, 5),
            "two pair, eights and fives",
            "две пары, восьмёрки и пятёрки",
        ),
        # Two pair + a joker would be 5 cards; 8 8 5 + joker: the joker makes the triple.
        (
            ["8S", "8H", "5D", "JK1"],
            "three_of_a_kind",
            (8,),
            "three of a kind, eights",
            "тройка восьмёрок",
        ),
        # The joker joins the higher of two single cards: a pair of kings, not sevens.
        (["7S", "KH", "JK1"], "one_pair", (13,), "one pair, kings", "пара королей"),
        # Two jokers join the single card: three of a kind (better than two pair).
        (["TS", "JK1", "JK2"], "three_of_a_kind", (10,), "three of a kind, tens", "тройка десяток"),
        (["QH", "QD", "QC", "QS"], "four_of_a_kind", (12,), "four of a kind, queens", "каре дам"),
        (
            ["3H", "3D", "JK1", "JK2"],
            "four_of_a_kind",
            (3,),
            "four of a kind, threes",
            "каре троек",
        ),
        (["AS", "9H", "9D", "2C"], "one_pair", (9,), "one pair, nines", "пара девяток"),
        # Any notation of API.md: Russian letters and suit symbols, a generic joker.
        (["Д♥", "JOKER"], "one_pair", (12,), "one pair, queens", "пара дам"),
    ],
)
def test_partial_hands(cards, category, ranks, en, ru):
    value = partial_value(cards)
    assert (value.category, value.ranks) == (category, ranks)
    assert (value.description, value.description_ru) == (en, ru)


@pytest.mark.parametrize("cards", [[], ["QH", "QD", "QC", "7S", "2H"]])
def test_partial_value_takes_one_to_four_cards(cards):
    with pytest.raises(HandSizeError):
        partial_value(cards)


def test_partial_value_refuses_a_duplicate_card():
    with pytest.raises(CardError):
        partial_value(["QH", "QH"])
