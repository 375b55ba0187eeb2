"""No deadlock between a bid and a ceremony step, and no 500 under contention (issue 24).

The cycle: a bid holds its auction row (the bid's lock) and inserts rows that point at
the event (its audit entry: a foreign-key check, FOR KEY SHARE on the event row) while
the close holds the event row and waits for the auction row. With both rows locked
FOR UPDATE the two waited for each other; FOR NO KEY UPDATE leaves the foreign-key
checks free. PostgreSQL only (SQLite runs one write transaction at a time).
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.auctions import repository as repo
from app.auctions import service
from app.core.db import make_sessionmaker
from app.core.principal import ORGANISER
from app.events.models import Event
from tests.auctions.test_api import CEREMONY, build


def postgres_only(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks: PostgreSQL only (SQLite serialises write transactions)")


def wait_until_blocked(engine: Engine, pid: int) -> None:
    """Return once the backend `pid` waits for a lock (polled; no time limit of its own:
    the test's thread joins bound it)."""
    query = text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid")
    with engine.connect() as connection:
        while connection.execute(query, {"pid": pid}).scalar() != "Lock":
            connection.rollback()
            threading.Event().wait(0.01)


def test_a_close_waiting_for_a_bid_does_not_deadlock_it(engine: Engine, session: Session) -> None:
    postgres_only(engine)
    w = build(session, {"A": CEREMONY["A"], "B": CEREMONY["B"]})
    event = session.get(Event, w.event_id)
    service.open_auction(session, event, 3, ORGANISER)
    session.commit()
    factory = make_sessionmaker(engine)
    results: dict[str, object] = {}

    with factory() as bidding:
        # the bid takes its auction row first (as place_bid does) ...
        assert repo.get_auction(bidding, w.event_id, 3, lock=True) is not None
        closing_pid: list[int] = []

        def close() -> None:
            with factory() as closing:
                closing_pid.append(closing.execute(text("SELECT pg_backend_pid()")).scalar())
                try:
                    view = service.close_auction(
                        closing, closing.get(Event, w.event_id), 3, ORGANISER
                    )
                    closing.commit()
                    results["close"] = view["status"]
                except Exception as error:
                    results["close"] = repr(error)

        closer = threading.Thread(target=close)
        closer.start()
        while not closing_pid:
            threading.Event().wait(0.01)
        # ... the close holds the event row and waits for the auction row ...
        wait_until_blocked(engine, closing_pid[0])
        # ... and the bid inserts its bid and audit entry (foreign keys to the event)
        try:
            receipt = service.place_bid(
                bidding,
                bidding.get(Event, w.event_id),
                3,
                ORGANISER,
                participant="A",
                combination_id=w.combos["A_quads"],
            )
            bidding.commit()
            results["bid"] = receipt["round"]
        except Exception as error:
            results["bid"] = repr(error)
        closer.join(timeout=120)
    # the bid was stored in round 1, then the close decided the round with it
    assert results == {"bid": 1, "close": "closed"}


def test_bids_closes_and_ceremony_reads_together_never_fail(
    engine: Engine, client: TestClient, admin: dict, session: Session
) -> None:
    """Twelve rounds: eight bidders re-bid (each bid replaces the last) while phones read
    the ceremony and the organiser closes the round, then undoes the close (the round
    opens again). Every answer is a success or a rule's refusal: 0 errors."""
    postgres_only(engine)
    hands = {who: CEREMONY[who] for who in "ABCD"}
    w = build(session, hands)
    ok = client.post(w.url(3, "/open"), headers=admin)
    assert ok.status_code == 200, ok.text
    phones = {}
    for who in "ABCD":
        phone = TestClient(client.app)
        assert phone.get(f"/p/{w.people[who].access_token}").status_code == 200
        phones[who] = phone
    mine = {who: [name for name in w.combos if name.startswith(who)] for who in "ABCD"}
    statuses: Counter[tuple[str, int]] = Counter()

    def bid(index: int) -> None:
        who = "ABCD"[index % 4]
        combo = mine[who][index % len(mine[who])]
        response = client.post(
            w.url(3, "/bids"), json={"combination_id": w.combos[combo]}, headers=w.token(who)
        )
        statuses["bid", response.status_code] += 1
        assert response.status_code < 500, response.text

    def read(index: int) -> None:
        response = phones["ABCD"[index % 4]].get("/me/ceremony")
        statuses["read", response.status_code] += 1
        assert response.status_code == 200, response.text

    def close() -> None:
        response = client.post(w.url(3, "/close"), headers=admin)
        statuses["close", response.status_code] += 1
        assert response.status_code == 200, response.text

    with ThreadPoolExecutor(max_workers=12) as pool:
        for _round in range(12):
            jobs = [pool.submit(bid, i) for i in range(8)]
            jobs += [pool.submit(read, i) for i in range(8)]
            jobs.append(pool.submit(close))
            jobs += [pool.submit(bid, i) for i in range(8, 12)]
            for job in jobs:
                job.result()
            undone = client.post(w.url(3, "/undo"), headers=admin)
            assert undone.status_code == 200, undone.text
    # every bid stored (201) or refused by the rules because the round had closed (409)
    assert {status for kind, status in statuses if kind == "bid"} <= {201, 409}
    assert statuses["read", 200] == 12 * 8
    assert statuses["close", 200] == 12
