"""The field feed through HTTP (API.md feed and state; RULES.md §1.1–1.2, I-1..I-4).

Expected outcomes are worked out by hand from RULES.md; comments give the reasoning.
"""

from __future__ import annotations

import itertools

from sqlalchemy import func, select

from app.feed.models import Take
from tests.feed.conftest import World, at

_ids = itertools.count(1)


def take(world: World, participant, code: str, minutes: float, source: str = "app", sid=None):
    external = participant.external_id if hasattr(participant, "external_id") else participant
    return {
        "participant": external,
        "code": code,
        "taken_at": at(minutes).isoformat(),
        "source": source,
        "source_id": sid or f"s{next(_ids)}",
    }


def deliver(client, admin, world: World, takes: list[dict]) -> list[dict]:
    response = client.post(f"/api/v1/events/{world.id}/takes", json={"takes": takes}, headers=admin)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def state(client, admin, world: World, participant) -> dict:
    response = client.get(
        f"/api/v1/events/{world.id}/participants/{participant.external_id}/state", headers=admin
    )
    assert response.status_code == 200, response.text
    return response.json()


def reasons(results) -> list:
    return [r["reason"] for r in results]


def stored_takes(session) -> int:
    count = session.scalar(select(func.count()).select_from(Take))
    session.commit()  # end the read (on SQLite every transaction holds the write lock)
    return count


def test_worked_example_of_the_seed(client, admin, world):
    # RULES.md §1.2 worked example: Q♥ Q♦ Q♣ 10♠ A♣; discard 10♠ A♣ (round 2); K♦ 5♣;
    # discard K♦ 5♣ (round 3); joker, A♠; a third discard step is refused; the save
    # gives Q♥ Q♦ Q♣ A♠ Joker = four of a kind, queens (joker = the fourth queen).
    a, w = world.alice, world
    codes = [
        w.cp("QH"), w.cp("QD"), w.cp("QC"), w.cp("TS"), w.cp("AC"),
        w.discard("TS"), w.discard("AC"),
        w.cp("KD"), w.cp("5C"),
        w.discard("KD"), w.discard("5C"),
        w.cp("JK1"), w.cp("AS"),
        w.discard("QH"),
        a.save_codes[0],
    ]  # fmt: skip
    results = deliver(client, admin, w, [take(w, a, c, i) for i, c in enumerate(codes, 1)])
    assert [r["status"] for r in results] == ["accepted"] * 15
    assert [r["kind"] for r in results] == (
        ["card"] * 5
        + ["discard"] * 2
        + ["card"] * 2
        + ["discard"] * 2
        + ["card"] * 2
        + ["discard", "save"]
    )
    assert reasons(results) == [None] * 13 + ["no_discards_left", None]
    assert results[0]["card"] == "QH" and results[0]["discard_code"] == "DQH"

    s = state(client, admin, w, a)
    assert s["hand"] == [] and s["deal"] == 2 and s["round"] == 1
    (combination,) = s["combinations"]
    assert combination["id"] == results[-1]["take_id"]
    assert sorted(combination["cards"]) == sorted(["QH", "QD", "QC", "AS", "JK1"])
    assert combination["category"] == "four_of_a_kind"
    assert [t["round"] for t in s["takes"][:11]] == [1] * 5 + [2] * 4 + [3, 3]


def test_every_reason(client, admin, world):
    a, w = world.alice, world
    plan = [
        (w.cp("2S"), -5, "outside_course_hours"),  # before the opening
        (w.cp("2S"), 1, None),
        (w.cp("2S"), 2, "duplicate"),
        (w.discard("2S"), 3, "hand_not_full"),  # 1 card: not a decision point (I-2)
        (a.save_codes[0], 4, "hand_not_full"),  # only 5 cards can be saved
        (w.cp("3S"), 5, None),
        (w.cp("4S"), 6, None),
        (w.cp("5S"), 7, None),
        (w.cp("6S"), 8, None),
        (w.cp("7S"), 9, "hand_full"),
        (w.discard("AH"), 10, "card_not_in_hand"),
        (w.discard("2S"), 11, None),  # round 2
        (w.cp("7S"), 12, None),  # counts now (I-1)
        (w.discard("3S"), 13, None),  # round 3
        (w.cp("8S"), 14, None),
        (w.discard("4S"), 15, "no_discards_left"),
        (a.save_codes[0], 16, None),  # the code stayed unused, now it saves
        (w.cp("9S"), 17, None),
        (w.cp("TS"), 18, None),
        (w.cp("JS"), 19, None),
        (w.cp("QS"), 20, None),
        (w.cp("KS"), 21, None),
        (a.save_codes[0], 22, "code_already_used"),
        (world.bob.save_codes[0], 23, "unknown_code"),  # another participant's save code
        ("NO-SUCH-CODE", 24, "unknown_code"),
        (w.cp("AS"), 60 * 19, "outside_course_hours"),  # after the close
    ]
    results = deliver(client, admin, w, [take(w, a, c, m) for c, m, _ in plan])
    assert reasons(results) == [r for _, _, r in plan]
    assert [r["outcome"] for r in results] == [
        "counted" if r is None else "rejected" for _, _, r in plan
    ]
    s = state(client, admin, w, a)
    assert s["hand"] == ["9S", "TS", "JS", "QS", "KS"]
    assert s["deal"] == 2 and s["round"] == 1
    assert len(s["combinations"]) == 1
    assert s["save_codes_left"] == 9


