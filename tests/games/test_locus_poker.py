"""Locus Poker (RULES.md §4, I-19, I-20): areas, joker, dead cards, bonus, a whole game.

Expected scores are worked out by hand from RULES.md §4 on the grid below;
each case shows the cards of its scoring area and the combination found.
"""

from __future__ import annotations

import pytest

from app.games.base import REGISTRY, IllegalAction, InvalidOptions, replay
from app.games.locus_poker import LocusPoker, hand_category

GAME = LocusPoker()

# 6 columns x 5 rows, row by row.
GRID = [
    ["5H", "6H", "7H", "2S", "3S", "4S"],
    ["8H", "2C", "9H", "5S", "6S", "AD"],
    ["KS", "KD", "3D", "QC", "JC", "TC"],
    ["4C", "5C", "6C", "7C", "8C", "9C"],
    ["2D", "4D", "5D", "6D", "7D", "8D"],
]


def new(opponent: str | None = None):
    options: dict = {"grid": GRID}
    if opponent:
        options["opponent"] = opponent
    return GAME.new_initial_state(["Ola", "Jan"], options, 0)


def play(row: int, col: int, face_down: bool = False) -> dict:
    return {"type": "play", "row": row, "col": col, "face_down": face_down}


def last_turn(state) -> dict:
    return state.view(None)["turns"][-1]


# -- hand scores (via the evaluate payload of API.md) ----------------------------------

HANDS = [
    (["2C", "5H", "9D", "JS"], "nothing", 0),
    (["2C", "2H", "9D"], "one_pair", 2),
    (["2C", "2H", "9D", "9S", "KD"], "two_pair", 4),
    (["7C", "7H", "7D", "2S"], "three_of_a_kind", 5),
    (["AC", "2H", "3D", "4S", "5C", "9H"], "straight", 7),  # ace low
    (["TC", "JH", "QD", "KS", "AC"], "straight", 7),  # ace high
    (["QC", "KH", "AD", "2S", "3C"], "nothing", 0),  # no wrap-around
    (["2H", "5H", "9H", "JH", "KH", "2C"], "flush", 8),  # beats the pair of 2s
    (["3C", "3H", "3D", "9S", "9C"], "full_house", 9),
    (["8C", "8H", "8D", "8S", "2C"], "four_of_a_kind", 10),
    (["5D", "6D", "7D", "8D", "9D", "9C", "9H", "9S"], "straight_flush", 11),  # beats 9999
]


@pytest.mark.parametrize(("cards", "category", "hand_score"), HANDS)
def test_hand_scores(cards: list[str], category: str, hand_score: int) -> None:
    payload = {"cards": cards, "face_down": False, "chips": {"orthogonal": 0, "diagonal": 0}}
    assert GAME.evaluate(payload) == {
        "category": category,
        "hand_score": hand_score,
        "bonus_score": 0,
        "score": hand_score,
    }


def test_joker_and_bonus_in_evaluate() -> None:
    # the first code is ignored with face_down; four 8s + joker is not five of a kind
    four = GAME.evaluate(
        {"cards": ["whatever", "8C", "8H", "8D", "8S"], "face_down": True, "chips": {}}
    )
    assert (four["category"], four["hand_score"]) == ("four_of_a_kind", 10)
    chips = {"orthogonal": 4, "diagonal": 4}
    sf = GAME.evaluate({"cards": ["2C", "2S", "3S", "4S", "5S"], "face_down": True, "chips": chips})
    # joker = AS or 6S: straight flush 11; 4*2 + 4*1 = 12
    assert sf == {"category": "straight_flush", "hand_score": 11, "bonus_score": 12, "score": 23}
    lone = GAME.evaluate({"cards": ["KS"], "face_down": True, "chips": {"diagonal": 2}})
    assert lone == {"category": "nothing", "hand_score": 0, "bonus_score": 2, "score": 2}
    assert (
        GAME.evaluate({"cards": ["2C", "KS"], "face_down": True, "chips": {}})["category"]
        == "one_pair"
    )
    for bad in (
        {"cards": [], "face_down": False},
        {"cards": ["2C", "2C"], "face_down": False},
        {"cards": ["1X"], "face_down": False},
        {"cards": ["2C"], "face_down": False, "chips": {"orthogonal": 5}},
        {"cards": ["2C"] * 10, "face_down": False},
    ):
        with pytest.raises(InvalidOptions):
            GAME.evaluate(bad)


def test_joker_never_makes_five_of_a_kind() -> None:
    assert hand_category(["AS", "AH", "AD", "AC"], jokers=1) == "four_of_a_kind"


# -- the game on the grid --------------------------------------------------------------


