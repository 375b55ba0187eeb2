"""GET /api/v1/events/{id}/live: messages, Last-Event-ID resume, sealed bids (RULES.md I-7)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy.orm import Session

from app.auctions import views as auction_views
from app.core.principal import PUBLIC
from app.events.models import Event
from tests.factories import make_combination, make_event, make_participant
from tests.live.sse import Stream


def ceremony_event(engine):
    """An event whose course closed a minute ago; Anna holds a full house A-A-A-K-K, Boris
    a high card 2-3-4-5-7 (both saved during the course)."""
    now = datetime.now(UTC)
    with Session(engine) as session:
        event = make_event(
            session, opens_at=now - timedelta(hours=3), closes_at=now - timedelta(minutes=1)
        )
        anna = make_participant(session, event, "41", name="Анна")
        boris = make_participant(session, event, "42", name="Борис")
        full = make_combination(session, event, anna, ["AH", "AD", "AC", "KS", "KH"])
        high = make_combination(session, event, boris, ["2C", "3D", "4H", "5S", "7C"])
        session.commit()
        return event.id, anna, boris, full.id, high.id


def test_stream_resumes_from_last_event_id_and_keeps_bids_sealed(live_server, admin):
    event_id, _anna, _boris, full, high = ceremony_event(live_server.engine)
    base = f"{live_server.url}/api/v1/events/{event_id}"
    api = httpx.Client(base_url=base, headers=admin, timeout=120)

    first = Stream(f"{base}/live").start()
    # No Last-Event-ID: the current state of every topic (nothing changed yet: version 0).
    assert first.next().event == "hello"
    initial = [first.next() for _ in range(4)]
    assert sorted((m.event, m.data.get("place"), m.data["status"]) for m in initial) == [
        ("auction", 1, "pending"),
        ("auction", 2, "pending"),
        ("auction", 3, "pending"),
        ("event", None, "course_open"),
    ]
    assert {m.id for m in initial} == {"0"}

    assert api.post("/auctions/3/open").is_success  # version 1
    opened = first.until(lambda m: m.event == "auction")
    assert (opened.id, opened.data["place"], opened.data["status"], opened.data["round"]) == (
        "1",
        3,
        "open",
        1,
    )
    assert opened.data["bid_count"] == 0

    # The phone page's stream: no message while only the bid count moves.
    quiet = Stream(f"{base}/live?since=1&counts=false").start()
    assert quiet.next().event == "hello"
    bid = api.post("/auctions/3/bids", json={"participant": "41", "combination_id": full})
    assert bid.status_code == 201  # version 2
    counted = first.until(lambda m: m.event == "auction")
    assert (counted.id, counted.data["bid_count"]) == ("2", 1)
    first.close()

    # While nobody listens Boris bids (version 3); a reconnection with Last-Event-ID: 2
    # gets exactly that change, nothing older.
    assert (
        api.post("/auctions/3/bids", json={"participant": "42", "combination_id": high}).status_code
        == 201
    )
    resumed = Stream(f"{base}/live", headers={"Last-Event-ID": "2"}).start()
    assert resumed.next().event == "hello"
    message = resumed.next()
    assert (message.event, message.id, message.data["place"], message.data["bid_count"]) == (
        "auction",
        "3",
        3,
        2,
    )

    # Nothing sent before the close names a combination, a card, a receipt or a bidder.
    sealed = "\n".join(first.raw + resumed.raw)
    secrets = ('"combination', "AH", "KS", "7C", bid.json()["receipt"], '"41"', '"42"')
    for secret in secrets:
        assert secret not in sealed

    closed = api.post("/auctions/3/close").json()
    assert closed["winner"] == "41"
    result = resumed.until(lambda m: m.event == "auction" and m.data["status"] == "closed")
    assert result.id == "4"
    # closed, being revealed (RULES.md I-21): the count, no bid, no winner, no name
    assert (result.data["revealing"], result.data["bid_count"], result.data["winner"]) == (
        True,
        2,
        None,
    )
    assert result.data["shape"] == "closed:1:0" and result.data["names"] == {}
    for secret in secrets:
        assert secret not in "\n".join(resumed.raw)
    quiet_first = quiet.next()  # the close is the first thing the quiet stream hears
    assert (quiet_first.id, quiet_first.data["status"]) == ("4", "closed")
    assert quiet_first.data["view"]["rounds"][0]["bids"] == []

    # The first reveal step: Boris's high card, the weaker, without its rank; the quiet
    # (phone) stream hears each step, in its compact form (no receipt or nonce).
    assert api.post("/auctions/3/reveal").status_code == 200
    step = quiet.next()
    assert (step.id, step.data["shape"]) == ("5", "closed:1:1")
    [compact_round] = step.data["view"]["rounds"]
    assert compact_round["bids"] == [
        {"participant": "42", "round": 1, "rank": None,
         "combination": {"cards": ["2C", "3D", "4H", "5S", "7C"], "category": "high_card"}},
    ]  # fmt: skip
    assert "AH" not in "\n".join(quiet.raw + resumed.raw)
    assert api.post("/auctions/3/reveal", json={"all": True}).status_code == 200
    done = quiet.next()
    assert (done.id, done.data["shape"], done.data["winner"]) == ("6", "closed:1", "41")
    [compact_round] = done.data["view"]["rounds"]
    assert compact_round["bids"] == [
        {"participant": "41", "round": 1, "rank": 1,
         "combination": {"cards": ["AH", "AD", "AC", "KS", "KH"], "category": "full_house"}},
        {"participant": "42", "round": 1, "rank": 2,
         "combination": {"cards": ["2C", "3D", "4H", "5S", "7C"], "category": "high_card"}},
    ]  # fmt: skip
    quiet.close()
    result = resumed.until(lambda m: m.event == "auction" and m.id == "6")
    assert result.data["winner"] == "41"
    assert result.data["names"] == {"41": "Анна", "42": "Борис"}
    # Exactly what the public auction view shows once revealed.
    with Session(live_server.engine) as session:
        event = session.get(Event, event_id)
        public = auction_views.auction_view(session, event, 3, PUBLIC)
    # Exactly the public auction view, each revealed bid once (in its round, not again in
    # the flattened `bids`).
    public.pop("bids")
    assert result.data["view"] == json.loads(json.dumps(public, default=str))
    [closed_round] = result.data["view"]["rounds"]
    assert [(b["participant"], b["rank"]) for b in closed_round["bids"]] == [
        ("41", 1),
        ("42", 2),
    ]
    resumed.close()


def test_unknown_event_is_a_404_problem(live_server):
    response = httpx.get(f"{live_server.url}/api/v1/events/999999/live", timeout=120)
    assert response.status_code == 404
    assert response.json()["code"] == "event_not_found"


def test_event_changes_are_streamed_and_feed_counters_go_to_the_organiser_only(live_server, admin):
    event_id, *_ = ceremony_event(live_server.engine)
    base = f"{live_server.url}/api/v1/events/{event_id}"
    public = Stream(f"{base}/live?since=0").start()
    organiser = Stream(f"{base}/live?since=0", headers=admin).start()
    assert public.next().data == {"version": 0, "organiser": False}
    assert organiser.next().data == {"version": 0, "organiser": True}
    # The organiser's first message: the dashboard's counters (2 participants; 2 takes: the
    # save take behind each one's combination).
    feed = organiser.next()
    assert feed.event == "feed" and feed.id is None
    assert (feed.data["participants"], feed.data["takes_total"]) == (2, 2)

    response = httpx.post(f"{base}/status", json={"status": "ceremony"}, headers=admin, timeout=120)
    assert response.is_success
    for stream in (public, organiser):
        message = stream.until(lambda m: m.event == "event")
        assert (message.id, message.data["status"]) == ("1", "ceremony")
    public.close()
    organiser.close()
    assert all(not line.startswith("event: feed") for line in public.raw)
