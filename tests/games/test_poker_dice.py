"""Poker dice (RULES.md §3, I-16..I-18): every cell, doubling, premiums, a whole game.

Every expected score below is worked out by hand from RULES.md §3; the comment
next to a case shows the arithmetic.
"""

from __future__ import annotations

import pytest

from app.games.base import REGISTRY, IllegalAction, InvalidOptions, replay
from app.games.poker_dice import PokerDice, cell_score, places, sheet_totals

GAME = PokerDice()


# -- series 1: exactly, fewer and more than three dice of the face --------------------

SERIES_1_CASES = [
    # (cell, dice, seed score, per_extra_die score)
    ("ones", [1, 1, 1, 2, 3], 0, 0),  # c=3: made, a mark
    ("ones", [1, 2, 3, 4, 5], -2, -2),  # c=1: -(3-1)*1
    ("ones", [2, 3, 4, 5, 6], -3, -3),  # c=0: -3*1
    ("ones", [1, 1, 1, 1, 2], 3, 1),  # c=4: +3*1 (I-18) | +(4-3)*1
    ("ones", [1, 1, 1, 1, 1], 3, 2),  # c=5: +3*1 | +(5-3)*1
    ("twos", [2, 2, 2, 5, 6], 0, 0),
    ("twos", [2, 2, 5, 6, 1], -2, -2),  # c=2: -(1)*2
    ("twos", [2, 2, 2, 2, 6], 6, 2),  # +3*2 | +1*2
    ("threes", [3, 3, 3, 1, 1], 0, 0),
    ("threes", [3, 1, 1, 1, 1], -6, -6),  # c=1: -2*3
    ("threes", [3, 3, 3, 3, 3], 9, 6),  # +3*3 | +2*3
    ("fours", [4, 4, 4, 6, 6], 0, 0),
    ("fours", [1, 2, 3, 5, 6], -12, -12),  # c=0: -3*4
    ("fours", [4, 4, 4, 4, 1], 12, 4),  # +3*4 | +1*4
    ("fives", [5, 5, 5, 1, 2], 0, 0),
    ("fives", [5, 5, 1, 2, 3], -5, -5),  # c=2: -1*5
    ("fives", [5, 5, 5, 5, 5], 15, 10),  # +3*5 | +2*5
    ("sixes", [6, 6, 6, 2, 2], 0, 0),
    ("sixes", [6, 1, 1, 2, 2], -12, -12),  # c=1: -2*6
    ("sixes", [6, 6, 6, 6, 2], 18, 6),  # +3*6 | +1*6
]


@pytest.mark.parametrize(("cell", "dice", "seed_score", "per_extra"), SERIES_1_CASES)
def test_series_1_cells(cell: str, dice: list[int], seed_score: int, per_extra: int) -> None:
    assert cell_score(dice, cell) == seed_score
    assert cell_score(dice, cell, excess_scoring="per_extra_die") == per_extra
    # doubling on the first roll is a series-2 rule only
    assert cell_score(dice, cell, first_roll=True) == seed_score


# -- series 2: every combination made and not made -------------------------------------

SERIES_2_CASES = [
    # (cell, dice, later roll, first roll)
    ("pair", [3, 3, 5, 5, 1], 10, 20),  # best pair: 5+5
    ("pair", [6, 6, 6, 6, 6], 12, 24),  # 6+6
    ("pair", [1, 2, 3, 4, 6], 0, 0),  # not made: crossed out
    ("two_pairs", [3, 3, 5, 5, 1], 16, 32),  # 3+3+5+5
    ("two_pairs", [6, 6, 6, 2, 2], 16, 32),  # 6+6+2+2
    ("two_pairs", [4, 4, 4, 4, 2], 0, 0),  # four of a kind is not two different pairs
    ("two_pairs", [1, 1, 2, 3, 4], 0, 0),
    ("three_of_a_kind", [2, 4, 4, 4, 6], 12, 24),  # 4+4+4
    ("three_of_a_kind", [5, 5, 5, 5, 1], 15, 30),  # 5+5+5
    ("three_of_a_kind", [1, 1, 2, 2, 3], 0, 0),
    ("small_straight", [5, 3, 1, 4, 2], 15, 30),  # 1+2+3+4+5
    ("small_straight", [2, 3, 4, 5, 6], 0, 0),
    ("large_straight", [6, 2, 5, 3, 4], 20, 40),  # 2+3+4+5+6
    ("large_straight", [1, 2, 3, 4, 5], 0, 0),
    ("full_house", [2, 2, 6, 6, 6], 22, 44),  # 2+2+6+6+6
    ("full_house", [6, 6, 6, 6, 2], 0, 0),
    ("full_house", [3, 3, 3, 3, 3], 0, 0),  # needs two different values
    ("four_of_a_kind", [1, 5, 5, 5, 5], 20, 40),  # 5*4
    ("four_of_a_kind", [5, 5, 5, 5, 5], 20, 40),
    ("four_of_a_kind", [5, 5, 5, 1, 1], 0, 0),
    ("poker", [4, 4, 4, 4, 4], 70, 90),  # 20 + 50 | 20*2 + 50 (premium after doubling)
    ("poker", [4, 4, 4, 4, 1], 0, 0),  # not made: no premium either
    ("chance", [1, 2, 3, 4, 6], 16, 16),  # chance is never doubled
]