def test_scoring_areas_of_nine_six_and_four_cards() -> None:
    state = new()
    # centre (1,1) 2C: 5H 6H 7H / 8H 2C 9H / KS KD 3D → hearts 5-9, straight flush 11
    # without the chosen card (I-19); no chips around: bonus 0
    state.apply_action(0, play(1, 1))
    turn = last_turn(state)
    assert sorted(turn["area"]) == sorted(["5H", "6H", "7H", "8H", "2C", "9H", "KS", "KD", "3D"])
    assert (turn["category"], turn["hand_score"], turn["bonus_score"]) == ("straight_flush", 11, 0)
    # top edge (0,4) 3S: 2S 3S 4S / 5S 6S AD → spades 2-6, 11
    state.apply_action(1, play(0, 4))
    turn = last_turn(state)
    assert sorted(turn["area"]) == sorted(["2S", "3S", "4S", "5S", "6S", "AD"])
    assert (turn["score"], turn["bonus_score"]) == (11, 0)
    # corner (4,5) 8D: 8C 9C / 7D 8D → pair of 8s, 2
    state.apply_action(0, play(4, 5))
    turn = last_turn(state)
    assert sorted(turn["area"]) == sorted(["8C", "9C", "7D", "8D"])
    assert (turn["category"], turn["score"]) == ("one_pair", 2)
    assert state.view(None)["scores"] == [13, 11]


def test_joker_turn_then_dead_card() -> None:
    state = new()
    state.apply_action(0, play(1, 1))  # 2C face up (11, see above)
    # (3,1) 5C; area KS KD 3D / 4C 5C 6C / 2D 4D 5D.
    # Face up: diamonds 2 3 4 5 K → flush 8 (straight 2-6 is only 7).
    assert state.score_move(3, 1, False)["score"] == 8
    # Face down: the joker is 6D (or AD) → 2D-6D straight flush 11, bonus 0
    state.apply_action(1, play(3, 1, face_down=True))
    turn = last_turn(state)
    assert turn["area"][0] == "??"
    assert (turn["category"], turn["hand_score"], turn["score"]) == ("straight_flush", 11, 11)
    # (2,1) KD face up: 8H 2C 9H / KS KD 3D / 4C [5C dead] 6C. Without the dead 5C
    # the 2-6 straight is gone: pair of kings 2. Bonus: the chip on 2C above (orthogonal,
    # face up) 2; the chip on the dead 5C does not count → 2 + 2 = 4.
    state.apply_action(0, play(2, 1))
    turn = last_turn(state)
    assert "5C" not in turn["area"] and len(turn["area"]) == 8
    assert (turn["category"], turn["hand_score"], turn["orthogonal"], turn["diagonal"]) == (
        "one_pair",
        2,
        1,
        0,
    )
    assert turn["score"] == 4
    assert state.view(None)["scores"] == [15, 11]


def test_bonus_twelve_when_surrounded_by_chips() -> None:
    state = new()
    # fill the 8 neighbours of (1,4) 6S face up, alternating players, then play (1,4)
    ring = [(0, 3), (0, 4), (0, 5), (1, 3), (1, 5), (2, 3), (2, 4), (2, 5)]
    for k, (row, col) in enumerate(ring):
        state.apply_action(k % 2, play(row, col))
    state.apply_action(0, play(1, 4))
    turn = last_turn(state)
    # area 2S 3S 4S / 5S 6S AD / QC JC TC: spades 2-6, 11; bonus 4*2 + 4*1 = 12
    assert (turn["hand_score"], turn["orthogonal"], turn["diagonal"]) == (11, 4, 4)
    assert (turn["bonus_score"], turn["score"]) == (12, 23)


def test_illegal_moves() -> None:
    state = new()
    state.apply_action(0, play(0, 0))
    for player, action in (
        (0, play(0, 1)),  # not seat 0's turn
        (1, play(0, 0)),  # card used
        (1, play(5, 0)),  # outside the 6x5 grid
        (1, {"type": "play", "row": 0, "col": 1}),  # face_down missing
        (1, {"type": "pass"}),
    ):
        with pytest.raises(IllegalAction) as exc:
            state.apply_action(player, action)
        assert exc.value.code == "illegal_action"
    assert len(state.legal_actions(1)) == 2 * 29


