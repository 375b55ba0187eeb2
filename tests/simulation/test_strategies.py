"""Play strategies and bidding styles (decisions worked out by hand)."""

import random

from app.simulation.strategies import (
    Casual,
    FlushChaser,
    Keeper,
    OwnCombination,
    choose_bid,
    hint_value,
    tie_break_bid,
)

RNG = random.Random(0)


def test_keeper_keeps_pairs_and_jokers() -> None:
    assert Keeper().decide(["QH", "QD", "2C", "7S", "JK1"], 1, RNG) == ["2C", "7S"]
    assert Keeper().decide(["9H", "9D", "9C", "4S", "KD"], 1, RNG) == ["4S", "KD"]


def test_keeper_saves_strong_hands_and_in_round_three() -> None:
    assert Keeper().decide(["5D", "4H", "3S", "2D", "AD"], 1, RNG) == []  # a straight
    assert Keeper().decide(["9H", "9D", "9C", "4S", "KD"], 2, RNG) == []  # trips in round 2
    assert Keeper().decide(["2H", "5D", "8C", "TS", "KD"], 3, RNG) == []  # round 3: must save


def test_keeper_with_nothing_keeps_the_highest_card() -> None:
    assert sorted(Keeper().decide(["2H", "5D", "8C", "TS", "KD"], 1, RNG)) == [
        "2H",
        "5D",
        "8C",
        "TS",
    ]


def test_flush_chaser_keeps_its_suit() -> None:
    assert FlushChaser().decide(["2H", "7H", "JH", "5C", "KS"], 1, RNG) == ["5C", "KS"]
    assert FlushChaser().decide(["2H", "7H", "JK1", "5C", "KS"], 1, RNG) == ["5C", "KS"]
    assert FlushChaser().decide(["2H", "7H", "JH", "5H", "KH"], 1, RNG) == []  # a flush


def test_casual_always_saves_in_round_three() -> None:
    assert Casual().decide(["2H", "7C", "JH", "5C", "KS"], 3, random.Random(1)) == []


def test_wanted_cards() -> None:
    assert Keeper().wanted(["QH", "QD", "2C"]) == {"QS", "QH", "QD", "QC", "JK1", "JK2"}
    hearts = FlushChaser().wanted(["2H", "7H", "5C"])
    assert len(hearts) == 13 + 2 and "AH" in hearts and "AC" not in hearts


def test_hint_value_counts_unseen_cards() -> None:
    possible = frozenset({"QS", "QC", "2C", "3C"})
    wanted = frozenset({"QS", "QC", "QD"})
    assert hint_value(possible, wanted, frozenset()) == 0.5
    assert hint_value(possible, wanted, frozenset({"2C", "3C"})) == 1.0
    assert hint_value(possible, wanted, possible) == 0.0


TRIPS = OwnCombination(1, ("9H", "9D", "9C", "4S", "KD"))
PAIR = OwnCombination(2, ("9S", "2D", "2C", "4H", "KH"))
FLUSH = OwnCombination(3, ("2H", "7H", "JH", "5H", "KH"))


def test_greedy_bids_its_best() -> None:
    assert choose_bid("greedy", [TRIPS, PAIR, FLUSH], 3, None) == FLUSH


def test_patient_keeps_the_best_for_first_place() -> None:
    assert choose_bid("patient", [TRIPS, PAIR, FLUSH], 3, None) == TRIPS
    assert choose_bid("patient", [TRIPS, PAIR, FLUSH], 1, None) == FLUSH
    assert choose_bid("patient", [PAIR, FLUSH], 3, None) is None  # a pair is too weak
    # the revealed winner of the 3rd place was trips of nines: a pair cannot win 2nd
    assert choose_bid("patient", [PAIR, FLUSH], 2, TRIPS.strength) is None


def test_modest_and_absent() -> None:
    assert choose_bid("modest", [PAIR], 3, None) is None
    assert choose_bid("modest", [PAIR, TRIPS], 3, None) == TRIPS
    assert choose_bid("absent", [FLUSH], 1, None) is None
    assert tie_break_bid([PAIR, TRIPS]) == TRIPS
    assert tie_break_bid([]) is None
