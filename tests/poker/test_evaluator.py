"""Hand evaluation (RULES.md §1.3, I-5 presets, I-6 jokers). Expected values are
worked out by hand from the rule text, never copied from the code's output."""

from __future__ import annotations

import itertools

import pytest

from app.poker.cards import CardError
from app.poker.evaluator import (
    CATEGORIES,
    HandSizeError,
    RankingError,
    best_hand,
    compare,
    evaluate,
    score,
)

# One example per category: the examples of RULES.md §1.3 (x, y, z filled in).
EXAMPLES = {
    "five_of_a_kind": ["AH", "AD", "AC", "AS", "JK1"],
    "royal_flush": ["AH", "KH", "QH", "JH", "TH"],
    "four_of_a_kind": ["3H", "3D", "3C", "3S", "9D"],
    "straight_flush": ["9S", "8S", "7S", "6S", "5S"],
    "full_house": ["TH", "TD", "TS", "8C", "8H"],
    "flush": ["KS", "JS", "8S", "4S", "3S"],
    "straight": ["5D", "4H", "3S", "2D", "AD"],
    "three_of_a_kind": ["7C", "7H", "7S", "KD", "2H"],
    "two_pair": ["8C", "8S", "4H", "4C", "KD"],
    "one_pair": ["9H", "9S", "AC", "7D", "3H"],
    "high_card": ["AD", "TD", "9S", "5C", "4C"],
}

SEED_ORDER = list(CATEGORIES)  # RULES.md §1.3 table, highest first
CLASSIC_ORDER = [  # five > straight flush (royal on top) > four > full house > ...
    "five_of_a_kind",
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "one_pair",
    "high_card",
]


@pytest.mark.parametrize("ranking", ["seed", "classic"])
@pytest.mark.parametrize("category", CATEGORIES)
def test_every_category_in_both_presets(category, ranking):
    assert evaluate(EXAMPLES[category], ranking).category == category


@pytest.mark.parametrize(("ranking", "order"), [("seed", SEED_ORDER), ("classic", CLASSIC_ORDER)])
def test_category_order_per_preset(ranking, order):
    strengths = [evaluate(EXAMPLES[c], ranking).strength for c in order]
    assert all(a > b for a, b in itertools.pairwise(strengths))
    scores = [score(EXAMPLES[c], ranking) for c in order]
    assert all(a > b for a, b in itertools.pairwise(scores))


def test_seed_puts_four_of_a_kind_above_straight_flush():
    # RULES.md §1.3: the rule text lists four of a kind above straight flush.
    assert compare([EXAMPLES["straight_flush"], EXAMPLES["four_of_a_kind"]], "seed") == [1]
    assert compare([EXAMPLES["straight_flush"], EXAMPLES["four_of_a_kind"]], "classic") == [0]


def test_classic_royal_flush_is_the_top_straight_flush():
    royal = evaluate(EXAMPLES["royal_flush"], "classic")
    king_high = evaluate(["KD", "QD", "JD", "TD", "9D"], "classic")
    assert royal.category == "royal_flush"
    assert king_high.category == "straight_flush"
    assert royal.strength > king_high.strength
    assert royal.strength[0] == king_high.strength[0]  # one category level in classic
    # seed: royal flush is a category of its own, above four of a kind
    assert (
        evaluate(EXAMPLES["royal_flush"], "seed").strength
        > evaluate(["AS", "AH", "AD", "AC", "KS"], "seed").strength
    )


def test_all_royal_flushes_are_equal():
    hands = [[r + s for r in "AKQJT"] for s in "SHDC"]
    for ranking in ("seed", "classic"):
        assert compare(hands, ranking) == [0, 1, 2, 3]


# --- tie-breaks (RULES.md §1.3 "Ties inside a category") ---------------------------------