@pytest.mark.parametrize(("cell", "dice", "later", "first"), SERIES_2_CASES)
def test_series_2_cells(cell: str, dice: list[int], later: int, first: int) -> None:
    assert cell_score(dice, cell, first_roll=False) == later
    assert cell_score(dice, cell, first_roll=True) == first


def test_premium_at_subtotal_zero_and_not_below() -> None:
    sheet = {
        "ones": -2,
        "twos": 6,
        "threes": 0,
        "fours": -4,
        "fives": 0,
        "sixes": 0,
        **dict.fromkeys(
            (
                "pair",
                "two_pairs",
                "three_of_a_kind",
                "small_straight",
                "large_straight",
                "full_house",
                "four_of_a_kind",
                "poker",
                "chance",
            )
        ),
    }
    # -2 + 6 + 0 - 4 + 0 + 0 = 0 → premium 50
    assert sheet_totals(sheet) == {"subtotal": 0, "premium": 50, "series_2": 0, "total": 50}
    sheet["ones"] = -3  # subtotal -1 → no premium
    assert sheet_totals(sheet) == {"subtotal": -1, "premium": 0, "series_2": 0, "total": -1}
    sheet["ones"] = None  # series 1 incomplete: the premium is not decided yet
    assert sheet_totals(sheet)["premium"] is None


def test_places_share_ties() -> None:
    assert places([10, 20, 20, 5]) == [3, 1, 1, 4]


def test_evaluate_payload() -> None:
    payload = {"dice": [6, 6, 6, 6, 6], "cell": "poker", "first_roll": True}
    assert GAME.evaluate(payload) == {"score": 110}  # 30*2 + 50
    assert GAME.evaluate({"dice": [1, 1, 1, 1, 2], "cell": "ones", "first_roll": False}) == {
        "score": 3
    }
    assert GAME.evaluate(
        {"dice": [1, 1, 1, 1, 2], "cell": "ones", "excess_scoring": "per_extra_die"}
    ) == {"score": 1}
    for bad in (
        {"dice": [1, 2, 3, 4], "cell": "ones", "first_roll": False},
        {"dice": [1, 2, 3, 4, 7], "cell": "ones", "first_roll": False},
        {"dice": [1, 2, 3, 4, 5], "cell": "yahtzee", "first_roll": False},
        {"dice": [1, 2, 3, 4, 5], "cell": "ones", "first_roll": "yes"},
    ):
        with pytest.raises(InvalidOptions):
            GAME.evaluate(bad)


def test_registered_with_options_schema() -> None:
    assert REGISTRY["poker-dice"].metadata()["module"] == "poker-dice"
    with pytest.raises(InvalidOptions):
        GAME.new_initial_state(["A"], {"dice": "loaded"}, 1)
    with pytest.raises(InvalidOptions):
        GAME.new_initial_state(["A"], {"excess_scoring": "double"}, 1)
    with pytest.raises(InvalidOptions):
        GAME.new_initial_state([], {}, 1)


# -- the flow of a game ----------------------------------------------------------------


def physical(players: list[str]):
    return GAME.new_initial_state(players, {"dice": "physical"}, 0)


def roll(state, player: int, dice: list[int], keep: list[int] | None = None) -> None:
    action = {"type": "roll", "dice": dice}
    if keep is not None:
        action["keep"] = keep
    state.apply_action(player, action)


def test_roll_off_highest_total_starts_then_entry_order_and_ties_roll_again() -> None:
    state = physical(["A", "B", "C"])
    assert state.current_players() == [0]
    roll(state, 0, [1, 2, 3, 4, 5])  # 15
    roll(state, 1, [4, 4, 4, 4, 4])  # 20
    roll(state, 2, [6, 6, 6, 1, 1])  # 20: B and C tie and roll again (I-16)
    assert state.current_players() == [1]
    roll(state, 1, [2, 2, 2, 2, 2])  # 10
    roll(state, 2, [3, 3, 2, 2, 2])  # 12: C starts
    view = state.view(None)
    assert view["starting_player"] == 2
    assert view["order"] == [2, 0, 1]
    assert state.current_players() == [2]


