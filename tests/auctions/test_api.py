"""The award ceremony through the API (RULES.md §1.4, I-7 to I-10; API.md "Auctions").

Hands are ranked by hand under the event's preset (`seed` unless said): the
comments give the category of each combination and why one beats another.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.audit import AuditEntry
from tests.factories import TestParticipant, make_combination, make_event, make_participant

OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)  # 12:00 Moscow
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)  # 06:00 Moscow next day
DURING = OPENS + timedelta(hours=3)


@dataclass
class World:
    event_id: int
    people: dict[str, TestParticipant]
    combos: dict[str, int]

    def url(self, place: int, suffix: str = "") -> str:
        return f"/api/v1/events/{self.event_id}/auctions/{place}{suffix}"

    def token(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.people[who].access_token}"}


def build(session: Session, hands: dict[str, dict[str, list[str]]], **event_args) -> World:
    """Participants named by their external id, each with named combinations."""
    event = make_event(session, opens_at=OPENS, closes_at=CLOSES, **event_args)
    people: dict[str, TestParticipant] = {}
    combos: dict[str, int] = {}
    for who, named in hands.items():
        people[who] = make_participant(session, event, who)
        for offset, (name, cards) in enumerate(named.items()):
            saved_at = DURING + timedelta(minutes=offset)
            combos[name] = make_combination(session, event, people[who], cards, saved_at).id
    session.commit()
    return World(event.id, people, combos)


def bid(client: TestClient, admin: dict, world: World, place: int, who: str, combo: str):
    return client.post(
        world.url(place, "/bids"),
        json={"participant": who, "combination_id": world.combos[combo]},
        headers=admin,
    )


def close(client: TestClient, admin: dict, world: World, place: int, json=None) -> dict:
    """Close the open round of `place`, then reveal all of it (RULES.md I-21): the
    close's answer."""
    closed = ok(client.post(world.url(place, "/close"), headers=admin, json=json))
    ok(client.post(world.url(place, "/reveal"), headers=admin, json={"all": True}))
    return closed


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == code


def audit_entries(session: Session, event_id: int) -> list[tuple[str, dict]]:
    """(action, details) of the event's audit trail, oldest first."""
    session.expire_all()
    rows = session.scalars(
        select(AuditEntry).where(AuditEntry.event_id == event_id).order_by(AuditEntry.id)
    )
    entries = [(row.action, dict(row.details)) for row in rows]
    session.rollback()  # end the read: on SQLite it holds the write lock the app needs
    return entries


def audit_actions(session: Session, event_id: int) -> list[str]:
    return [action for action, _ in audit_entries(session, event_id)]


# ----------------------------------------------------------- full ceremony

CEREMONY = {
    "A": {
        "A_quads": ["9S", "9H", "9D", "9C", "2C"],  # four of a kind, nines
        "A_pair": ["3S", "3H", "7D", "8C", "JS"],  # one pair, threes
        "A_high": ["4D", "6S", "TC", "QH", "KS"],  # high card, king
    },
    "B": {
        "B_quads": ["KS", "KH", "KD", "KC", "5H"],  # four of a kind, kings: B's best
        "B_pair": ["2D", "2S", "6H", "9S", "JD"],  # one pair, twos
    },
    "C": {
        "C_full": ["QS", "QD", "QC", "4H", "4S"],  # full house, queens over fours
        "C_flush": ["AD", "JD", "8D", "4D", "3D"],  # flush, ace high
    },
    "D": {
        "D_straight": ["5C", "6D", "7H", "8S", "9C"],  # straight, nine high
        "D_two_pair": ["TH", "TS", "6C", "6S", "AC"],  # two pair, tens and sixes
    },
}