def test_greedy_opponent_replies_with_its_best_move() -> None:
    state = new("greedy")
    state.apply_action(0, play(1, 1))  # 11 for Ola
    # By hand, the best reply is (0,1) 6H face up: 5H 6H 7H / 8H 2C 9H → straight
    # flush 11 + the orthogonal chip on 2C 2 = 13. (2,1) face down also makes 13
    # (joker 3C: 2C-6C) but comes later in row-major order.
    turn = last_turn(state)
    assert (turn["player"], turn["row"], turn["col"], turn["face_down"], turn["auto"]) == (
        1,
        0,
        1,
        False,
        True,
    )
    assert turn["score"] == 13
    assert state.current_players() == [0]


def test_options_and_registry() -> None:
    assert REGISTRY["locus-poker"].metadata()["max_players"] == 2
    assert new().view(None)["chips_per_player"] == 15  # half of 30
    for size, cards in (("6x5", 30), ("6x6", 36), ("7x6", 42), ("8x6", 48)):
        state = GAME.new_initial_state(["A", "B"], {"grid_size": size}, 5)
        view = state.view(None)
        assert view["cols"] * view["rows"] == cards
        assert view["chips_per_player"] == cards // 2
        assert len({cell["card"] for row in view["grid"] for cell in row}) == cards
    assert (
        GAME.new_initial_state(["A", "B"], {}, 5).view(None)["grid"]
        == GAME.new_initial_state(["A", "B"], {}, 5).view(None)["grid"]
    )
    flat = [code for row in GRID for code in row]
    assert GAME.new_initial_state(["A", "B"], {"grid": flat}, 0).view(None)["rows"] == 5
    for bad in (
        {"grid_size": "5x5"},
        {"opponent": "clever"},
        {"grid": flat[:29]},
        {"grid": [*flat[:29], flat[0]]},  # a card twice
        {"grid": [*flat[:29], "JK1"]},  # jokers are not in this game
        {"colour": "red"},
    ):
        with pytest.raises(InvalidOptions):
            GAME.new_initial_state(["A", "B"], bad, 0)
    with pytest.raises(InvalidOptions):
        GAME.new_initial_state(["A"], {}, 0)


def test_complete_game_replayed_from_its_log() -> None:
    state = GAME.new_initial_state(["Ola", "Jan"], {"grid_size": "6x6"}, 11)
    log = []
    k = 0
    while not state.is_over():
        (player,) = state.current_players()
        legal = state.legal_actions(player)
        action = legal[(7 * k) % len(legal)]  # a fixed spread of face-up and face-down plays
        state.apply_action(player, action)
        log.append((player, action))
        k += 1
    view = state.view(None)
    assert len(log) == 36 and view["chips_left"] == [0, 0]
    assert all(cell["played"] is not None for row in view["grid"] for cell in row)
    # each total is the sum of that player's turn scores
    for p in (0, 1):
        assert view["scores"][p] == sum(t["score"] for t in view["turns"] if t["player"] == p)
    a, b = view["scores"]
    assert state.result()["winner"] == (None if a == b else int(b > a))
    assert state.current_players() == [] and state.legal_actions(0) == []
    rebuilt = replay(GAME, ["Ola", "Jan"], {"grid_size": "6x6"}, 11, log)
    assert rebuilt.view(None) == view


def test_complete_game_against_the_computer_replays_from_human_moves() -> None:
    state = new("greedy")
    log = []
    while not state.is_over():
        assert state.current_players() == [0]
        action = state.legal_actions(0)[0]  # the first free card, face up
        state.apply_action(0, action)
        log.append((0, action))
    assert len(log) == 15 and len(state.view(None)["turns"]) == 30
    assert replay(GAME, ["Ola", "Jan"], {"grid": GRID, "opponent": "greedy"}, 0, log).view(
        None
    ) == state.view(None)


def test_draw_on_equal_totals() -> None:
    state = new()
    state.scores = [40, 40]
    state.chips_left = [0, 0]
    result = state.result()
    assert result["winner"] is None and result["draw"] is True
    assert [s["place"] for s in result["standings"]] == [1, 1]


def test_card_notations_of_api_md_are_accepted() -> None:
    # "10♥" and "Т♥" (Cyrillic Т = ace) are TH and AH: hearts T-A with JH QH KH → 11
    payload = {"cards": ["10♥", "jh", "Д♥", "KH", "Т♥"], "face_down": False, "chips": {}}
    assert GAME.evaluate(payload)["category"] == "straight_flush"
    with pytest.raises(InvalidOptions):  # the same card twice in two notations
        GAME.evaluate({"cards": ["10♥", "TH"], "face_down": False, "chips": {}})
    flat = [code for row in GRID for code in row]
    flat[0] = "5♥"  # 5H in another notation
    assert GAME.new_initial_state(["A", "B"], {"grid": flat}, 0).view(None)["grid"][0][0] == {
        "card": "5H",
        "display": "5♥",
        "played": None,
    }