def test_turn_rules_physical_dice() -> None:
    state = physical(["A", "B"])
    roll(state, 0, [6, 6, 6, 6, 6])
    roll(state, 1, [1, 1, 1, 1, 1])  # A starts
    with pytest.raises(IllegalAction):  # nothing rolled yet
        state.apply_action(0, {"type": "score", "cell": "ones"})
    with pytest.raises(IllegalAction):  # the first roll rolls all five
        roll(state, 0, [1, 2, 3, 4, 5], keep=[0])
    roll(state, 0, [1, 2, 3, 4, 5])
    with pytest.raises(IllegalAction) as exc:  # kept die 0 showed 1
        roll(state, 0, [2, 2, 3, 4, 5], keep=[0, 1])
    assert exc.value.code == "illegal_action" and exc.value.legal_actions
    with pytest.raises(IllegalAction):  # series 1 first (I-17)
        state.apply_action(0, {"type": "score", "cell": "chance"})
    with pytest.raises(IllegalAction):  # not B's turn
        roll(state, 1, [1, 2, 3, 4, 5])
    roll(state, 0, [1, 2, 6, 6, 6], keep=[0, 1])
    roll(state, 0, [1, 2, 6, 6, 6], keep=[2, 3, 4])
    with pytest.raises(IllegalAction):  # three rolls made
        roll(state, 0, [1, 1, 6, 6, 6], keep=[2, 3, 4])
    assert state.legal_actions(0) == [
        {"type": "score", "cell": c} for c in ("ones", "twos", "threes", "fours", "fives", "sixes")
    ]
    state.apply_action(0, {"type": "score", "cell": "sixes"})  # c=3 → 0
    assert state.view(None)["sheets"][0]["cells"]["sixes"] == 0
    assert state.current_players() == [1]
    with pytest.raises(IllegalAction):  # physical dice: the roll must carry its values
        state.apply_action(1, {"type": "roll"})
    digital = GAME.new_initial_state(["A"], {}, 3)
    with pytest.raises(IllegalAction):  # digital dice: the service rolls
        digital.apply_action(0, {"type": "roll", "dice": [6, 6, 6, 6, 6]})


# Turns of a complete two-player game: (rolls as (keep, dice)), cell, score by hand.
B_TURNS = [
    ([([], [1, 1, 1, 2, 3])], "ones", 0),  # c=3
    ([([], [2, 2, 4, 5, 6])], "twos", -2),  # c=2: -1*2
    ([([], [3, 3, 3, 3, 1])], "threes", 9),  # c=4: +3*3
    ([([], [1, 2, 3, 5, 6])], "fours", -12),  # c=0: -3*4
    ([([], [5, 5, 5, 2, 2])], "fives", 0),
    ([([], [6, 6, 6, 6, 6])], "sixes", 18),  # c=5: +3*6; subtotal 13 → +50
    ([([], [3, 3, 5, 5, 1]), ([0, 1, 2, 3], [3, 3, 5, 5, 5])], "full_house", 21),  # 2nd roll
    ([([], [1, 2, 3, 4, 5])], "small_straight", 30),  # 15*2
    ([([], [6, 6, 6, 6, 6])], "poker", 110),  # 30*2 + 50
    ([([], [2, 3, 4, 5, 6])], "pair", 0),  # crossed out
    ([([], [4, 4, 2, 2, 1])], "two_pairs", 24),  # (8+4)*2
    (
        [([], [1, 2, 3, 4, 6]), ([0], [1, 1, 1, 5, 6]), ([0, 1, 2], [1, 1, 1, 6, 6])],
        "three_of_a_kind",
        3,
    ),
    ([([], [6, 6, 6, 6, 2])], "four_of_a_kind", 48),  # 24*2
    ([([], [2, 3, 4, 5, 6])], "large_straight", 40),  # 20*2
    ([([], [6, 6, 5, 5, 4]), ([0, 1, 2, 3], [6, 6, 5, 5, 6])], "chance", 28),
]
A_TURNS = [
    ([([], [2, 3, 4, 5, 6])], "ones", -3),
    ([([], [1, 3, 4, 5, 6])], "twos", -6),
    ([([], [1, 2, 4, 5, 6])], "threes", -9),
    ([([], [4, 4, 4, 4, 4])], "fours", 12),
    ([([], [5, 1, 1, 1, 1])], "fives", -10),  # c=1: -2*5
    ([([], [6, 6, 1, 1, 1])], "sixes", -6),  # subtotal -22 → no premium
    ([([], [1, 1, 1, 1, 2])], "chance", 6),
    ([([], [1, 2, 3, 4, 6])], "pair", 0),
    ([([], [5, 5, 5, 5, 1])], "two_pairs", 0),
    ([([], [3, 3, 3, 1, 2])], "three_of_a_kind", 18),  # 9*2
    ([([], [1, 2, 3, 4, 6])], "small_straight", 0),
    ([([], [2, 3, 4, 5, 5]), ([0, 1, 2, 3], [2, 3, 4, 5, 6])], "large_straight", 20),
    ([([], [1, 1, 2, 2, 2])], "full_house", 16),  # 8*2
    ([([], [3, 3, 3, 3, 6])], "four_of_a_kind", 24),  # 12*2
    ([([], [2, 2, 2, 2, 1]), ([0, 1, 2, 3], [2, 2, 2, 2, 2])], "poker", 60),  # 10 + 50
]


