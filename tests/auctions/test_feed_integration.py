"""Combinations produced through the field feed (not inserted directly) go to auction.

RULES.md §1.2 worked example and §1.4: what the feed saves is what can be bid.
"""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.auctions.test_api import CLOSES, OPENS, ok, problem
from tests.factories import discard_code, event_cp_code, make_event, make_participant


def test_feed_combinations_are_auctioned(client: TestClient, admin: dict, session: Session) -> None:
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
    alice = make_participant(session, event, "301", "Alice")
    bob = make_participant(session, event, "302", "Bob")
    event_id = event.id
    cp = {
        card: event_cp_code(event, card)
        for card in ("QH", "QD", "QC", "TS", "AC", "KD", "5C", "JK1", "AS", "2H", "7D", "9S", "4C")
    }
    session.commit()

    def takes(who: str, codes: list[str], start: int) -> list[dict]:
        return [
            {
                "participant": who,
                "code": code,
                "source": "test",
                "source_id": f"{who}-{i}",
                "taken_at": (OPENS + timedelta(minutes=start + i)).isoformat(),
            }
            for i, code in enumerate(codes)
        ]

    # RULES.md §1.2 worked example: Q♥ Q♦ Q♣ 10♠ A♣, discard 10♠ A♣, K♦ 5♣, discard
    # both, Joker A♠, save: four of a kind, queens (the joker is the fourth queen).
    alice_codes = [
        cp["QH"],
        cp["QD"],
        cp["QC"],
        cp["TS"],
        cp["AC"],
        discard_code("TS"),
        discard_code("AC"),
        cp["KD"],
        cp["5C"],
        discard_code("KD"),
        discard_code("5C"),
        cp["JK1"],
        cp["AS"],
        alice.save_codes[0],
    ]
    # Bob: 2♥ 7♦ 9♠ 4♣ A♣ saved at once: high card, ace
    bob_codes = [cp["2H"], cp["7D"], cp["9S"], cp["4C"], cp["AC"], bob.save_codes[0]]
    feed = client.post(
        f"/api/v1/events/{event_id}/takes",
        headers=admin,
        json={"takes": takes("301", alice_codes, 0) + takes("302", bob_codes, 0)},
    )
    ok(feed)

    def combination_id(external_id: str) -> int:
        state = ok(
            client.get(f"/api/v1/events/{event_id}/participants/{external_id}/state", headers=admin)
        )
        assert len(state["combinations"]) == 1, state
        return state["combinations"][0]["id"]

    alice_combo, bob_combo = combination_id("301"), combination_id("302")
    base = f"/api/v1/events/{event_id}/auctions/3"
    ok(client.post(f"{base}/open", headers=admin))
    problem(
        client.post(
            f"{base}/bids",
            headers=admin,
            json={"participant": "302", "combination_id": alice_combo},
        ),
        422,
        "combination_not_yours",
    )
    for who, combo in (("301", alice_combo), ("302", bob_combo)):
        ok(
            client.post(
                f"{base}/bids", headers=admin, json={"participant": who, "combination_id": combo}
            ),
            201,
        )
    closed = ok(client.post(f"{base}/close", headers=admin))
    assert closed["winner"] == "301"
    assert [b["combination"]["category"] for b in closed["bids"]] == ["four_of_a_kind", "high_card"]
    assert sorted(closed["bids"][0]["combination"]["cards"]) == sorted(
        ["QH", "QD", "QC", "JK1", "AS"]
    )


def test_ceremony_overview_in_order(client: TestClient, admin: dict, session: Session) -> None:
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
    session.commit()
    url = f"/api/v1/events/{event.id}/auctions"
    overview = ok(client.get(url))
    assert (overview["open"], overview["next"]) == (None, 3)
    assert [a["place"] for a in overview["auctions"]] == [3, 2, 1]
    ok(client.post(f"{url}/3/open", headers=admin))
    assert (ok(client.get(url))["open"], ok(client.get(url))["next"]) == (3, None)
    ok(client.post(f"{url}/3/close", headers=admin))
    # closed, being revealed (RULES.md I-21): the next auction waits for the reveal
    overview = ok(client.get(url))
    assert (overview["open"], overview["next"], overview["auctions"][0]["revealing"]) == (
        None,
        None,
        True,
    )
    ok(client.post(f"{url}/3/reveal", headers=admin, json={"all": True}))
    overview = ok(client.get(url))
    assert (overview["open"], overview["next"]) == (None, 2)
    assert [a["status"] for a in overview["auctions"]] == ["closed", "pending", "pending"]