def test_full_ceremony_keeping_the_best_for_first_place(
    client: TestClient, admin: dict, session: Session
) -> None:
    """B spends the best hand of the night (four kings) on 3rd place and wins 3rd;
    A keeps four nines for 1st and wins 1st although four kings would have beaten it."""
    w = build(session, CEREMONY)

    problem(client.post(w.url(1, "/open"), headers=admin), 409, "auction_out_of_order")
    ok(client.post(w.url(3, "/open"), headers=admin))
    problem(client.post(w.url(2, "/open"), headers=admin), 409, "auction_in_progress")
    for who, combo in [("A", "A_pair"), ("B", "B_quads"), ("C", "C_flush"), ("D", "D_two_pair")]:
        ok(bid(client, admin, w, 3, who, combo), 201)
    third = close(client, admin, w, 3)
    # seed order: four of a kind (3) > flush (6) > two pair (9) > one pair (10)
    assert (third["place"], third["status"], third["winner"], third["tie"]) == (
        3,
        "closed",
        "B",
        False,
    )
    assert [(b["participant"], b["rank"]) for b in third["bids"]] == [
        ("B", 1),
        ("C", 2),
        ("D", 3),
        ("A", 4),
    ]
    assert [b["combination"]["category"] for b in third["bids"]] == [
        "four_of_a_kind",
        "flush",
        "two_pair",
        "one_pair",
    ]
    assert third["bids"][0]["combination"]["cards"] == CEREMONY["B"]["B_quads"]
    assert third["bids"][0]["combination"]["display"] == ["K♠", "K♥", "K♦", "K♣", "5♥"]
    assert third["bids"][0]["combination"]["id"] == w.combos["B_quads"]

    ok(client.post(w.url(2, "/open"), headers=admin))
    problem(bid(client, admin, w, 2, "B", "B_pair"), 409, "bidder_already_won")  # I-8
    problem(bid(client, admin, w, 2, "C", "C_flush"), 409, "combination_used")  # lost, still used
    for who, combo in [("A", "A_high"), ("C", "C_full"), ("D", "D_straight")]:
        ok(bid(client, admin, w, 2, who, combo), 201)
    second = close(client, admin, w, 2)
    # full house (5) > straight (7) > high card (11)
    assert second["winner"] == "C"
    assert [(b["participant"], b["rank"]) for b in second["bids"]] == [("C", 1), ("D", 2), ("A", 3)]

    ok(client.post(w.url(1, "/open"), headers=admin))
    problem(bid(client, admin, w, 1, "C", "C_flush"), 409, "bidder_already_won")
    problem(bid(client, admin, w, 1, "D", "D_straight"), 409, "combination_used")
    problem(bid(client, admin, w, 1, "A", "A_pair"), 409, "combination_used")
    ok(bid(client, admin, w, 1, "A", "A_quads"), 201)
    first = close(client, admin, w, 1)
    assert (first["winner"], first["tie"]) == ("A", False)
    assert first["bids"][0]["combination"]["description"].startswith("four of a kind")

    results = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))
    assert [(p["place"], p["participant"], p["category"]) for p in results["places"]] == [
        (1, "A", "four_of_a_kind"),
        (2, "C", "full_house"),
        (3, "B", "four_of_a_kind"),
    ]
    assert results["places"][0]["combination"]["id"] == w.combos["A_quads"]
    assert [a["place"] for a in results["auctions"]] == [3, 2, 1]
    assert len(results["auctions"][0]["rounds"][0]["bids"]) == 4

    csv_response = client.get(f"/api/v1/events/{w.event_id}/auctions/results.csv")
    assert csv_response.status_code == 200
    assert csv_response.headers["content-type"].startswith("text/csv")
    lines = csv_response.text.strip().split("\n")
    assert lines[0] == (
        "place,round,participant,name,combination_id,cards,category,description,rank,result,"
        "log_head"
    )
    log_head = client.get(f"/api/v1/events/{w.event_id}/log/head").json()["head"]
    assert all(line.endswith("," + log_head) for line in lines[1:])
    assert len(lines) == 1 + 4 + 3 + 1
    assert lines[1].startswith(
        f"3,1,B,Participant B,{w.combos['B_quads']},KS KH KD KC 5H,four_of_a_kind,"
    )
    assert lines[1].endswith(f",1,winner,{log_head}")
    assert lines[2].endswith(f",2,lost,{log_head}")
    assert lines[-1].startswith(f"1,1,A,Participant A,{w.combos['A_quads']},")

    actions = audit_actions(session, w.event_id)
    assert actions.count("auction.open") == 3
    assert actions.count("auction.bid") == 8
    assert actions.count("auction.close") == 3