def test_complete_two_player_game_and_replay() -> None:
    state = physical(["Anna", "Boris"])
    log: list[tuple[int, dict]] = []

    def act(player: int, action: dict) -> None:
        state.apply_action(player, action)
        log.append((player, action))

    act(0, {"type": "roll", "dice": [1, 1, 1, 1, 1]})  # 5
    act(1, {"type": "roll", "dice": [6, 6, 6, 6, 6]})  # 30: Boris starts
    for b_turn, a_turn in zip(B_TURNS, A_TURNS, strict=True):
        for player, (rolls, cell, expected) in ((1, b_turn), (0, a_turn)):
            assert state.current_players() == [player]
            for keep, dice in rolls:
                act(player, {"type": "roll", "keep": keep, "dice": dice})
            act(player, {"type": "score", "cell": cell})
            assert state.view(None)["sheets"][player]["cells"][cell] == expected, cell
    assert state.is_over() and state.current_players() == []
    sheets = state.view(None)["sheets"]
    # Boris: 13 + 50 + (21+30+110+0+24+3+48+40+28 = 304) = 367
    assert (sheets[1]["subtotal"], sheets[1]["premium"], sheets[1]["total"]) == (13, 50, 367)
    # Anna: -22 + 0 + (6+0+0+18+0+20+16+24+60 = 144) = 122
    assert (sheets[0]["subtotal"], sheets[0]["premium"], sheets[0]["total"]) == (-22, 0, 122)
    assert len(sheets[0]["columns"]) == 17
    assert state.result() == {
        "standings": [
            {"player": 1, "name": "Boris", "total": 367, "place": 1},
            {"player": 0, "name": "Anna", "total": 122, "place": 2},
        ],
        "winners": [1],
    }
    again = replay(GAME, ["Anna", "Boris"], {"dice": "physical"}, 0, log)
    assert again.view(None) == state.view(None)


def test_digital_game_is_deterministic_and_ends() -> None:
    def play(seed: int):
        state = GAME.new_initial_state(["A", "B", "C"], {}, seed)
        log = []
        while not state.is_over():
            (player,) = state.current_players()
            legal = state.legal_actions(player)
            # always keep nothing and write the first open cell after one roll
            action = legal[0] if state.view(None)["phase"] == "roll_off" else None
            if action is None:
                turn = state.view(None)["turn"]
                action = (
                    {"type": "roll", "keep": []}
                    if turn["rolls"] == 0
                    else next(a for a in legal if a["type"] == "score")
                )
            state.apply_action(player, action)
            log.append((player, action))
        return state, log

    state, log = play(7)
    other, _ = play(7)
    assert state.view(None) == other.view(None)
    assert replay(GAME, ["A", "B", "C"], {}, 7, log).view(None) == state.view(None)
    with pytest.raises(IllegalAction):
        state.apply_action(0, {"type": "roll"})
    assert sorted(s["place"] for s in state.result()["standings"])[0] == 1


def test_sample_action_fills_physical_dice_and_keeps_kept_ones() -> None:
    import random

    state = physical(["A"])
    rng = random.Random(1)
    first = state.sample_action(state.legal_actions(0)[0], rng)
    assert first["keep"] == [] and len(first["dice"]) == 5
    state.apply_action(0, first)
    descriptor = next(a for a in state.legal_actions(0) if a.get("keep") == [1, 3])
    second = state.sample_action(descriptor, rng)
    kept = state.view(None)["turn"]["dice"]
    assert [second["dice"][1], second["dice"][3]] == [kept[1], kept[3]]
    state.apply_action(0, second)
    assert state.view(None)["turn"]["rolls"] == 2