def test_sixth_card_does_not_count_and_the_same_cp_counts_later(client, admin, world):
    # RULES.md §1.2 rule 1, I-1: the 6th card is recorded as hand_full and the CP is
    # not consumed; after a discard the same CP counts.
    a, w = world.alice, world
    cards = ["2S", "3S", "4S", "5S", "6S"]
    deliver(client, admin, w, [take(w, a, w.cp(c), i) for i, c in enumerate(cards, 1)])
    (sixth,) = deliver(client, admin, w, [take(w, a, w.cp("AH"), 10)])
    assert (sixth["outcome"], sixth["reason"], sixth["card"]) == ("rejected", "hand_full", "AH")
    assert state(client, admin, w, a)["hand"] == cards
    later = deliver(client, admin, w, [take(w, a, w.discard("2S"), 11), take(w, a, w.cp("AH"), 12)])
    assert [(r["outcome"], r["reason"]) for r in later] == [("counted", None), ("counted", None)]
    assert state(client, admin, w, a)["hand"] == ["3S", "4S", "5S", "6S", "AH"]


def test_late_take_changes_a_later_outcome(client, admin, world):
    # 5 cards at minutes 1–5, a 6th at minute 7: hand_full. Then a discard taken at
    # minute 6 arrives late: replayed in field-time order the hand has room at
    # minute 7, so the 6th card now counts (I-4), and its log shows the change.
    a, w = world.alice, world
    cards = ["2H", "3H", "4H", "5H", "6H"]
    deliver(client, admin, w, [take(w, a, w.cp(c), i) for i, c in enumerate(cards, 1)])
    (sixth,) = deliver(client, admin, w, [take(w, a, w.cp("7H"), 7)])
    assert sixth["reason"] == "hand_full"
    (late,) = deliver(client, admin, w, [take(w, a, w.discard("2H"), 6)])
    assert (late["outcome"], late["reason"]) == ("counted", None)

    s = state(client, admin, w, a)
    assert s["hand"] == ["3H", "4H", "5H", "6H", "7H"]
    assert s["round"] == 2
    seventh = next(t for t in s["takes"] if t["take_id"] == sixth["take_id"])
    assert (seventh["outcome"], seventh["reason"]) == ("counted", None)
    assert seventh["previous"]["outcome"] == "rejected"
    assert seventh["previous"]["reason"] == "hand_full"
    assert [t["taken_at"][14:16] for t in s["takes"]] == ["01", "02", "03", "04", "05", "06", "07"]


def test_redelivery_stores_nothing(client, admin, world, session):
    a, w = world.alice, world
    batch = [take(w, a, w.cp("2C"), 1, sid="x1"), take(w, a, "garbage", 2, sid="x2")]
    first = deliver(client, admin, w, batch)
    before = stored_takes(session)
    again = deliver(client, admin, w, batch)
    assert stored_takes(session) == before == 2
    assert [r["status"] for r in again] == ["duplicate_delivery"] * 2
    for one, two in zip(first, again, strict=True):
        assert {k: v for k, v in one.items() if k != "status"} == {
            k: v for k, v in two.items() if k != "status"
        }
    # The same source id from another source is another take.
    other = deliver(client, admin, w, [take(w, a, w.cp("3C"), 3, source="paper", sid="x1")])
    assert other[0]["status"] == "accepted"