TIE_BREAKS = [
    # (better, worse) — by hand from the standard order
    ("five of a kind by rank", ["KH", "KD", "KC", "KS", "JK1"], ["QH", "QD", "QC", "QS", "JK1"]),
    ("straight flush by top card", ["TS", "9S", "8S", "7S", "6S"], ["9H", "8H", "7H", "6H", "5H"]),
    ("four of a kind by quad", ["4H", "4D", "4C", "4S", "2D"], ["3H", "3D", "3C", "3S", "AD"]),
    ("four of a kind then kicker", ["3H", "3D", "3C", "3S", "KD"], ["3H", "3D", "3C", "3S", "QD"]),
    ("full house by triple", ["JH", "JD", "JS", "2C", "2H"], ["TH", "TD", "TS", "AC", "AH"]),
    ("full house then pair", ["TH", "TD", "TS", "9C", "9H"], ["TH", "TD", "TS", "8C", "8H"]),
    ("flush first card", ["AS", "6S", "5S", "4S", "2S"], ["KH", "QH", "JH", "9H", "8H"]),
    ("flush last card", ["KS", "JS", "8S", "4S", "3S"], ["KH", "JH", "8H", "4H", "2H"]),
    ("straight by top card", ["6D", "5H", "4S", "3D", "2D"], ["5D", "4H", "3S", "2D", "AD"]),
    ("broadway beats king high", ["AD", "KH", "QS", "JD", "TD"], ["KD", "QH", "JS", "TD", "9D"]),
    ("three of a kind by triple", ["8C", "8H", "8S", "3D", "2H"], ["7C", "7H", "7S", "AD", "KH"]),
    ("three of a kind 1st kicker", ["7C", "7H", "7S", "AD", "2H"], ["7C", "7H", "7S", "KD", "QH"]),
    ("three of a kind 2nd kicker", ["7C", "7H", "7S", "KD", "4H"], ["7C", "7H", "7S", "KD", "3H"]),
    ("two pair by high pair", ["9C", "9S", "2H", "2C", "3D"], ["8C", "8S", "7H", "7C", "AD"]),
    ("two pair by low pair", ["8C", "8S", "5H", "5C", "2D"], ["8C", "8S", "4H", "4C", "AD"]),
    ("two pair by kicker", ["8C", "8S", "4H", "4C", "KD"], ["8C", "8S", "4H", "4C", "QD"]),
    ("one pair by pair", ["TH", "TS", "2C", "3D", "4H"], ["9H", "9S", "AC", "KD", "QH"]),
    ("one pair 1st kicker", ["9H", "9S", "AC", "3D", "2H"], ["9H", "9S", "KC", "QD", "JH"]),
    ("one pair 3rd kicker", ["9H", "9S", "AC", "7D", "4H"], ["9H", "9S", "AC", "7D", "3H"]),
    ("high card first", ["AD", "5D", "4S", "3C", "7C"], ["KD", "QD", "JS", "9C", "8C"]),
    ("high card last", ["AD", "TD", "9S", "5C", "4C"], ["AD", "TD", "9S", "5C", "3C"]),
]


@pytest.mark.parametrize("ranking", ["seed", "classic"])
@pytest.mark.parametrize(("rule", "better", "worse"), TIE_BREAKS, ids=[t[0] for t in TIE_BREAKS])
def test_tie_breaks(rule, better, worse, ranking):
    b, w = evaluate(better, ranking), evaluate(worse, ranking)
    assert b.category == w.category, rule
    assert b.strength > w.strength, rule
    assert compare([worse, better], ranking) == [1]
    assert score(better, ranking) > score(worse, ranking)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (["AS", "KS", "8D", "8C", "3H"], ["AH", "KH", "8S", "8H", "3D"]),  # suits never rank
        (["5S", "4S", "3S", "2S", "AS"], ["5H", "4H", "3H", "2H", "AH"]),
        (["KS", "JS", "8S", "4S", "3S"], ["KD", "JD", "8D", "4D", "3D"]),
        # joker hands equal natural ones of the same value
        (["QH", "QD", "QC", "AS", "JK1"], ["QH", "QD", "QC", "QS", "AD"]),
        (["9S", "8S", "7S", "6S", "JK2"], ["TH", "9H", "8H", "7H", "6H"]),
    ],
)
def test_ties_are_equal(left, right):
    for ranking in ("seed", "classic"):
        assert evaluate(left, ranking).strength == evaluate(right, ranking).strength
        assert compare([left, right], ranking) == [0, 1]


# --- ace low only in the wheel, no wrap-around -------------------------------------------


def test_wheel_straight_top_card_is_five():
    v = evaluate(["5D", "4H", "3S", "2D", "AD"])
    assert v.category == "straight"
    assert v.strength == (4, 5)  # seed level of straight = 4, top card 5
    assert v.cards == ("5D", "4H", "3S", "2D", "AD")
    assert v.description == "straight, five high"
    assert v.description_ru == "стрит до пятёрки"


def test_wheel_straight_flush_is_the_lowest_straight_flush():
    wheel = evaluate(["AS", "2S", "3S", "4S", "5S"])
    assert wheel.category == "straight_flush"
    assert wheel.cards == ("5S", "4S", "3S", "2S", "AS")
    six_high = evaluate(["2H", "3H", "4H", "5H", "6H"])
    assert six_high.strength > wheel.strength
    assert wheel.strength == (7, 5)


@pytest.mark.parametrize(
    "hand",
    [
        ["QS", "KH", "AD", "2C", "3S"],
        ["KS", "AH", "2D", "3C", "4S"],
        ["JS", "QH", "KD", "AC", "2S"],
    ],
)
def test_no_wrap_around(hand):
    assert evaluate(hand).category == "high_card"
    suited = [c[0] + "H" for c in hand]
    assert evaluate(suited).category == "flush"


