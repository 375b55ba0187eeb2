"""Closing an auction with 2,000 sealed bids, with a same-run baseline.

Setup (not measured): a fresh database migrated to head, an event whose course
has closed, 2,000 participants each with one saved combination (5 distinct
cards of the 54, drawn from a seeded RNG), the auction for 3rd place opened and
2,000 bids placed through `app.auctions.service.place_bid` (their mean time is
printed too). Then, in the same process:
- the baseline: evaluating the 2,000 combinations alone with
  `app.poker.evaluator.evaluate` under the event's preset (a cold start is
  avoided by evaluating them once before timing);
- a second baseline: reading the 2,000 bid rows (`SELECT * FROM bid`);
- the close: `app.auctions.service.close_auction` in one transaction (lock,
  read the bids and combinations, evaluate, rank, decide, write the result and
  the audit entry), committed.
Both are measured `--repeats` times (the close is undone between runs, which
reopens the same round); medians and minima are printed with their ratio.
Target (issue 6): the close < 0.5 s.

    python benchmarks/auction_close.py                   # SQLite file
    python benchmarks/auction_close.py --backend postgresql
    python benchmarks/auction_close.py --bids 500
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _machine import machine
from sqlalchemy import text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402

from app.auctions import service  # noqa: E402
from app.core.config import Settings  # noqa: E402
from app.core.db import make_engine, make_sessionmaker  # noqa: E402
from app.core.principal import ORGANISER  # noqa: E402
from app.core.security import hash_token  # noqa: E402
from app.events.models import Event, Participant  # noqa: E402
from app.feed.models import Combination, Take  # noqa: E402
from app.poker.evaluator import evaluate  # noqa: E402

DECK = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["JK1", "JK2"]
OPENS = datetime(2026, 6, 12, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 6, 13, 3, 0, tzinfo=UTC)


def migrate(engine) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["configure_logger"] = False
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def populate(session, bids: int, seed: int) -> tuple[int, list[list[str]]]:
    rng = random.Random(seed)
    event = Event(
        name="Benchmark",
        opens_at=OPENS,
        closes_at=CLOSES,
        timezone="UTC",
        hand_ranking="seed",
        award_places=3,
        status="ceremony",
    )
    session.add(event)
    session.flush()
    people = [
        Participant(
            event_id=event.id,
            external_id=f"P{i:05d}",
            name=f"Participant {i}",
            access_token_hash=hash_token(f"bench-{seed}-{i}"),
        )
        for i in range(bids)
    ]
    session.add_all(people)
    session.flush()
    hands: list[list[str]] = []
    for i, person in enumerate(people):
        take = Take(
            event_id=event.id,
            participant_id=person.id,
            source="benchmark",
            source_id=str(i),
            code=f"SAVE{i}",
            taken_at=OPENS + timedelta(minutes=i % 900),
            recorded_by="benchmark",
        )
        session.add(take)
        hands.append(rng.sample(DECK, 5))
    session.flush()
    takes = session.query(Take).filter(Take.event_id == event.id).order_by(Take.id).all()
    for take, person, cards in zip(takes, people, hands, strict=True):
        session.add(
            Combination(
                id=take.id,
                event_id=event.id,
                participant_id=person.id,
                cards=cards,
                category=evaluate(cards).category,
                deal=1,
                saved_at=take.taken_at,
            )
        )
    session.commit()
    return event.id, hands


def run(database_url: str, bids: int, seed: int, repeats: int) -> dict:
    engine = make_engine(Settings(_env_file=None, database_url=database_url))
    migrate(engine)
    factory = make_sessionmaker(engine)
    organiser = ORGANISER
    with factory() as session:
        event_id, hands = populate(session, bids, seed)
    with factory() as session:
        event = session.get(Event, event_id)
        service.open_auction(session, event, 3, organiser)
        session.commit()
    with factory() as session:
        event = session.get(Event, event_id)
        combos = (
            session.query(Combination.id, Combination.participant_id)
            .filter(Combination.event_id == event_id)
            .all()
        )
        externals = dict(
            session.query(Participant.id, Participant.external_id)
            .filter(Participant.event_id == event_id)
            .all()
        )
        started = time.perf_counter()
        for combination_id, participant_id in combos:
            service.place_bid(
                session,
                event,
                3,
                organiser,
                participant=externals[participant_id],
                combination_id=combination_id,
            )
            session.commit()
        bid_mean_ms = (time.perf_counter() - started) / len(combos) * 1000

    for cards in hands:  # warm the evaluator's tables
        evaluate(cards, "seed")
    baseline: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        for cards in hands:
            evaluate(cards, "seed")
        baseline.append(time.perf_counter() - started)

    reads: list[float] = []
    for _ in range(repeats):
        with factory() as session:
            started = time.perf_counter()
            session.execute(text("SELECT * FROM bid")).all()
            reads.append(time.perf_counter() - started)

    closes: list[float] = []
    for attempt in range(repeats):
        with factory() as session:
            event = session.get(Event, event_id)
            started = time.perf_counter()
            closed = service.close_auction(session, event, 3, organiser, lots_seed=1)
            session.commit()
            closes.append(time.perf_counter() - started)
        if attempt < repeats - 1:  # reopen the round for the next measurement
            with factory() as session:
                service.undo_close(session, session.get(Event, event_id), 3, organiser)
                session.commit()
    engine.dispose()
    return {
        "bids": len(closed["bids"]),
        "bid_mean_ms": bid_mean_ms,
        "baseline_s": statistics.median(baseline),
        "baseline_min_s": min(baseline),
        "read_s": statistics.median(reads),
        "close_s": statistics.median(closes),
        "close_min_s": min(closes),
        "resolution": closed["resolution"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--bids", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5, help="closes (undone in between)")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.backend == "sqlite":
            result = run(f"sqlite:///{tmp}/auction.db", args.bids, args.seed, args.repeats)
        else:
            from sqlalchemy import create_engine
            from sqlalchemy.engine import make_url

            name = f"rogaine_bench_auction_{os.getpid()}"
            admin = create_engine(args.pg_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            try:
                url = make_url(args.pg_url).set(database=name)
                result = run(
                    url.render_as_string(hide_password=False), args.bids, args.seed, args.repeats
                )
            finally:
                with admin.connect() as connection:
                    connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
    ratio = result["close_s"] / result["baseline_s"] if result["baseline_s"] else float("nan")
    print(f"backend: {args.backend}; bids: {result['bids']} ({result['resolution']})")
    print(f"placing a bid (service, committed): mean {result['bid_mean_ms']:.2f} ms")
    print(
        f"baseline: evaluate {result['bids']} combinations: median "
        f"{result['baseline_s'] * 1000:.1f} ms, min {result['baseline_min_s'] * 1000:.1f} ms"
    )
    print(
        f"baseline: SELECT * FROM bid ({result['bids']} rows): median "
        f"{result['read_s'] * 1000:.1f} ms (the close takes "
        f"{result['close_s'] / result['read_s']:.1f} x this)"
    )
    print(
        f"close auction with {result['bids']} bids: median {result['close_s'] * 1000:.1f} ms, "
        f"min {result['close_min_s'] * 1000:.1f} ms (target < 500 ms) = {ratio:.1f} x baseline "
        f"(medians of {args.repeats})"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