def test_batch_of_500_with_3_bad_items(client, admin, world, session):
    w = world
    people = [w.alice, w.bob]
    items = []
    for i in range(500):
        card = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS"][i % 10]
        items.append(take(w, people[i % 2], w.cp(card), 1 + i / 10, sid=f"b{i}"))
    items[10]["participant"] = "nobody"
    items[200]["taken_at"] = "2026-06-12T12:00:00"  # naive: no offset
    del items[499]["code"]
    results = deliver(client, admin, w, items)
    assert len(results) == 500
    errors = [(i, r) for i, r in enumerate(results) if r["status"] == "error"]
    assert [i for i, _ in errors] == [10, 200, 499]
    assert [r["source_id"] for _, r in errors] == ["b10", "b200", "b499"]
    assert errors[0][1]["error"]["code"] == "participant_not_found"
    assert errors[1][1]["error"]["code"] == "invalid_take"
    assert errors[1][1]["error"]["fields"][0]["loc"] == ["taken_at"]
    assert errors[2][1]["error"]["fields"][0]["loc"] == ["code"]
    assert stored_takes(session) == 497
    assert sum(r["status"] == "accepted" for r in results) == 497


def test_batch_limit_and_auth(client, admin, world):
    url = f"/api/v1/events/{world.id}/takes"
    too_many = {"takes": [{}] * 1001}
    assert client.post(url, json=too_many, headers=admin).status_code == 422
    response = client.post(url, json={"takes": []})
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert (
        client.post("/api/v1/events/999999/takes", json={"takes": []}, headers=admin).json()["code"]
        == "event_not_found"
    )


def test_code_spellings_are_normalised(client, admin, world):
    a, w = world.alice, world
    code = w.cp("9D")
    url_form = f"https://rogaine.example/t/{code.lower()}"
    dashed = "-".join([w.cp("8D")[:4], w.cp("8D")[4:]]).lower()
    results = deliver(client, admin, w, [take(w, a, url_form, 1), take(w, a, dashed, 2)])
    assert [r["card"] for r in results] == ["9D", "8D"]
    assert reasons(results) == [None, None]


def test_a_late_take_rewrites_a_saved_combination_under_the_same_id(client, admin, world):
    # 2♠ 3♠ 4♠ 5♠ (minutes 1–4), 7♠ (6), save (7): the flush 2♠ 3♠ 4♠ 5♠ 7♠.
    # 6♠ taken at minute 5 arrives late: in field-time order 6♠ counts, 7♠ is
    # hand_full, and the save keeps 2♠–6♠, a straight flush, under the same id.
    a, w = world.alice, world
    takes = [take(w, a, w.cp(c), i) for i, c in enumerate(["2S", "3S", "4S", "5S"], 1)]
    takes += [take(w, a, w.cp("7S"), 6), take(w, a, a.save_codes[0], 7)]
    results = deliver(client, admin, w, takes)
    (before,) = state(client, admin, w, a)["combinations"]
    assert before["id"] == results[-1]["take_id"]
    assert (before["cards"], before["category"]) == (["2S", "3S", "4S", "5S", "7S"], "flush")

    deliver(client, admin, w, [take(w, a, w.cp("6S"), 5)])
    s = state(client, admin, w, a)
    (after,) = s["combinations"]
    assert after["id"] == before["id"]
    assert (after["cards"], after["category"]) == (["2S", "3S", "4S", "5S", "6S"], "straight_flush")
    assert [t["reason"] for t in s["takes"]] == [None] * 5 + ["hand_full", None]

    # A late discard at minute 6.5 leaves 4 cards at the save: hand_not_full, and the
    # combination is gone; the save code stays unused (RULES.md §1.2 rule 6).
    deliver(client, admin, w, [take(w, a, w.discard("2S"), 6.5)])
    s = state(client, admin, w, a)
    assert s["combinations"] == []
    assert s["takes"][-1]["reason"] == "hand_not_full"
    assert s["takes"][-1]["previous"]["outcome"] == "counted"
    assert s["save_codes_left"] == 10
    assert s["hand"] == ["3S", "4S", "5S", "6S"]


def test_a_bad_item_error_is_a_problem_object(client, admin, world):
    # The item's `error` has the shape of a problem response (RFC 9457) plus `fields`.
    w = world
    naive = take(w, w.alice, w.cp("2S"), 1, sid="n1")
    naive["taken_at"] = "2026-06-12T12:00:00"
    stranger = take(w, w.alice, w.cp("3S"), 2, sid="s1")
    stranger["participant"] = "nobody"
    bad, missing = (r["error"] for r in deliver(client, admin, w, [naive, stranger]))
    assert set(bad) == {"type", "title", "status", "detail", "code", "fields"}
    assert bad["type"] == "https://rogaine-poker.example/problems/invalid_take"
    assert (bad["status"], bad["code"]) == (422, "invalid_take")
    assert bad["title"] == "Unprocessable Entity"
    assert bad["fields"][0]["loc"] == ["taken_at"] and bad["detail"]
    assert (missing["status"], missing["code"]) == (404, "participant_not_found")
    assert missing["title"] == "Not Found" and missing["fields"] == []