# --- jokers (I-6) ------------------------------------------------------------------------


def test_seed_worked_example_queens_and_joker():
    # RULES.md §1.3 / seed: Q♥ Q♦ Q♣ A♠ + joker is four of a kind, queens, ace kicker.
    for ranking in ("seed", "classic"):
        v = evaluate(["Q♥", "Q♦", "Q♣", "A♠", "Joker"], ranking)
        assert v.category == "four_of_a_kind"
        assert v.strength[1:] == (12, 14)
        # the joker is the missing Q♠ (shown after the standard cards of its rank)
        assert v.cards == ("QH", "QD", "QC", "QS", "AS")
        assert v.source == ("QH", "QD", "QC", "AS", "JK1")
        assert v.description == "four of a kind, queens, ace kicker"
        assert v.description_ru == "каре дам, кикер туз"


def test_joker_in_flush_is_highest_missing_rank():
    v = evaluate(["KS", "JS", "8S", "4S", "JK1"])
    assert v.category == "flush"
    assert v.cards == ("AS", "KS", "JS", "8S", "4S")
    assert v.strength == (5, 14, 13, 11, 8, 4)
    # ace present: the joker is the king
    v = evaluate(["AD", "JD", "8D", "4D", "JK2"])
    assert v.cards == ("AD", "KD", "JD", "8D", "4D")


def test_joker_completes_a_straight_at_the_top():
    # 9 8 7 6 + joker: 10 makes a ten-high straight (better than the 5 below).
    v = evaluate(["9S", "8H", "7D", "6C", "JK1"])
    assert v.category == "straight"
    assert v.strength == (4, 10)
    assert v.cards[0][0] == "T"
    # a gap is filled: 9 8 _ 6 5
    v = evaluate(["9S", "8H", "6D", "5C", "JK1"])
    assert (v.category, v.strength) == ("straight", (4, 9))
    assert v.cards[2][0] == "7"


def test_joker_wheel_only_when_nothing_better():
    v = evaluate(["AH", "2D", "3C", "4S", "JK1"])
    assert (v.category, v.strength) == ("straight", (4, 5))
    assert v.cards[0][0] == "5"
    v = evaluate(["AS", "2S", "3S", "4S", "JK1"])
    assert (v.category, v.cards) == ("straight_flush", ("5S", "4S", "3S", "2S", "AS"))


def test_joker_straight_flush_and_royal():
    assert evaluate(["9S", "8S", "7S", "6S", "JK1"]).cards == ("TS", "9S", "8S", "7S", "6S")
    assert evaluate(["AH", "KH", "QH", "TH", "JK2"]).category == "royal_flush"
    assert evaluate(["AH", "KH", "QH", "TH", "JK2"]).cards == ("AH", "KH", "QH", "JH", "TH")


def test_joker_full_house_from_two_pair():
    v = evaluate(["KH", "KD", "5S", "5C", "JK1"])
    assert v.category == "full_house"
    assert v.strength[1:] == (13, 5)  # the joker joins the higher pair
    assert v.cards == ("KH", "KD", "KS", "5S", "5C")
    assert v.description == "full house, kings over fives"


def test_joker_four_of_a_kind():
    v = evaluate(["7H", "7D", "7C", "2S", "JK1"])
    assert (v.category, v.strength[1:]) == ("four_of_a_kind", (7, 2))


def test_joker_makes_pairs_and_trips():
    # no pair: the joker pairs the highest card
    v = evaluate(["AD", "9C", "5S", "2H", "JK1"])
    assert (v.category, v.strength) == ("one_pair", (1, 14, 9, 5, 2))
    v = evaluate(["AH", "AD", "9C", "5S", "JK1"])
    assert (v.category, v.strength[1:]) == ("three_of_a_kind", (14, 9, 5))


def test_five_of_a_kind_by_count():
    v = evaluate(["QS", "QH", "QD", "QC", "Дж"])
    assert (v.category, v.strength) == ("five_of_a_kind", (10, 12))
    assert v.cards == ("QS", "QH", "QD", "QC", "JK1")  # no fifth queen: the joker stays
    assert v.description == "five of a kind, queens"
    v = evaluate(["7C", "7H", "7S", "JK", "JK"])
    assert (v.category, v.strength) == ("five_of_a_kind", (10, 7))
    assert v.cards == ("7S", "7H", "7C", "7D", "JK2")
    assert evaluate(["7C", "7H", "7S", "JK", "JK"], "classic").strength == (10, 7)


