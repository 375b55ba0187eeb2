"""Bids and closes from several app processes at once (each thread = its own session and
connection, as separate processes would have). The auction row lock (SELECT ... FOR UPDATE
on PostgreSQL; the write lock of BEGIN IMMEDIATE on SQLite) must serialise them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from app.auctions import service
from app.auctions.models import Bid, BidWithdrawal
from app.core.audit import AuditEntry
from app.core.db import make_sessionmaker
from app.core.errors import AppError
from app.core.principal import ORGANISER
from app.events.models import Event
from tests.auctions.test_api import CEREMONY, build


def run_together(engine: Engine, jobs: list[Callable[[Session], Any]]) -> list[Any]:
    """Run each job in its own thread and session, started together; commit each.
    Returns the job's value, or the problem `code` it raised."""
    factory = make_sessionmaker(engine)
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def worker(index: int, job: Callable[[Session], Any]) -> None:
        with factory() as session:
            barrier.wait()
            try:
                results[index] = job(session)
                session.commit()
            except AppError as error:
                session.rollback()
                results[index] = error.code

    threads = [threading.Thread(target=worker, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_concurrent_closes_close_once(engine: Engine, session: Session) -> None:
    w = build(
        session,
        {"A": {"A_pair": CEREMONY["A"]["A_pair"]}, "B": {"B_pair": CEREMONY["B"]["B_pair"]}},
    )
    event = session.get(Event, w.event_id)
    service.open_auction(session, event, 3, ORGANISER)
    service.place_bid(
        session, event, 3, ORGANISER, participant="A", combination_id=w.combos["A_pair"]
    )
    service.place_bid(
        session, event, 3, ORGANISER, participant="B", combination_id=w.combos["B_pair"]
    )
    session.commit()

    def close(s: Session) -> str:
        return service.close_auction(s, s.get(Event, w.event_id), 3, ORGANISER)["winner"]

    results = run_together(engine, [close, close, close])
    # pair of threes beats pair of twos: A wins, once
    assert sorted(results) == ["A", "auction_closed", "auction_closed"]
    closes = session.scalar(
        select(func.count())
        .select_from(AuditEntry)
        .where(AuditEntry.event_id == w.event_id, AuditEntry.action == "auction.close")
    )
    assert closes == 1


def test_concurrent_bids_of_one_participant_leave_one_live_bid(
    engine: Engine, session: Session
) -> None:
    hands = {"A": CEREMONY["A"], "B": CEREMONY["B"], "C": CEREMONY["C"]}
    w = build(session, hands)
    event = session.get(Event, w.event_id)
    service.open_auction(session, event, 3, ORGANISER)
    session.commit()

    def bid(who: str, combo: str) -> Callable[[Session], Any]:
        def job(s: Session) -> int:
            return service.place_bid(
                s,
                s.get(Event, w.event_id),
                3,
                ORGANISER,
                participant=who,
                combination_id=w.combos[combo],
            )["bid_id"]

        return job

    jobs = [
        bid("A", "A_quads"),
        bid("A", "A_pair"),
        bid("A", "A_high"),
        bid("B", "B_pair"),
        bid("C", "C_full"),
    ]
    results = run_together(engine, jobs)
    assert all(isinstance(r, int) for r in results), results
    session.expire_all()
    live = session.scalars(
        select(Bid.participant_id)
        .outerjoin(BidWithdrawal, BidWithdrawal.bid_id == Bid.id)
        .where(BidWithdrawal.id.is_(None))
    ).all()
    # five bids placed, A's three raced: two of them were replaced, one per participant is live
    assert sorted(live) == sorted([w.people["A"].id, w.people["B"].id, w.people["C"].id])
    replaced = session.scalar(select(func.count()).select_from(BidWithdrawal))
    assert replaced == 2
    session.rollback()