def test_classic_preset_changes_the_winner(
    client: TestClient, admin: dict, session: Session
) -> None:
    """Straight flush vs four of a kind: the seed preset puts four of a kind above (I-5),
    `classic` puts the straight flush above."""
    for ranking, winner in [("seed", "B"), ("classic", "A")]:
        a, b = f"A-{ranking}", f"B-{ranking}"  # access tokens derive from the external id
        hands = {
            a: {f"sf-{ranking}": ["8S", "7S", "6S", "5S", "4S"]},  # straight flush, 8 high
            b: {f"quads-{ranking}": ["3H", "3D", "3C", "3S", "KD"]},  # four of a kind, threes
        }
        w = build(session, hands, hand_ranking=ranking)
        ok(client.post(w.url(3, "/open"), headers=admin))
        ok(bid(client, admin, w, 3, a, f"sf-{ranking}"), 201)
        ok(bid(client, admin, w, 3, b, f"quads-{ranking}"), 201)
        closed = ok(client.post(w.url(3, "/close"), headers=admin))
        assert closed["winner"] == f"{winner}-{ranking}"


# ------------------------------------------------------------------- ties

TIE = {
    "P1": {
        "P1_flush": ["AH", "KH", "9H", "5H", "2H"],  # flush A-K-9-5-2
        "P1_trips": ["7C", "7D", "7S", "2D", "3C"],  # three of a kind, sevens
    },
    "P2": {
        "P2_flush": ["AS", "KS", "9S", "5S", "2S"],  # the same flush in spades: suits never rank
        "P2_two_pair": ["QC", "QD", "4C", "4H", "8H"],  # two pair, queens and fours
    },
    "P3": {
        "P3_pair": ["JH", "JC", "2C", "5D", "9D"],  # one pair, jacks
        "P3_other": ["TD", "8D", "6H", "4S", "3H"],  # high card
    },
}


def test_two_way_tie_resolved_by_a_tie_break_round(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, TIE)
    ok(client.post(w.url(3, "/open"), headers=admin))
    for who, combo in [("P1", "P1_flush"), ("P2", "P2_flush"), ("P3", "P3_pair")]:
        ok(bid(client, admin, w, 3, who, combo), 201)
    tied = close(client, admin, w, 3)
    assert (tied["status"], tied["winner"], tied["tie"], tied["resolution"]) == (
        "open",
        None,
        True,
        "tie_break",
    )
    assert tied["tied"] == ["P1", "P2"]
    assert tied["tie_break"] == {"round": 2, "eligible": ["P1", "P2"]}
    assert [(b["participant"], b["rank"]) for b in tied["bids"]] == [
        ("P1", 1),
        ("P2", 1),
        ("P3", 3),
    ]

    view = ok(client.get(w.url(3), headers=admin))
    assert (view["status"], view["round"]) == ("open", 2)
    assert view["rounds"][1]["eligible"] == ["P1", "P2"]

    problem(bid(client, admin, w, 3, "P3", "P3_other"), 409, "not_in_tie_break")
    problem(bid(client, admin, w, 3, "P1", "P1_flush"), 409, "combination_used")
    stale = client.post(
        w.url(3, "/bids"),
        headers=admin,
        json={"participant": "P1", "combination_id": w.combos["P1_trips"], "round": 1},
    )
    problem(stale, 409, "round_closed")
    ok(bid(client, admin, w, 3, "P1", "P1_trips"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_two_pair"), 201)
    decided = close(client, admin, w, 3)
    # three of a kind (8) beats two pair (9)
    assert (decided["status"], decided["round"], decided["winner"], decided["tie"]) == (
        "closed",
        2,
        "P1",
        False,
    )
    assert [b["combination"]["category"] for b in decided["bids"]] == [
        "three_of_a_kind",
        "two_pair",
    ]

    results = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))
    assert results["places"][2]["participant"] == "P1"
    assert results["places"][2]["combination"]["id"] == w.combos["P1_trips"]
    assert "auction.tie_break_open" in audit_actions(session, w.event_id)

    # 2nd place: P2's flush and two pair are used up, P3's pair too; P3 still has one
    ok(client.post(w.url(2, "/open"), headers=admin))
    problem(bid(client, admin, w, 2, "P2", "P2_two_pair"), 409, "combination_used")
    problem(bid(client, admin, w, 2, "P1", "P1_trips"), 409, "bidder_already_won")
    ok(bid(client, admin, w, 2, "P3", "P3_other"), 201)
    assert close(client, admin, w, 2)["winner"] == "P3"


