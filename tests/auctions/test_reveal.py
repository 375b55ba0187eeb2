"""Close, then reveal (RULES.md I-21; issue 23): a close decides a round, the organiser's
reveal publishes it step by step; undo only while nothing is revealed; a correction after
a reveal re-decides with the bids frozen.

Hands are ranked by hand under the `seed` preset (four of a kind above a straight
flush, RULES.md I-5): the comments give each category and why one beats another.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auctions.models import BidWithdrawal
from app.auctions.service import CORRECTION_ACTION
from app.core import chain as core_chain
from app.events.models import Event
from app.flows import log_chain
from app.live import hub, snapshots
from app.poker.cards import display
from tests.auctions.test_api import (
    DURING,
    audit_entries,
    bid,
    build,
    close,
    ok,
    problem,
)
from tests.factories import make_combination
from tests.web.test_signin import csrf_of

SECOND = {
    "A": {
        "A_sf": ["8S", "7S", "6S", "5S", "4S"],  # straight flush, 8 high
        "A_queens_ace": ["QS", "QH", "QD", "QC", "AH"],  # four queens, ace kicker
        "A_pair": ["3S", "3H", "7D", "8C", "JS"],  # one pair, threes
    },
    "B": {"B_queens_king": ["QS", "QH", "QD", "QC", "KD"]},  # four queens, king kicker
    "C": {"C_full": ["QS", "QD", "QC", "4H", "4S"]},  # full house: wins 3rd place alone
}


def second_place_closed(client: TestClient, admin: dict, session: Session):
    """3rd place to C (revealed); 2nd place: A (own phone token) bids her straight flush,
    B, without a phone, four queens with a king through the organiser; the close."""
    w = build(session, SECOND)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "C", "C_full"), 201)
    assert close(client, admin, w, 3)["winner"] == "C"
    ok(client.post(w.url(2, "/open"), headers=admin))
    a_bid = ok(
        client.post(
            w.url(2, "/bids"), headers=w.token("A"), json={"combination_id": w.combos["A_sf"]}
        ),
        201,
    )
    b_bid = ok(bid(client, admin, w, 2, "B", "B_queens_king"), 201)
    closed = ok(client.post(w.url(2, "/close"), headers=admin))
    return w, a_bid, b_bid, closed


def test_the_issue_scenario_no_rebid_after_a_reveal_and_a_correction(
    client: TestClient, admin: dict, session: Session
) -> None:
    w, a_bid, b_bid, closed = second_place_closed(client, admin, session)
    # The organiser's close answer has the whole decision: four queens beat the straight
    # flush under the seed preset (four of a kind 3 > straight flush 4).
    assert (closed["winner"], closed["status"]) == ("B", "closed")
    assert [(b["participant"], b["rank"]) for b in closed["bids"]] == [("B", 1), ("A", 2)]
    # The hall sees "closed, being revealed" and the count only.
    public = ok(client.get(w.url(2)))
    assert (public["status"], public["revealing"], public["bid_count"], public["winner"]) == (
        "closed",
        True,
        2,
        None,
    )
    assert public["bids"] == [] and '"combination"' not in json.dumps(public)

    # Step 1: the weaker bid, A's straight flush, without its rank yet.
    step = ok(client.post(w.url(2, "/reveal"), headers=admin))
    assert (step["round"], step["revealed"], step["steps"], step["complete"]) == (1, 1, 3, False)
    assert [(b["participant"], b["combination"]["cards"]) for b in step["bids"]] == [
        ("A", SECOND["A"]["A_sf"])
    ]
    assert step["bids"][0]["rank"] is None and step["outcome"] is None

    # Nothing reopens the round now: no undo, no replacement, no withdrawal, by any path.
    problem(client.post(w.url(2, "/undo"), headers=admin), 409, "undo_after_reveal")
    replace = {"combination_id": w.combos["A_queens_ace"]}
    problem(
        client.post(w.url(2, "/bids"), headers=w.token("A"), json=replace), 409, "auction_closed"
    )
    problem(bid(client, admin, w, 2, "A", "A_queens_ace"), 409, "auction_closed")
    problem(
        client.delete(w.url(2, f"/bids/{a_bid['bid_id']}"), headers=w.token("A")),
        409,
        "auction_closed",
    )
    phone = TestClient(client.app)
    phone.get(f"/p/{w.people['A'].access_token}")
    page = phone.get("/me/ceremony")
    assert "Заменить ставку" not in page.text and "Сделать ставку" not in page.text
    phone.post(
        "/me/ceremony/2/bid",
        data={
            "combination_id": str(w.combos["A_queens_ace"]),
            "csrf_token": csrf_of(phone.get("/me").text),
        },
    )
    refused = phone.get("/me/ceremony?error=auction_closed")
    assert refused.status_code == 200
    assert ok(client.get(w.url(2), headers=admin))["rounds"][0]["bid_count"] == 2
    assert [b["participant"] for b in closed["bids"]] == ["B", "A"]

    # Steps 2 and 3: B's four queens, then the outcome with the ranks.
    step = ok(client.post(w.url(2, "/reveal"), headers=admin))
    assert [b["participant"] for b in step["bids"]] == ["A", "B"] and not step["complete"]
    step = ok(client.post(w.url(2, "/reveal"), headers=admin))
    assert (step["revealed"], step["complete"], step["outcome"]["winner"]) == (3, True, "B")
    assert [(b["participant"], b["rank"]) for b in step["bids"]] == [("B", 1), ("A", 2)]
    problem(client.post(w.url(2, "/reveal"), headers=admin), 409, "nothing_to_reveal")
    problem(client.post(w.url(2, "/undo"), headers=admin), 409, "undo_after_reveal")

    # B's bid turns out to have been recorded for the wrong participant: the organiser
    # voids it with a reason; the round is decided again among its frozen bids.
    reason = "Ставка B внесена за другого участника"
    problem(
        client.post(w.url(2, "/rounds/1/correct"), headers=admin, json={"void_bids": [1]}),
        422,
        "validation_error",
    )
    problem(
        client.post(
            w.url(2, "/rounds/1/correct"),
            headers=admin,
            json={"reason": reason, "void_bids": [a_bid["bid_id"] + 1000]},
        ),
        422,
        "bid_not_counted",
    )
    problem(
        client.post(
            w.url(2, "/rounds/1/correct"),
            headers=w.token("A"),
            json={"reason": reason, "void_bids": [b_bid["bid_id"]]},
        ),
        401,
        "unauthorized",
    )
    corrected = ok(
        client.post(
            w.url(2, "/rounds/1/correct"),
            headers=admin,
            json={"reason": reason, "void_bids": [b_bid["bid_id"]]},
        )
    )
    assert (corrected["winner"], corrected["resolution"], corrected["voided"]) == (
        "A",
        "strongest",
        [b_bid["bid_id"]],
    )
    assert [(b["participant"], b["rank"]) for b in corrected["bids"]] == [("A", 1)]
    # the outcome was shown: the new one is shown at once (A's bid + the outcome = 2 of 2)
    assert (corrected["revealed"], corrected["steps"]) == (2, 2)
    results = ok(client.get(f"/api/v1/events/{w.event_id}/auctions/results"))
    assert results["places"][1]["participant"] == "A"
    assert results["places"][1]["combination"]["cards"] == SECOND["A"]["A_sf"]
    entries = audit_entries(session, w.event_id)
    corrections = [d for action, d in entries if action == CORRECTION_ACTION]
    assert len(corrections) == 1
    assert corrections[0]["reason"] == reason
    assert corrections[0]["voided"] == [[b_bid["bid_id"], "B", b_bid["receipt"]]]
    assert corrections[0]["replaced"]["winner"] == "B" and corrections[0]["winner"] == "A"
    withdrawal = session.scalars(select(BidWithdrawal.reason)).all()
    session.rollback()
    assert withdrawal == ["correction"]
    voided = ok(client.get(w.url(2, "/verify"), params={"receipt": b_bid["receipt"]}))
    assert (voided["counted"], voided["status"]) == (False, "correction")
    # the withdrawal row is chained like any other: the auction's bid chain still verifies
    take_hashes = log_chain.take_links(session, w.event_id)[1]
    links = log_chain.bid_links(session, w.event_id, take_hashes)
    session.rollback()
    assert all(core_chain.first_mismatch(chained) is None for chained in links.values())
    assert [link.label.split()[0] for link in max(links.values(), key=len)] == [
        "bid",
        "bid",
        "bid_withdrawal",
    ]
    # a correction only while the next auction is pending
    ok(client.post(w.url(1, "/open"), headers=admin))
    problem(
        client.post(
            w.url(2, "/rounds/1/correct"),
            headers=admin,
            json={"reason": reason, "void_bids": [a_bid["bid_id"]]},
        ),
        409,
        "correction_too_late",
    )


def test_undo_is_allowed_before_anything_is_revealed(
    client: TestClient, admin: dict, session: Session
) -> None:
    w, a_bid, _, closed = second_place_closed(client, admin, session)
    assert closed["winner"] == "B"
    undone = ok(client.post(w.url(2, "/undo"), headers=admin))
    assert (undone["status"], undone["round"], undone["bid_count"]) == ("open", 1, 2)
    replaced = ok(
        client.post(
            w.url(2, "/bids"),
            headers=w.token("A"),
            json={"combination_id": w.combos["A_queens_ace"]},
        ),
        201,
    )
    assert replaced["replaced_bid_id"] == a_bid["bid_id"]
    # four queens with an ace beat four queens with a king (kicker)
    assert close(client, admin, w, 2)["winner"] == "A"
    # the next auction waits for the reveal; after it, it opens
    ok(client.post(w.url(1, "/open"), headers=admin))


def test_the_next_auction_and_a_tie_break_wait_for_the_reveal(
    client: TestClient, admin: dict, session: Session
) -> None:
    hands = {
        "P1": {
            "P1_flush": ["AH", "KH", "9H", "5H", "2H"],  # flush A-K-9-5-2
            "P1_trips": ["7C", "7D", "7S", "2D", "3C"],  # three of a kind, sevens
        },
        "P2": {
            "P2_flush": ["AS", "KS", "9S", "5S", "2S"],  # the same flush: a tie
            "P2_two_pair": ["QC", "QD", "4C", "4H", "8H"],  # two pair
        },
    }
    w = build(session, hands)
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_flush"), 201)
    ok(bid(client, admin, w, 3, "P2", "P2_flush"), 201)
    tied = ok(client.post(w.url(3, "/close"), headers=admin))
    assert tied["tie_break"] == {"round": 2, "eligible": ["P1", "P2"]}
    # Nobody but the organiser knows of the tie yet: round 1 is being revealed.
    public = ok(client.get(w.url(3)))
    assert (public["status"], public["round"], len(public["rounds"])) == ("closed", 1, 1)
    assert public["rounds"][0]["eligible"] is None and "tie_break" not in json.dumps(public)
    assert ok(client.get(w.url(3), headers=admin))["status"] == "open"
    problem(bid(client, admin, w, 3, "P1", "P1_trips"), 409, "tie_break_not_revealed")
    problem(client.post(w.url(3, "/close"), headers=admin), 409, "tie_break_not_revealed")
    ok(client.post(w.url(3, "/reveal"), headers=admin, json={"all": True}))
    public = ok(client.get(w.url(3)))
    assert (public["status"], public["round"], public["bid_count"]) == ("open", 2, 0)
    assert public["rounds"][0]["tied"] == ["P1", "P2"]
    ok(bid(client, admin, w, 3, "P1", "P1_trips"), 201)
    assert ok(client.get(w.url(3)))["bid_count"] == 1  # round 2's own count
    ok(bid(client, admin, w, 3, "P2", "P2_two_pair"), 201)
    assert ok(client.post(w.url(3, "/close"), headers=admin))["winner"] == "P1"
    problem(client.post(w.url(2, "/open"), headers=admin), 409, "reveal_pending")
    ok(client.post(w.url(3, "/reveal"), headers=admin, json={"all": True}))
    ok(client.post(w.url(2, "/open"), headers=admin))


# ------------------------------------------------------- secrecy, step by step

STEPS = {
    "P1": {"P1_full": ["QS", "QD", "QC", "4H", "4S"]},  # full house: rank 1
    "P2": {"P2_flush": ["AD", "JD", "8D", "6D", "3D"]},  # flush: rank 2
    "P3": {"P3_pair": ["JH", "JC", "2C", "5H", "9S"]},  # one pair, jacks: rank 3
}
CARDS = {who: next(iter(named.values())) for who, named in STEPS.items()}


NONCE_OUTPUTS = {"auction", "auction (participant)", "ceremony", "results", "live stream"}


def outputs(client: TestClient, session: Session, w, phone: TestClient) -> dict[str, str]:
    """Everything a non-organiser can read about the ceremony, as text."""
    e = w.event_id
    session.expire_all()
    event = session.get(Event, e)
    _, changes = snapshots.read_changes(session, e, None)
    stream = "".join(
        hub.encode(version, kind, data).decode()
        + hub.encode(version, kind, hub.compact(kind, data)).decode()
        for version, kind, data in changes
    )
    session.rollback()
    assert event is not None
    return {
        "auction": client.get(w.url(3)).text,
        "auction (participant)": client.get(w.url(3), headers=w.token("P2")).text,
        "ceremony": client.get(f"/api/v1/events/{e}/auctions").text,
        "results": client.get(f"/api/v1/events/{e}/auctions/results").text,
        "csv": client.get(f"/api/v1/events/{e}/auctions/results.csv").text,
        "iof": client.get(f"/api/v1/events/{e}/iof/result-list.xml").text,
        "phone": phone.get("/me/ceremony").text,
        "phone poll": phone.get("/me/ceremony.json").text,
        "live stream": stream,
    }


def shown_cards(text: str) -> set[str]:
    """Whose sealed hand appears in `text`: as JSON codes, as the CSV's cards column, as a
    page shows it (the displayed cards one after the other), or as XML elements."""
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))
    bare = re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", text))
    found = set()
    for who, cards in CARDS.items():
        forms = (
            json.dumps(cards),
            json.dumps(cards).replace(" ", ""),
            " ".join(cards),
            " ".join(display(card) for card in cards),
        )
        if any(form in text or form in words for form in forms) or "".join(cards) in bare:
            found.add(who)
    return found


def test_nobody_but_the_organiser_sees_more_than_is_revealed(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, STEPS)
    ok(client.post(w.url(3, "/open"), headers=admin))
    for who, combo in (("P1", "P1_full"), ("P2", "P2_flush"), ("P3", "P3_pair")):
        ok(bid(client, admin, w, 3, who, combo), 201)
    closed = ok(client.post(w.url(3, "/close"), headers=admin))
    nonces = {b["participant"]: b["nonce"] for b in closed["bids"]}
    assert [(b["participant"], b["rank"]) for b in closed["bids"]] == [
        ("P1", 1),
        ("P2", 2),
        ("P3", 3),
    ]
    phone = TestClient(client.app)
    phone.get(f"/p/{w.people['P2'].access_token}")
    # revealed after each step, worked by hand: the weakest first (P3's pair, P2's
    # flush, P1's full house), then the outcome
    expected = [set(), {"P3"}, {"P3", "P2"}, {"P3", "P2", "P1"}, {"P3", "P2", "P1"}]
    for step, shown in enumerate(expected):
        if step:
            ok(client.post(w.url(3, "/reveal"), headers=admin))
        for name, text in outputs(client, session, w, phone).items():
            # the IOF ResultList names the winning combination only, once revealed; the
            # phone's poll says only what changed (the stages)
            wanted = {"iof": {"P1"} if step == 4 else set(), "phone poll": set()}
            assert shown_cards(text) == wanted.get(name, shown), (step, name)
            with_nonce = {p for p, n in nonces.items() if n in text}
            # the JSON views carry each revealed bid's nonce; the pages and files none
            assert with_nonce == (shown if name in NONCE_OUTPUTS else set()), (step, name)
        stage = "closed:1" if step == 4 else f"closed:1:{step}"
        assert phone.get("/me/ceremony.json").json()["shape"].startswith(f"3:{stage};")
        public = ok(client.get(w.url(3)))
        assert public["bid_count"] == 3
        assert [b["participant"] for b in public["bids"]] == (
            ["P1", "P2", "P3"] if step == 4 else ["P3", "P2", "P1"][: len(shown)]
        )
        assert public["winner"] == ("P1" if step == 4 else None)
        assert public["revealing"] is (step < 4)
        assert [b.get("rank") for b in public["bids"]] == (
            [1, 2, 3] if step == 4 else [None] * len(shown)
        )
        page = phone.get("/me/ceremony").text
        if step < 4:
            assert "Аукцион закрыт, идёт вскрытие ставок" in page and "Победитель" not in page
            assert f"Ещё не вскрыто: {3 - len(shown)}" in page or len(shown) == 3
        else:
            assert "Победитель: Participant P1" in page
        csv_rows = client.get(f"/api/v1/events/{w.event_id}/auctions/results.csv").text
        assert ("3,,,,,,,,,revealing" in csv_rows) is (step < 4)
        iof = client.get(f"/api/v1/events/{w.event_id}/iof/result-list.xml").text
        assert ("<Position>3</Position>" in iof) is (step == 4)  # P1 placed 3rd, revealed
    # the receipts check once each bid is revealed
    receipt = closed["bids"][0]["receipt"]
    assert ok(client.get(w.url(3, "/verify"), params={"receipt": receipt}))["valid"] is True


def test_a_receipt_is_checked_only_once_its_bid_is_revealed(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, STEPS)
    ok(client.post(w.url(3, "/open"), headers=admin))
    receipts = {
        who: ok(bid(client, admin, w, 3, who, combo), 201)["receipt"]
        for who, combo in (("P1", "P1_full"), ("P3", "P3_pair"))
    }
    ok(client.post(w.url(3, "/close"), headers=admin))
    for who in ("P1", "P3"):
        problem(
            client.get(w.url(3, "/verify"), params={"receipt": receipts[who]}),
            409,
            "bid_not_revealed",
        )
    ok(client.post(w.url(3, "/reveal"), headers=admin))  # P3's pair, the weaker
    checked = ok(client.get(w.url(3, "/verify"), params={"receipt": receipts["P3"]}))
    assert checked["valid"] is True and "rank" not in checked  # ranks come with the outcome
    problem(
        client.get(w.url(3, "/verify"), params={"receipt": receipts["P1"]}),
        409,
        "bid_not_revealed",
    )


def test_the_archive_waits_for_the_reveal(
    client: TestClient, admin: dict, session: Session
) -> None:
    w = build(session, STEPS)
    archive = f"/api/v1/events/{w.event_id}/archive"
    ok(client.get(archive, headers=admin))  # before the ceremony: no bid at all
    ok(client.post(w.url(3, "/open"), headers=admin))
    ok(bid(client, admin, w, 3, "P1", "P1_full"), 201)
    refused = client.get(archive, headers=admin)
    problem(refused, 409, "ceremony_not_revealed")
    assert refused.json()["open_places"] == [3] and "P1" not in refused.text
    ok(client.post(w.url(3, "/close"), headers=admin))
    refused = client.get(archive, headers=admin)
    problem(refused, 409, "ceremony_not_revealed")
    assert refused.json()["unrevealed_places"] == [3]
    assert json.dumps(CARDS["P1"]) not in refused.text
    ok(client.post(w.url(3, "/reveal"), headers=admin, json={"all": True}))
    document = ok(client.get(archive, headers=admin))
    assert [b["cards"] for b in document["bids"]] == [CARDS["P1"]]
    assert [r["revealed"] for r in document["auction_rounds"]] == [2]


def test_a_late_combination_is_still_refused_after_a_correction(
    client: TestClient, admin: dict, session: Session
) -> None:
    """A correction re-decides among the frozen bids only: nobody may add one."""
    w, _, b_bid, _ = second_place_closed(client, admin, session)
    ok(client.post(w.url(2, "/reveal"), headers=admin, json={"all": True}))
    event = session.get(Event, w.event_id)
    late = make_combination(
        session, event, w.people["B"], SECOND["A"]["A_pair"], DURING + timedelta(hours=1)
    )
    session.commit()
    ok(
        client.post(
            w.url(2, "/rounds/1/correct"),
            headers=admin,
            json={"reason": "wrong participant", "void_bids": [b_bid["bid_id"]]},
        )
    )
    problem(
        client.post(
            w.url(2, "/bids"), headers=admin, json={"participant": "B", "combination_id": late.id}
        ),
        409,
        "auction_closed",
    )
    assert re.fullmatch(r"[0-9a-f]{64}", b_bid["receipt"])