def test_two_jokers():
    # natural pair + two jokers: four of a kind
    v = evaluate(["9H", "9D", "4C", "JK1", "JK2"])
    assert (v.category, v.strength[1:]) == ("four_of_a_kind", (9, 4))
    # no pair, mixed suits: at least three of a kind (no straight reachable: 9 6 2)
    v = evaluate(["9H", "6D", "2C", "JK1", "JK2"])
    assert (v.category, v.strength[1:]) == ("three_of_a_kind", (9, 6, 2))
    # three to a straight: the jokers make the highest straight
    v = evaluate(["9H", "8D", "7C", "JK1", "JK2"])
    assert (v.category, v.strength[1:]) == ("straight", (11,))
    # three suited to a straight flush: J-high straight flush
    v = evaluate(["9S", "8S", "7S", "JK1", "JK2"])
    assert (v.category, v.strength) == ("straight_flush", (7, 11))
    assert v.cards == ("JS", "TS", "9S", "8S", "7S")
    # three suited, no straight: the flush takes the two highest missing ranks
    v = evaluate(["AS", "9S", "2S", "JK1", "JK2"])
    assert (v.category, v.strength[1:]) == ("flush", (14, 13, 12, 9, 2))
    # royal flush from three royals
    v = evaluate(["AD", "KD", "TD", "JK1", "JK2"])
    assert v.category == "royal_flush"
    assert v.cards == ("AD", "KD", "QD", "JD", "TD")
    # four-of-a-kind vs straight flush never compete; here seed and classic agree
    assert evaluate(["KH", "KD", "QH", "JK1", "JK2"], "classic").category == "four_of_a_kind"


# --- best of 6 or 7, compare, errors -----------------------------------------------------


def test_best_hand_of_seven():
    v = best_hand(["2C", "AS", "KS", "QS", "JS", "TS", "2D"])
    assert v.category == "royal_flush"
    assert set(v.source) == {"AS", "KS", "QS", "JS", "TS"}
    v = best_hand(["QH", "QD", "QC", "3S", "3D", "3H", "9C"])
    assert (v.category, v.strength[1:]) == ("full_house", (12, 3))


def test_best_hand_respects_the_preset():
    # Seven cards reach four nines (9♠ 9♥ 9♦ + joker) and a ten-high straight flush
    # (9♠ 8♠ 7♠ 6♠ + joker as 10♠): seed ranks four of a kind higher, classic the
    # straight flush (RULES.md §1.3, I-5).
    cards = ["9S", "9H", "9D", "JK1", "8S", "7S", "6S"]
    seed = best_hand(cards, "seed")
    assert (seed.category, seed.strength) == ("four_of_a_kind", (8, 9, 8))
    classic = best_hand(cards, "classic")
    assert (classic.category, classic.strength) == ("straight_flush", (9, 10))
    assert classic.cards == ("TS", "9S", "8S", "7S", "6S")


def test_compare_ties_and_winners():
    hands = [EXAMPLES["flush"], EXAMPLES["straight"], ["KD", "JD", "8D", "4D", "3D"]]
    assert compare(hands) == [0, 2]
    assert compare([]) == []


def test_compare_accepts_the_same_card_in_different_hands():
    assert compare([EXAMPLES["flush"], EXAMPLES["flush"]]) == [0, 1]


@pytest.mark.parametrize("count", [0, 4, 6])
def test_evaluate_needs_exactly_five(count):
    cards = ["AS", "KS", "QS", "JS", "TS", "9S"][:count]
    with pytest.raises(HandSizeError) as info:
        evaluate(cards)
    assert info.value.code == "invalid_hand_size"


@pytest.mark.parametrize("count", [4, 8])
def test_best_hand_needs_five_to_seven(count):
    with pytest.raises(HandSizeError):
        best_hand(["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"][:count])


def test_errors():
    with pytest.raises(CardError) as info:
        evaluate(["AS", "KS", "QS", "JS", "AS"])
    assert info.value.code == "duplicate_card"
    with pytest.raises(CardError) as info:
        evaluate(["AS", "KS", "QS", "JS", "1S"])
    assert info.value.code == "invalid_card"
    with pytest.raises(RankingError) as info:
        evaluate(EXAMPLES["flush"], "poker")
    assert info.value.code == "invalid_ranking"
    with pytest.raises(CardError):
        score(["AS", "KS", "QS", "JS", "XX"])
    with pytest.raises(RankingError):
        score(EXAMPLES["flush"], "nope")


def test_every_notation_evaluates_the_same():
    v = evaluate(["Т♥", "🂮", "дc", "ВS", "10♠"])  # A♥ K♠ Q♣ J♠ 10♠
    assert (v.category, v.strength) == ("straight", (4, 14))