def test_closed_tie_break_auction_reads_as_its_close(
    client: TestClient, admin: dict, session: Session
) -> None:
    """Round 1: P1 and P2 tie on the same flush (suits never rank), P3's pair is third.
    Round 2: P1's three of a kind beats P2's two pair, so the close reports no tie
    in the deciding round; the GET must say the same and list all 5 revealed bids."""
    w = build(session, TIE)
    ok(client.post(w.url(3, "/open"), headers=admin))
    for who, combo in [("P1", "P1_flush"), ("P2", "P2_flush"), ("P3", "P3_pair")]:
        ok(bid(client, admin, w, 3, who, combo), 201)
    assert close(client, admin, w, 3)["tie"] is True
    during = ok(client.get(w.url(3), headers=admin))
    assert (during["status"], during["round"], during["tie"], during["bid_count"]) == (
        "open",
        2,
        True,  # as round 1's close reported it
        0,  # nobody has bid in the tie-break round yet
    )
    ok(bid(client, admin, w, 3, "P1", "P1_trips"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_two_pair"), 201)
    closed = close(client, admin, w, 3)
    for caller in (admin, {}):
        view = ok(client.get(w.url(3), headers=caller))
        assert (view["place"], view["status"], view["winner"], view["tie"]) == (
            closed["place"],
            closed["status"],
            closed["winner"],
            closed["tie"],
        )
        assert (view["place"], view["status"], view["winner"], view["tie"]) == (
            3,
            "closed",
            "P1",
            False,
        )
        assert (view["round"], view["resolution"]) == (2, "strongest")
        assert view["bid_count"] == 5  # 3 bids in round 1 + 2 in the tie-break round
        assert [(b["round"], b["participant"], b["rank"]) for b in view["bids"]] == [
            (1, "P1", 1),
            (1, "P2", 1),
            (1, "P3", 3),
            (2, "P1", 1),
            (2, "P2", 2),
        ]
        assert view["bids"][3:] == closed["bids"]


def test_tie_nobody_can_rebid_is_decided_by_recorded_lots(
    client: TestClient, admin: dict, session: Session
) -> None:
    hands = {"P1": {"P1_flush": TIE["P1"]["P1_flush"]}, "P2": {"P2_flush": TIE["P2"]["P2_flush"]}}
    w = build(session, hands)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_flush"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_flush"), 201)
    closed = close(client, admin, w, 3, json={"lots_seed": 20260613})
    expected = random.Random(20260613).choice(["P1", "P2"])  # the documented recipe
    assert (closed["status"], closed["tie"], closed["resolution"]) == ("closed", True, "lots")
    assert closed["lots"] == {"seed": 20260613, "candidates": ["P1", "P2"], "winner": expected}
    assert closed["winner"] == expected

    lots = [d for action, d in audit_entries(session, w.event_id) if action == "auction.lots"]
    assert len(lots) == 1
    assert lots[0]["seed"] == 20260613 and lots[0]["winner"] == expected
    results = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))
    assert results["places"][2]["participant"] == expected
    assert results["places"][2]["resolution"] == "lots"


def test_lots_without_a_given_seed_record_a_seed_that_replays(
    client: TestClient, admin: dict, session: Session
) -> None:
    hands = {
        "P1": {"P1_flush": TIE["P1"]["P1_flush"]},
        "P2": {"P2_flush": TIE["P2"]["P2_flush"]},
        "P3": {"P3_flush": ["AC", "KC", "9C", "5C", "2C"]},
    }
    w = build(session, hands)
    ok(client.post(w.url(3, "/open"), headers=admin))
    for who in ("P1", "P2", "P3"):
        ok(bid(client, admin, w, 3, who, f"{who}_flush"), 201)
    lots = ok(client.post(w.url(3, "/close"), headers=admin))["lots"]
    assert lots["candidates"] == ["P1", "P2", "P3"]
    assert random.Random(lots["seed"]).choice(["P1", "P2", "P3"]) == lots["winner"]


