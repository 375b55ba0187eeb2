"""The 7-card path `best_score` (RULES.md §1.3, I-5, I-6): the best of the 5-card subsets,
worked out without the 21 `score` calls. Expected values come from the rules (the hand
named in each comment, valued by the five-card `score`), and agreement with the
five-card path is checked on 100,000 seeded random hands."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from app.poker.cards import DECK, CardError
from app.poker.evaluator import HandSizeError, RankingError, best_score, score

RANKINGS = ("seed", "classic")


def _reference(cards, ranking):
    """The five-card path: the best `score` of the 5-card subsets."""
    return max(score(hand, ranking) for hand in combinations(cards, 5))


@pytest.mark.parametrize("ranking", RANKINGS)
@pytest.mark.parametrize(
    ("seven", "five"),
    [
        # A royal flush among two twos (the pair is ignored).
        (["2C", "AS", "KS", "QS", "JS", "TS", "2D"], ["AS", "KS", "QS", "JS", "TS"]),
        # Six spades: the best five of them, a nine-high straight flush over the ace.
        (["9S", "8S", "7S", "6S", "5S", "AS", "2S"], ["9S", "8S", "7S", "6S", "5S"]),
        # The wheel in spades with a pair of kings: a five-high straight flush.
        (["AS", "2S", "3S", "4S", "5S", "KH", "KD"], ["AS", "2S", "3S", "4S", "5S"]),
        # Seven spades: the flush of the top five (no straight among them).
        (["KS", "JS", "9S", "7S", "5S", "3S", "2S"], ["KS", "JS", "9S", "7S", "5S"]),
        # Two trips: queens full of threes (the third three and the nine left out).
        (["QH", "QD", "QC", "3S", "3D", "3H", "9C"], ["QH", "QD", "QC", "3S", "3D"]),
        # Four eights and a pair of kings: four of a kind, king kicker.
        (["8S", "8H", "8D", "8C", "KS", "KH", "2D"], ["8S", "8H", "8D", "8C", "KS"]),
        # Six to ten in mixed suits with a pair of tens: the ten-high straight.
        (["6S", "7H", "8D", "9C", "TS", "TH", "2C"], ["6S", "7H", "8D", "9C", "TS"]),
        # Three pairs: the top two with the best kicker (aces and jacks, king kicker; the
        # fourth card of the third pair is lower than the king).
        (["AS", "AH", "JD", "JC", "4S", "4H", "KD"], ["AS", "AH", "JD", "JC", "KD"]),
        # A flush of four hearts only and a straight: the straight (no flush).
        (["AH", "KH", "QH", "JH", "TS", "2C", "3D"], ["AH", "KH", "QH", "JH", "TS"]),
    ],
)
def test_seven_cards_worked_out(seven, five, ranking):
    assert best_score(seven, ranking) == score(five, ranking)


def test_the_preset_decides_between_four_of_a_kind_and_a_straight_flush():
    # 9♠ 9♥ 9♦ + joker make four nines; 9♠ 8♠ 7♠ 6♠ + joker as 10♠ a straight flush:
    # seed puts four of a kind higher, classic the straight flush (I-5, I-6).
    cards = ["9S", "9H", "9D", "JK1", "8S", "7S", "6S"]
    assert best_score(cards, "seed") == score(["9S", "9H", "9D", "JK1", "8S"], "seed")
    assert best_score(cards, "classic") == score(["JK1", "9S", "8S", "7S", "6S"], "classic")


@pytest.mark.parametrize("ranking", RANKINGS)
def test_five_and_six_cards_and_other_notations(ranking):
    flush = ["KS", "JS", "8S", "4S", "3S"]
    assert best_score(flush, ranking) == score(flush, ranking)
    assert best_score([*flush, "KH"], ranking) == score(flush, ranking)  # flush > pair
    # Any notation is parsed: 10♥ and Д♠ (дама) are TH and QS.
    cards = ["10♥", "JH", "Д♠", "KH", "AH", "2C", "2D"]
    assert best_score(cards, ranking) == score(["TH", "JH", "QS", "KH", "AH"], ranking)


def test_agrees_with_the_five_card_path_on_100000_random_hands():
    # Seeded: 100,000 hands of 7 distinct cards of the 52 (seed preset), plus hands of
    # 5 to 7 cards of the 54 (jokers too) in both presets.
    rng = random.Random(20261207)
    standard = DECK[:52]
    for _ in range(100_000):
        hand = rng.sample(standard, 7)
        assert best_score(hand) == _reference(hand, "seed"), hand
    for _ in range(5_000):
        hand = rng.sample(DECK, rng.choice((5, 6, 7)))
        for ranking in RANKINGS:
            assert best_score(hand, ranking) == _reference(hand, ranking), (hand, ranking)


def test_every_flush_shape_agrees():
    # Every set of 5 to 7 spades with up to 2 other cards: the flush table's keys.
    rng = random.Random(7)
    spades, others = [c for c in DECK[:52] if c[1] == "S"], [c for c in DECK[:52] if c[1] != "S"]
    for size in (5, 6, 7):
        for suited in combinations(spades, size):
            hand = [*suited, *rng.sample(others, 7 - size)]
            for ranking in RANKINGS:
                assert best_score(hand, ranking) == _reference(hand, ranking), hand


def test_errors():
    with pytest.raises(HandSizeError) as info:
        best_score(["AS", "KS", "QS", "JS"])
    assert info.value.code == "invalid_hand_size"
    with pytest.raises(HandSizeError):
        best_score(["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"])
    with pytest.raises(CardError) as info:
        best_score(["AS", "KS", "QS", "JS", "TS", "9S", "XX"])
    assert info.value.code == "invalid_card"
    with pytest.raises(RankingError):
        best_score(["AS", "KS", "QS", "JS", "TS", "9S", "8S"], "nope")
