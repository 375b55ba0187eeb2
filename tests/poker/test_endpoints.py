"""POST /api/v1/poker/evaluate and /compare (API.md "Open tools"): open, problem errors."""

from __future__ import annotations

import pytest

PROBLEM = "application/problem+json"


def test_evaluate_seed_worked_example(client):
    # RULES.md §1.3: Q♥ Q♦ Q♣ A♠ + joker is four of a kind, queens, ace kicker.
    response = client.post(
        "/api/v1/poker/evaluate", json={"cards": ["Q♥", "Q♦", "Q♣", "A♠", "Joker"]}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["ranking"] == "seed"
    assert body["category"] == "four_of_a_kind"
    assert body["description"] == "four of a kind, queens, ace kicker"
    assert body["description_ru"] == "каре дам, кикер туз"
    assert body["cards"] == [
        {"code": "QH", "display": "Q♥", "from_joker": False},
        {"code": "QD", "display": "Q♦", "from_joker": False},
        {"code": "QC", "display": "Q♣", "from_joker": False},
        {"code": "QS", "display": "Q♠", "from_joker": True},
        {"code": "AS", "display": "A♠", "from_joker": False},
    ]
    assert [c["code"] for c in body["source"]] == ["QH", "QD", "QC", "AS", "JK1"]
    assert body["source"][4]["display"] == "Joker"


def test_evaluate_classic_royal_flush_keeps_its_name(client):
    body = client.post(
        "/api/v1/poker/evaluate",
        json={"cards": ["10♠", "JS", "🂭", "кs", "ТS"], "ranking": "classic"},
    ).json()
    assert body["category"] == "royal_flush"
    assert body["ranking"] == "classic"
    assert [c["display"] for c in body["cards"]] == ["A♠", "K♠", "Q♠", "J♠", "10♠"]


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"cards": ["AS", "KS", "QS", "JS", "XX"]}, 422, "invalid_card"),
        ({"cards": ["AS", "KS", "QS", "JS", "🂬"]}, 422, "invalid_card"),  # a knight
        ({"cards": ["AS", "KS", "QS", "JS", "A♠"]}, 422, "duplicate_card"),
        ({"cards": ["JK", "JK", "JK", "JS", "AS"]}, 422, "duplicate_card"),
        ({"cards": ["AS", "KS", "QS", "JS"]}, 422, "invalid_hand_size"),
        ({"cards": ["AS", "KS", "QS", "JS", "TS", "9S"]}, 422, "invalid_hand_size"),
        ({"cards": ["AS", "KS", "QS", "JS", "TS"], "ranking": "poker"}, 422, "validation_error"),
        ({"cards": "AS KS QS JS TS"}, 422, "validation_error"),
        ({}, 422, "validation_error"),
    ],
)
def test_evaluate_bad_input_is_a_problem(client, payload, status, code):
    response = client.post("/api/v1/poker/evaluate", json=payload)
    assert response.status_code == status
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["code"] == code


def test_evaluate_names_the_bad_token(client):
    response = client.post("/api/v1/poker/evaluate", json={"cards": ["AS", "KS", "QS", "JS", "1S"]})
    assert "'1S'" in response.json()["detail"]
    assert response.json()["token"] == "1S"


def test_compare_winners_and_ranking(client):
    hands = [
        ["KS", "JS", "8S", "4S", "3S"],  # flush, king high
        ["3H", "3D", "3C", "3S", "9D"],  # four of a kind
        ["9S", "8S", "7S", "6S", "5S"],  # straight flush, nine high
        ["KD", "JD", "8D", "4D", "3D"],  # the same flush: ties with hand 0
    ]
    seed = client.post("/api/v1/poker/compare", json={"hands": hands}).json()
    assert seed["winners"] == [1]  # seed: four of a kind above straight flush
    assert [(r["index"], r["place"]) for r in seed["ranked"]] == [(1, 1), (2, 2), (0, 3), (3, 3)]
    classic = client.post(
        "/api/v1/poker/compare", json={"hands": hands, "ranking": "classic"}
    ).json()
    assert classic["winners"] == [2]
    assert [r["category"] for r in classic["ranked"]] == [
        "straight_flush",
        "four_of_a_kind",
        "flush",
        "flush",
    ]


def test_compare_tie_gives_several_winners(client):
    hands = [["AH", "KH", "QH", "JH", "TH"], ["AS", "KS", "QS", "JS", "TS"]]
    body = client.post("/api/v1/poker/compare", json={"hands": hands}).json()
    assert body["winners"] == [0, 1]
    assert [r["place"] for r in body["ranked"]] == [1, 1]


@pytest.mark.parametrize(
    ("hands", "code"),
    [
        ([["AS", "KS", "QS", "JS", "TS"], ["AS", "KS", "QS", "JS", "ZZ"]], "invalid_card"),
        ([["AS", "KS", "QS", "JS", "TS"], ["AS", "AS", "QS", "JS", "TS"]], "duplicate_card"),
        ([["AS", "KS", "QS", "JS", "TS"], ["AS"]], "invalid_hand_size"),
        ([], "validation_error"),
    ],
)
def test_compare_bad_input_is_a_problem(client, hands, code):
    response = client.post("/api/v1/poker/compare", json={"hands": hands})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == code
    if code != "validation_error":
        assert body["hand"] == 1
        assert body["detail"].startswith("Hand 1:")