def test_tied_bidder_with_nothing_left_loses_the_tie_break(
    client: TestClient, admin: dict, session: Session
) -> None:
    hands = {"P1": {"P1_flush": TIE["P1"]["P1_flush"]}, "P2": TIE["P2"]}
    w = build(session, hands)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_flush"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_flush"), 201)
    closed = ok(client.post(w.url(3, "/close"), headers=admin))
    assert (closed["status"], closed["winner"], closed["resolution"], closed["tie"]) == (
        "closed",
        "P2",
        "only_bidder_left",
        True,
    )


# ----------------------------------------------------------------- no bids


def test_auction_with_no_bids_leaves_the_place_unawarded(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, {"A": {"A_pair": CEREMONY["A"]["A_pair"]}})
    ok(client.post(w.url(3, "/open"), headers=admin))
    closed = close(client, admin, w, 3)
    assert closed == {
        "place": 3,
        "status": "closed",
        "round": 1,
        "winner": None,
        "tie": False,
        "resolution": "no_bids",
        "tied": [],
        "tie_break": None,
        "lots": None,
        "bids": [],
    }
    results = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))
    assert results["places"][2]["awarded"] is False
    assert results["places"][2]["status"] == "closed"
    assert (
        "3,,,,,,,,,unawarded"
        in client.get(f"/api/v1/events/{w.event_id}/auctions/results.csv").text
    )
    ok(client.post(w.url(2, "/open"), headers=admin))
    ok(bid(client, admin, w, 2, "A", "A_pair"), 201)  # nothing was used up in place 3


# ------------------------------------------------------------------ sealed


def test_sealed_bids_cannot_be_read_before_the_close(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(
        session,
        {
            "A": {"A_quads": CEREMONY["A"]["A_quads"]},
            "B": {"B_pair": CEREMONY["B"]["B_pair"]},
            "C": {},
        },
    )
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "A", "A_quads"), 201)
    mine = ok(
        client.post(
            w.url(3, "/bids"), headers=w.token("B"), json={"combination_id": w.combos["B_pair"]}
        ),
        201,
    )

    # what would unseal a bid: its cards, their display, its category, its combination
    secrets_of = ['"9S"', '"2D"', "9♠", "2♦", "four", "pair"]

    def sealed_text(text: str) -> bool:
        return not any(secret in text for secret in secrets_of)

    organiser = client.get(w.url(3), headers=admin)
    assert organiser.json()["bid_count"] == 2 and organiser.json()["bidders"] == ["A", "B"]
    assert organiser.json()["bids"] == []
    assert sealed_text(organiser.text) and '"combination"' not in organiser.text
    public = client.get(w.url(3))
    assert public.json()["bid_count"] == 2 and public.json()["bidders"] is None
    assert sealed_text(public.text) and '"combination"' not in public.text
    other = client.get(w.url(3), headers=w.token("C"))
    assert other.json()["my_bid"] is None and other.json()["bidders"] is None
    assert sealed_text(other.text) and '"combination"' not in other.text
    own = client.get(w.url(3), headers=w.token("B")).json()
    assert own["my_bid"]["bid_id"] == mine["bid_id"]
    assert own["my_bid"]["combination"]["id"] == w.combos["B_pair"]
    assert own["bidders"] is None
    assert sealed_text(json.dumps(own["rounds"]))

    for path in ("/api/v1/events/{e}/auctions/results", "/api/v1/events/{e}/auctions/results.csv"):
        response = client.get(path.format(e=w.event_id), headers=admin)
        assert sealed_text(response.text)
    problem(
        client.get(w.url(3, "/verify"), params={"receipt": mine["receipt"]}),
        409,
        "round_not_closed",
    )
    # the audit trail holds receipts only
    details = [d for _, d in audit_entries(session, w.event_id)]
    assert sealed_text(json.dumps(details, ensure_ascii=False))
    assert all("combination_id" not in d and "combination" not in d for d in details)

    closed = close(client, admin, w, 3)
    assert {b["participant"] for b in closed["bids"]} == {"A", "B"}
    revealed = ok(client.get(w.url(3)))
    assert revealed["bids"][0]["combination"]["id"] == w.combos["A_quads"]


