"""Corrections, the organiser's log and warnings, and rebuilds (RULES.md I-3, I-4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update

from app import cli
from app.core.config import get_settings
from app.events.models import Event
from app.feed.models import Combination, ParticipantState, TakeOutcome
from tests.factories import make_participant
from tests.feed.conftest import at
from tests.feed.test_feed_api import deliver, state, take


def projection(session, *, history: bool = True) -> dict:
    """Every projection row, as plain values (`history`: with previous outcomes)."""
    states = {
        s.participant_id: (s.state, s.last_taken_at, s.last_take_id)
        for s in session.scalars(select(ParticipantState))
    }
    outcomes = {
        o.take_id: (o.kind, o.outcome, o.reason, o.card, o.checkpoint_id, o.deal, o.round)
        + ((o.previous_outcome, o.previous_reason) if history else ())
        for o in session.scalars(select(TakeOutcome))
    }
    combinations = {
        c.id: (c.participant_id, c.cards, c.category, c.deal, c.saved_at)
        for c in session.scalars(select(Combination))
    }
    session.commit()
    return {"states": states, "outcomes": outcomes, "combinations": combinations}


def play(client, admin, w) -> None:
    """A night of two participants with saves, discards, hand_full and late takes (21 takes)."""
    a, b = w.alice, w.bob
    cards = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"]
    deliver(client, admin, w, [take(w, a, w.cp(c), i) for i, c in enumerate(cards[:6], 1)])
    deliver(client, admin, w, [take(w, a, a.save_codes[0], 20), take(w, a, w.cp("AS"), 21)])
    deliver(client, admin, w, [take(w, a, w.discard("2S"), 5.5)])  # late: changes minute 6
    deliver(client, admin, w, [take(w, b, w.cp(c), 30 + i) for i, c in enumerate(cards[3:])])
    deliver(
        client,
        admin,
        w,
        [take(w, b, w.discard("5S"), 40), take(w, b, "what", 41), take(w, b, b.save_codes[0], 35)],
    )


def test_rebuild_gives_the_identical_state(client, admin, world, session):
    play(client, admin, world)
    incremental = projection(session)
    response = client.post(f"/api/v1/events/{world.id}/rebuild", headers=admin)
    assert response.status_code == 200
    assert response.json() == {"participants": 2, "takes": 21, "changed_outcomes": 0}
    assert projection(session) == incremental
    # From an empty projection too (the change history aside, which a rebuild cannot know).
    session.execute(delete(Combination))
    session.execute(delete(TakeOutcome))
    session.execute(delete(ParticipantState))
    session.commit()
    client.post(f"/api/v1/events/{world.id}/rebuild", headers=admin)
    assert projection(session, history=False) == {
        **incremental,
        "outcomes": {k: v[:-2] for k, v in incremental["outcomes"].items()},
    }


def test_rebuild_command(client, admin, world, session, database_url, monkeypatch, capsys):
    play(client, admin, world)
    before = projection(session)
    session.execute(delete(ParticipantState))
    session.commit()
    monkeypatch.setenv("DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        assert cli.main(["rebuild", "--event", str(world.id)]) == 0
        assert cli.main(["rebuild", "--event", "999999"]) == 1
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr().out
    assert f"event {world.id}: 2 participants with takes, 21 takes replayed, 0 outcomes" in out
    assert projection(session) == before


def test_rebuild_command_counts_in_plain_words(
    client, admin, world, session, database_url, monkeypatch, capsys
):
    """A participant without takes is not counted as replayed, and one of a thing is singular."""
    make_participant(session, session.get(Event, world.id), "103", "Carol")
    session.commit()
    deliver(client, admin, world, [take(world, world.alice, world.cp("2H"), 1)])
    monkeypatch.setenv("DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        assert cli.main(["rebuild", "--event", str(world.id)]) == 0
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr().out
    assert out == (
        f"event {world.id}: 1 participant with takes, 1 take replayed, 0 outcomes changed\n"
    )


def test_void_and_add_are_corrections_with_an_audit_trail(client, admin, world):
    a, w = world.alice, world
    cards = ["2H", "3H", "4H", "5H", "6H", "7H"]
    results = deliver(client, admin, w, [take(w, a, w.cp(c), i) for i, c in enumerate(cards, 1)])
    assert results[5]["reason"] == "hand_full"
    # The organiser voids the 3rd take (a mis-scan): 7H now counts (I-4 replay).
    url = f"/api/v1/events/{w.id}/takes/{results[2]['take_id']}/void"
    voided = client.post(url, json={"reason": "scanned by mistake"}, headers=admin)
    assert voided.status_code == 200, voided.text
    assert voided.json()["voided"] is True and voided.json()["void_reason"] == "scanned by mistake"
    assert client.post(url, json={"reason": "again"}, headers=admin).status_code == 409
    s = state(client, admin, w, a)
    assert s["hand"] == ["2H", "3H", "5H", "6H", "7H"]
    seventh = s["takes"][5]
    assert (seventh["outcome"], seventh["previous"]["reason"]) == ("counted", "hand_full")

    # A missing take from the paper backup, taken before the 7H: now 7H is hand_full again.
    added = client.post(
        f"/api/v1/events/{w.id}/takes/manual",
        json={
            "participant": a.external_id,
            "code": w.cp("8H"),
            "taken_at": at(5.5).isoformat(),
            "note": "paper card, control 8H",
        },
        headers=admin,
    )
    assert added.status_code == 200, added.text
    assert (added.json()["outcome"], added.json()["reason"]) == ("counted", None)
    s = state(client, admin, w, a)
    assert s["hand"] == ["2H", "3H", "5H", "6H", "8H"]
    assert (s["takes"][6]["card"], s["takes"][6]["reason"]) == ("7H", "hand_full")

    trail = client.get(f"/api/v1/events/{w.id}/corrections", headers=admin).json()
    actions = [(e["action"], e["actor"]) for e in trail]
    assert ("feed.take_voided", "organiser") in actions
    assert ("feed.take_added", "organiser") in actions
    added_entry = next(e for e in trail if e["action"] == "feed.take_added")
    assert added_entry["details"]["note"] == "paper card, control 8H"

    naive = client.post(
        f"/api/v1/events/{w.id}/takes/manual",
        json={"participant": a.external_id, "code": "x", "taken_at": "2026-06-12T10:00:00"},
        headers=admin,
    )
    assert naive.status_code == 422


def test_log_filters_and_warnings(client, admin, world):
    a, b, w = world.alice, world.bob, world
    deliver(
        client,
        admin,
        w,
        [
            take(w, a, w.cp(c), i)
            for i, c in enumerate(["2C", "3C", "4C", "5C", "6C", "7C", "BAD1"], 1)
        ],
    )
    deliver(client, admin, w, [take(w, b, w.cp("2C"), 10), take(w, b, w.discard("2C"), 11)])
    log_url = f"/api/v1/events/{w.id}/takes"

    def total(**params) -> int:
        response = client.get(log_url, params=params, headers=admin)
        assert response.status_code == 200, response.text
        return response.json()["total"]

    assert total() == 9
    assert total(participant=b.external_id) == 2
    assert total(checkpoint=1) == 0  # CP 1 is 2♠ in the test deck: nobody took it
    assert total(checkpoint=99) == 0  # no such CP
    assert total(checkpoint=40) == 3  # 2♣ (index 39): Alice's take, Bob's take and discard
    assert total(outcome="rejected") == 3  # hand_full, unknown, Bob's hand_not_full
    assert total(reason="hand_not_full") == 1
    assert total(kind="unknown") == 1
    assert total(taken_from=at(2).isoformat(), taken_to=at(4).isoformat()) == 2
    assert (
        client.get(log_url, params={"taken_from": "2026-06-12T10:00:00"}, headers=admin).status_code
        == 422
    )
    assert client.get(log_url).status_code == 401

    warnings = client.get(f"/api/v1/events/{w.id}/warnings", headers=admin).json()
    assert warnings["course_closed"] is True  # the test course closed in June 2026
    assert [(h["participant"], len(h["hand"])) for h in warnings["unsaved_hands"]] == [
        (a.external_id, 5),
        (b.external_id, 1),
    ]
    assert warnings["hand_full"] == [{"participant": a.external_id, "name": "Alice", "count": 1}]
    assert [u["code"] for u in warnings["unknown_codes"]] == [w.cp("BAD1")]  # no such card


def test_takes_dated_in_the_future_are_stored_and_listed_in_warnings(client, admin, open_world):
    w = open_world
    now = datetime.now(UTC)
    items = [
        {"participant": "201", "code": w.cp(card), "taken_at": (now + ahead).isoformat(),
         "source": "watch", "source_id": sid}
        for card, ahead, sid in [
            ("2S", timedelta(minutes=-1), "past"),
            ("3S", timedelta(minutes=2), "skew"),  # within the 5-minute margin
            ("4S", timedelta(minutes=30), "future"),
        ]
    ]  # fmt: skip
    results = client.post(
        f"/api/v1/events/{w.id}/takes", json={"takes": items}, headers=admin
    ).json()["results"]
    # Never lose a take: all three are stored and count (the window is open for 17 h).
    assert [(r["status"], r["outcome"]) for r in results] == [("accepted", "counted")] * 3
    warnings = client.get(f"/api/v1/events/{w.id}/warnings", headers=admin).json()
    (future,) = warnings["future_takes"]
    assert (future["participant"], future["source"], future["source_id"]) == (
        "201", "watch", "future",
    )  # fmt: skip
    assert future["take_id"] == results[2]["take_id"]
    taken_at = datetime.fromisoformat(future["taken_at"])
    received_at = datetime.fromisoformat(future["received_at"])
    assert taken_at == datetime.fromisoformat(items[2]["taken_at"])
    assert received_at < taken_at - timedelta(minutes=5)


def test_bulk_rebuild_of_several_participants_matches_the_incremental_state(
    client, admin, world, session
):
    """Three participants with saves, voids and late takes: the bulk rebuild (one replay
    of the whole event) writes exactly the projection the incremental feed kept."""
    w, a, b = world, world.alice, world.bob
    carol = make_participant(session, session.get(Event, w.id), "103", "Carol")
    session.commit()
    void = f"/api/v1/events/{w.id}/takes/{{}}/void"
    # Alice: 5 hearts, a save, then 2 clubs; her 2nd card is voided (a mis-scan) and a
    # late take at minute 1.5 fills the gap before the save.
    hearts = ["2H", "3H", "4H", "5H", "6H"]
    alice = deliver(client, admin, w, [take(w, a, w.cp(c), i) for i, c in enumerate(hearts, 1)])
    deliver(client, admin, w, [take(w, a, a.save_codes[0], 10)])
    deliver(client, admin, w, [take(w, a, w.cp("2C"), 11), take(w, a, w.cp("3C"), 12)])
    voided = client.post(
        void.format(alice[1]["take_id"]), json={"reason": "mis-scan"}, headers=admin
    )
    assert voided.status_code == 200, voided.text
    deliver(client, admin, w, [take(w, a, w.cp("7H"), 1.5)])
    # Bob: 6 spades (the 6th is hand_full), then a late discard at minute 5.5 makes the
    # 6th count (I-4: its outcome changes, with the old one kept as previous); a save.
    spades = ["2S", "3S", "4S", "5S", "6S", "7S"]
    bob = deliver(client, admin, w, [take(w, b, w.cp(c), i) for i, c in enumerate(spades, 1)])
    assert bob[5]["reason"] == "hand_full"
    deliver(client, admin, w, [take(w, b, w.discard("2S"), 5.5), take(w, b, b.save_codes[0], 7)])
    # Carol: one unknown code, voided: she has a log but an empty hand.
    wrong = deliver(client, admin, w, [take(w, carol, "what", 3)])
    assert client.post(void.format(wrong[0]["take_id"]), json={"reason": "x"}, headers=admin)
    incremental = projection(session)
    # By hand (RULES.md §1.2, I-4): Alice saves 2H 7H 4H 5H 6H (3H voided) and holds 2C 3C;
    # Bob's 7S now counts (previous: hand_full) and he saves 3S..7S; Carol has no hand.
    saved = sorted(sorted(c[1]) for c in incremental["combinations"].values())
    assert saved == [sorted(["2H", "7H", "4H", "5H", "6H"]), sorted(["3S", "4S", "5S", "6S", "7S"])]
    seventh = incremental["outcomes"][bob[5]["take_id"]]
    assert (seventh[1], seventh[2], seventh[-2:]) == ("counted", None, ("rejected", "hand_full"))
    assert incremental["outcomes"][alice[1]["take_id"]][1:3] == ("rejected", "voided")

    response = client.post(f"/api/v1/events/{w.id}/rebuild", headers=admin)
    assert response.status_code == 200, response.text
    # 9 (Alice) + 8 (Bob) + 1 (Carol) takes, voided ones included.
    assert response.json() == {"participants": 3, "takes": 18, "changed_outcomes": 0}
    assert projection(session) == incremental

    # A projection that drifted from the log: the rebuild restores it and records the change.
    session.execute(
        update(TakeOutcome)
        .where(TakeOutcome.take_id == alice[4]["take_id"])
        .values(outcome="rejected", reason="hand_full")
    )
    session.execute(delete(Combination).where(Combination.participant_id == b.id))
    session.commit()
    response = client.post(f"/api/v1/events/{w.id}/rebuild", headers=admin)
    assert response.json() == {"participants": 3, "takes": 18, "changed_outcomes": 1}
    rebuilt = projection(session)
    assert rebuilt["combinations"] == incremental["combinations"]
    assert rebuilt["states"] == incremental["states"]
    fifth = rebuilt["outcomes"][alice[4]["take_id"]]
    assert fifth[1:3] == ("counted", None) and fifth[-2:] == ("rejected", "hand_full")
    trail = client.get(f"/api/v1/events/{w.id}/corrections", headers=admin).json()
    changed = [e for e in trail if e["action"] == "feed.outcomes_changed"]
    assert changed[-1]["details"] == {"changed": 1}
