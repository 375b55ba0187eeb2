"""Poker dice and Locus Poker through the games API (API.md "Extra games").

Expected scores are worked out by hand from RULES.md §3 and §4.
"""

from __future__ import annotations

from tests.games.test_locus_poker import GRID


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_modules_list_both_games(client) -> None:
    modules = {m["module"]: m for m in client.get("/api/v1/games/modules").json()["modules"]}
    assert {"dice", "excess_scoring"} <= set(modules["poker-dice"]["options_schema"]["properties"])
    assert (modules["locus-poker"]["min_players"], modules["locus-poker"]["max_players"]) == (2, 2)


def test_evaluate_poker_dice(client) -> None:
    url = "/api/v1/games/modules/poker-dice/evaluate"
    poker = client.post(url, json={"dice": [6, 6, 6, 6, 6], "cell": "poker", "first_roll": True})
    assert poker.status_code == 200 and poker.json() == {"score": 110}  # 30*2 + 50
    fours = client.post(url, json={"dice": [4, 1, 2, 3, 5], "cell": "fours", "first_roll": False})
    assert fours.json() == {"score": -8}  # c=1: -(3-1)*4
    bad = client.post(url, json={"dice": [7, 1, 1, 1, 1], "cell": "ones", "first_roll": False})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_options"


def test_evaluate_locus_poker(client) -> None:
    url = "/api/v1/games/modules/locus-poker/evaluate"
    # a 6-card edge area: QH QS QD 3C 3D 9S → full house 9; chips 2*2 + 1 = 5
    response = client.post(
        url,
        json={
            "cards": ["QH", "QS", "QD", "3C", "3D", "9S"],
            "face_down": False,
            "chips": {"orthogonal": 2, "diagonal": 1},
        },
    )
    assert response.status_code == 200
    assert response.json() == {
        "category": "full_house",
        "hand_score": 9,
        "bonus_score": 5,
        "score": 14,
    }
    bad = client.post(url, json={"cards": ["QH", "XX"], "face_down": False, "chips": {}})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_options"


def test_poker_dice_game_with_physical_dice_via_api(client) -> None:
    created = client.post(
        "/api/v1/games",
        json={"module": "poker-dice", "players": ["Ann", "Bob"], "options": {"dice": "physical"}},
    )
    assert created.status_code == 201, created.text
    game = created.json()
    gid, tokens = game["id"], game["player_tokens"]

    def act(seat: int, action: dict):
        return client.post(
            f"/api/v1/games/{gid}/actions", json={"action": action}, headers=bearer(tokens[seat])
        )

    assert act(0, {"type": "roll", "dice": [1, 1, 2, 2, 3]}).status_code == 200  # 9
    assert act(1, {"type": "roll", "dice": [6, 5, 4, 3, 2]}).status_code == 200  # 20: Bob starts
    assert act(1, {"type": "roll", "dice": [5, 5, 5, 5, 1]}).status_code == 200
    changed = act(1, {"type": "roll", "keep": [0, 1], "dice": [4, 5, 5, 5, 1]})
    assert changed.status_code == 409 and changed.json()["code"] == "illegal_action"
    assert {"type": "score", "cell": "fives"} in changed.json()["legal_actions"]
    wrote = act(1, {"type": "score", "cell": "fives"})
    assert wrote.status_code == 200
    body = wrote.json()
    assert body["state"]["sheets"][1]["cells"]["fives"] == 15  # c=4: +3*5 (I-18)
    assert body["current_players"] == [0]


def test_locus_poker_against_the_computer_via_api(client) -> None:
    created = client.post(
        "/api/v1/games",
        json={
            "module": "locus-poker",
            "players": ["Ola", "Computer"],
            "options": {"grid": GRID, "opponent": "greedy"},
        },
    )
    assert created.status_code == 201, created.text
    game = created.json()
    gid, token = game["id"], game["player_tokens"][0]
    response = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": {"type": "play", "row": 1, "col": 1, "face_down": False}},
        headers=bearer(token),
    )
    assert response.status_code == 200, response.text
    # Ola's straight flush 11; the computer's reply (0,1) scores 11 + 2 = 13 (see
    # test_locus_poker.test_greedy_opponent_replies_with_its_best_move)
    assert response.json()["state"]["scores"] == [11, 13]
    again = client.get(f"/api/v1/games/{gid}").json()  # rebuilt from the log
    assert again["state"]["scores"] == [11, 13] and again["current_players"] == [0]
    assert again["seq"] == 1  # only the human's action is in the log