def test_participant_bids_only_for_themselves(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(
        session,
        {"A": {"A_pair": CEREMONY["A"]["A_pair"]}, "B": {"B_pair": CEREMONY["B"]["B_pair"]}},
    )
    ok(client.post(w.url(3, "/open"), headers=admin))
    as_other = client.post(
        w.url(3, "/bids"),
        headers=w.token("A"),
        json={"participant": "B", "combination_id": w.combos["B_pair"]},
    )
    problem(as_other, 403, "not_your_bid")
    problem(
        client.post(
            w.url(3, "/bids"), headers=w.token("A"), json={"combination_id": w.combos["B_pair"]}
        ),
        422,
        "combination_not_yours",
    )
    problem(
        client.post(w.url(3, "/bids"), json={"combination_id": w.combos["A_pair"]}),
        401,
        "unauthorized",
    )
    problem(
        client.post(w.url(3, "/bids"), headers=admin, json={"combination_id": w.combos["A_pair"]}),
        422,
        "participant_required",
    )
    problem(
        client.post(
            w.url(3, "/bids"),
            headers=admin,
            json={"participant": "Z", "combination_id": w.combos["A_pair"]},
        ),
        422,
        "participant_not_found",
    )
    problem(
        client.post(
            w.url(3, "/bids"), headers=admin, json={"participant": "A", "combination_id": 999999}
        ),
        422,
        "combination_not_found",
    )
    problem(client.post(w.url(3, "/open"), headers=w.token("A")), 401, "unauthorized")
    problem(client.post(w.url(3, "/close"), headers=w.token("A")), 401, "unauthorized")


def test_combination_saved_outside_the_course_window_is_refused(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, {"A": {}})
    event_id = w.event_id
    from app.events.models import Event

    event = session.get(Event, event_id)
    late = make_combination(session, event, w.people["A"], CEREMONY["A"]["A_pair"], CLOSES)
    session.commit()
    ok(client.post(w.url(3, "/open"), headers=admin))
    response = client.post(
        w.url(3, "/bids"), headers=admin, json={"participant": "A", "combination_id": late.id}
    )
    problem(response, 422, "combination_outside_course_hours")


# ------------------------------------------------------- replace, withdraw


def test_replace_and_withdraw_until_the_close(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(
        session,
        {
            "A": {
                "A_pair": CEREMONY["A"]["A_pair"],
                "A_high": CEREMONY["A"]["A_high"],
                "A_quads": CEREMONY["A"]["A_quads"],
            },
            "B": {"B_pair": CEREMONY["B"]["B_pair"]},
        },
    )
    ok(client.post(w.url(3, "/open"), headers=admin))
    first = ok(bid(client, admin, w, 3, "A", "A_pair"), 201)
    second = ok(
        client.post(
            w.url(3, "/bids"),
            headers=w.token("A"),
            json={"participant": "A", "combination_id": w.combos["A_high"]},
        ),
        201,
    )
    assert second["replaced_bid_id"] == first["bid_id"]
    assert ok(client.get(w.url(3), headers=admin))["bid_count"] == 1

    b_bid = ok(bid(client, admin, w, 3, "B", "B_pair"), 201)
    problem(
        client.delete(w.url(3, f"/bids/{b_bid['bid_id']}"), headers=w.token("A")),
        403,
        "not_your_bid",
    )
    ok(client.delete(w.url(3, f"/bids/{b_bid['bid_id']}"), headers=w.token("B")))
    problem(client.delete(w.url(3, f"/bids/{b_bid['bid_id']}"), headers=admin), 409, "bid_not_live")
    problem(client.delete(w.url(3, f"/bids/{first['bid_id']}"), headers=admin), 409, "bid_not_live")
    problem(client.delete(w.url(3, "/bids/999999"), headers=admin), 404, "bid_not_found")
    assert ok(client.get(w.url(3), headers=admin))["bidders"] == ["A"]

    closed = close(client, admin, w, 3)
    assert [(b["participant"], b["combination"]["id"]) for b in closed["bids"]] == [
        ("A", w.combos["A_high"])
    ]
    problem(
        client.delete(w.url(3, f"/bids/{second['bid_id']}"), headers=admin), 409, "auction_closed"
    )
    verify_replaced = ok(client.get(w.url(3, "/verify"), params={"receipt": first["receipt"]}))
    assert (verify_replaced["counted"], verify_replaced["status"]) == (False, "replaced")
    assert "combination" not in verify_replaced and "nonce" not in verify_replaced
    withdrawn = ok(client.get(w.url(3, "/verify"), params={"receipt": b_bid["receipt"]}))
    assert withdrawn["status"] == "withdrawn"

    actions = audit_actions(session, w.event_id)
    assert actions.count("auction.bid_replace") == 1
    assert actions.count("auction.bid_withdraw") == 1
    # A won 3rd; B withdrew, so B's pair was not used up
    ok(client.post(w.url(2, "/open"), headers=admin))
    ok(bid(client, admin, w, 2, "B", "B_pair"), 201)


# ------------------------------------------------------------ open / close


def test_bids_before_open_and_after_close(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(
        session,
        {
            "A": {"A_pair": CEREMONY["A"]["A_pair"], "A_high": CEREMONY["A"]["A_high"]},
            "B": {"B_pair": CEREMONY["B"]["B_pair"]},
        },
    )
    problem(bid(client, admin, w, 3, "A", "A_pair"), 409, "auction_not_open")
    problem(bid(client, admin, w, 2, "A", "A_pair"), 409, "auction_not_open")
    pending = ok(client.get(w.url(3)))
    assert (pending["status"], pending["bid_count"]) == ("pending", 0)
    problem(client.post(w.url(3, "/close"), headers=admin), 409, "auction_not_open")
    ok(client.post(w.url(3, "/open"), headers=admin))
    problem(client.post(w.url(3, "/open"), headers=admin), 409, "auction_already_open")
    ok(bid(client, admin, w, 3, "A", "A_pair"), 201)
    ok(client.post(w.url(3, "/close"), headers=admin))
    problem(bid(client, admin, w, 3, "B", "B_pair"), 409, "auction_closed")
    problem(client.post(w.url(3, "/close"), headers=admin), 409, "auction_closed")
    problem(client.post(w.url(3, "/open"), headers=admin), 409, "auction_already_closed")
    problem(client.post(w.url(4, "/open"), headers=admin), 404, "auction_not_found")
    problem(client.get("/api/v1/events/999999/auctions/3"), 404, "event_not_found")


def test_auctions_wait_for_the_course_to_close(
    client: TestClient, admin: dict, session: Session
) -> None:
    # open from an hour ago; closes 03:00 UTC = 06:00 Moscow (UTC+3, no DST since 2014)
    event = make_event(session, closes_at=datetime(2099, 6, 13, 3, 0, tzinfo=UTC))
    session.commit()
    response = client.post(f"/api/v1/events/{event.id}/auctions/3/open", headers=admin)
    problem(response, 409, "course_still_open")
    detail = response.json()["detail"]
    assert "2099-06-13 06:00 MSK (Europe/Moscow)" in detail
    assert "2099-06-13T03:00:00+00:00" in detail
    assert "auctions open after that" in detail


# ----------------------------------------------------------------- receipts


def test_receipt_verifies_by_hand_and_by_endpoint(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, {"A": {"A_pair": CEREMONY["A"]["A_pair"]}})
    ok(client.post(w.url(3, "/open"), headers=admin))
    receipt = ok(bid(client, admin, w, 3, "A", "A_pair"), 201)["receipt"]
    closed = close(client, admin, w, 3)
    nonce = closed["bids"][0]["nonce"]
    assert closed["bids"][0]["receipt"] == receipt
    # the README recipe, by hand
    text = (
        f"rogaine-auction-bid/v1|event={w.event_id}|place=3|round=1|bidder=A"
        f"|combination={w.combos['A_pair']}|nonce={nonce}"
    )
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == receipt

    checked = ok(client.get(w.url(3, "/verify"), params={"receipt": receipt}))
    assert checked["valid"] is True and checked["counted"] is True
    assert checked["commitment_string"] == text
    assert checked["combination"]["id"] == w.combos["A_pair"] and checked["rank"] == 1
    problem(client.get(w.url(3, "/verify"), params={"receipt": "0" * 64}), 404, "receipt_not_found")
    problem(client.get(w.url(3, "/verify"), params={"receipt": "xyz"}), 422, "validation_error")


# --------------------------------------------------------------------- undo


def test_undo_last_close_until_the_next_auction_opens(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(
        session,
        {
            "A": {"A_pair": CEREMONY["A"]["A_pair"], "A_high": CEREMONY["A"]["A_high"]},
            "B": {"B_quads": CEREMONY["B"]["B_quads"], "B_pair": CEREMONY["B"]["B_pair"]},
        },
    )
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "A", "A_pair"), 201)
    problem(client.post(w.url(3, "/undo"), headers=admin), 409, "auction_not_closed")
    assert ok(client.post(w.url(3, "/close"), headers=admin))["winner"] == "A"

    undone = ok(client.post(w.url(3, "/undo"), headers=admin))
    assert (undone["status"], undone["winner"], undone["bid_count"]) == ("open", None, 1)
    assert undone["rounds"][0]["status"] == "open"
    # reopened: B may still bid, and A's pair is not used up any more
    ok(bid(client, admin, w, 3, "B", "B_quads"), 201)
    again = close(client, admin, w, 3)
    assert again["winner"] == "B"  # four kings beat a pair of threes

    ok(client.post(w.url(2, "/open"), headers=admin))
    problem(client.post(w.url(3, "/undo"), headers=admin), 409, "undo_too_late")
    problem(bid(client, admin, w, 2, "A", "A_pair"), 409, "combination_used")  # bid in the re-close
    ok(bid(client, admin, w, 2, "A", "A_high"), 201)
    problem(client.post(w.url(2, "/undo"), headers=w.token("A")), 401, "unauthorized")
    actions = audit_actions(session, w.event_id)
    assert actions.count("auction.undo_close") == 1
    assert actions.count("auction.close") == 2


def test_undo_of_a_tie_removes_the_empty_tie_break_round(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, TIE)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_flush"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_flush"), 201)
    assert ok(client.post(w.url(3, "/close"), headers=admin))["resolution"] == "tie_break"
    undone = ok(client.post(w.url(3, "/undo"), headers=admin))
    assert (undone["status"], undone["round"], len(undone["rounds"])) == ("open", 1, 1)
    ok(bid(client, admin, w, 3, "P3", "P3_pair"), 201)
    again = close(client, admin, w, 3)  # revealed: the tied bidders may rebid now
    assert again["tie_break"] == {"round": 2, "eligible": ["P1", "P2"]}
    ok(bid(client, admin, w, 3, "P1", "P1_trips"), 201)
    problem(client.post(w.url(3, "/undo"), headers=admin), 409, "undo_after_reveal")


def test_tie_break_round_without_bids_goes_to_lots_and_can_be_undone(
    client: TestClient, admin: dict, session: Session
) -> None:
    """Both tied bidders could rebid but neither does: lots among them (RULES.md I-9);
    the place records the winner's tied flush. Undo, before anything of round 2 is
    revealed, discards the draw (kept in the audit); once revealed, it is refused."""
    w = build(session, TIE)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_flush"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_flush"), 201)
    assert close(client, admin, w, 3)["tie_break"]["round"] == 2
    closed = ok(client.post(w.url(3, "/close"), headers=admin, json={"lots_seed": 7}))
    expected = random.Random(7).choice(["P1", "P2"])
    assert (closed["round"], closed["resolution"], closed["winner"], closed["bids"]) == (
        2,
        "lots",
        expected,
        [],
    )
    undone = ok(client.post(w.url(3, "/undo"), headers=admin))
    assert (undone["status"], undone["round"], undone["winner"]) == ("open", 2, None)
    entries = audit_entries(session, w.event_id)
    undo = [d for action, d in entries if action == "auction.undo_close"]
    assert undo[0]["undone"]["lots"]["seed"] == 7

    close(client, admin, w, 3, json={"lots_seed": 7})  # the same draw, revealed
    place = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))["places"][2]
    assert place["participant"] == expected
    assert place["combination"]["id"] == w.combos[f"{expected}_flush"]
    problem(client.post(w.url(3, "/undo"), headers=admin), 409, "undo_after_reveal")
