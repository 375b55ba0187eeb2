"""CPU per take of the field feed in process, by delivery size, with a same-run baseline.

No HTTP and no concurrency: the cost of the feed's own work. For each backend
(SQLite file, throwaway PostgreSQL database), an event of the seed course with
20 participants is set up through the API (in process), then deliveries are
stored the way `POST …/takes` stores them — one transaction each:
`app.feed.batching.store` (load the event, authorise, `service.ingest`, commit):
- 1 take per delivery (what a lone request costs),
- 20 takes per delivery, one per participant (what group commit makes of 20
  concurrent requests),
each take later in field time than the participant's previous one (5 card takes
then a save code, over and over). Baseline, same run: a minimal transaction of
the same session factory (`SELECT 1` and a commit). Prints CPU milliseconds per
take (`time.process_time`), wall milliseconds, and the ratio to the baseline.

The hash chain's cost (app.core.chain), against the take's whole CPU measured
above: the hash step (`chain.next_link` of a take, timed alone) plus the chain's
own statement per transaction (the redelivery check before the INSERT, timed
alone in a rolled-back transaction; the heads ride on the state writes), divided
by the takes of a delivery. (Storing with the chain on and
off alternately was tried: SQLite's WAL checkpoints and the collector made the
difference noisier than the cost itself.)

    python benchmarks/feed_cpu.py                      # SQLite and PostgreSQL
    python benchmarks/feed_cpu.py --backends sqlite --rounds 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import feed_throughput as ft  # noqa: E402
from sqlalchemy import text  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.principal import ORGANISER  # noqa: E402
from app.main import create_app  # noqa: E402
from app.simulation.local import import_test_client  # noqa: E402

TestClient = import_test_client()

PARTICIPANTS = 20


def measure(name: str, database_url: str, rounds: int) -> None:
    ft.migrate(database_url)
    settings = Settings(
        database_url=database_url,
        admin_token=ft.TOKEN,
        log_level="WARNING",
        environment="development",
    )
    app = create_app(settings)
    with TestClient(app, headers={"Authorization": f"Bearer {ft.TOKEN}"}) as client:
        event_id, participants, codes = ft.setup_event("", PARTICIPANTS, 1, client)
    make = ft.feed_requests(event_id, participants, codes)
    sessionmaker = app.state.sessionmaker
    from app.feed.batching import Delivery, store
    from app.feed.keys import FeedCredentials

    organiser = FeedCredentials(organiser=ORGANISER)  # the organiser token, as the router reads it

    sequence = 0

    def deliveries(per_delivery: int) -> list[list[dict]]:
        """One round: every participant's next take, grouped `per_delivery` to a delivery."""
        nonlocal sequence
        takes = [json.loads(make(i, sequence)[2])["takes"][0] for i in range(PARTICIPANTS)]
        sequence += 1
        return [takes[i : i + per_delivery] for i in range(0, len(takes), per_delivery)]

    def run(per_delivery: int, count: int) -> tuple[float, float, int]:
        cpu, wall, takes = time.process_time(), time.perf_counter(), 0
        for _ in range(count):
            for items in deliveries(per_delivery):
                delivery = Delivery(organiser, b"", items, None)  # type: ignore[arg-type]
                (results,) = store(sessionmaker, event_id, [delivery])
                assert all(r.status == "accepted" for r in results), results
                takes += len(items)
        return time.process_time() - cpu, time.perf_counter() - wall, takes

    def baseline(count: int) -> tuple[float, float]:
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(count):
            with sessionmaker() as session:
                session.execute(text("SELECT 1"))
                session.commit()
        return time.process_time() - cpu, time.perf_counter() - wall

    from app.feed import repository as feed_repo

    def chain_statements(per_delivery: int, count: int) -> float:
        """CPU seconds of the chain's own statement for `count` deliveries of
        `per_delivery` takes: the redelivery check before the INSERT, in a transaction
        that is rolled back (the heads are written with the states: no statement of
        their own)."""
        takes = [json.loads(make(i, 10_000 + n)[2])["takes"][0]
                 for n, i in enumerate(range(per_delivery))]  # fmt: skip
        keys = [(t["source"], t["source_id"]) for t in takes]
        with sessionmaker() as session:
            cpu = time.process_time()
            for _ in range(count):
                feed_repo.logged_source_keys(session, event_id, keys)
            spent = time.process_time() - cpu
            session.rollback()
        return spent

    run(1, 2)  # warm up: statement caches, prepared statements, connections
    run(PARTICIPANTS, 2)
    base_cpu, base_wall = baseline(rounds * PARTICIPANTS)
    base_ms = 1000 * base_cpu / (rounds * PARTICIPANTS)
    print(
        f"{name:<10} baseline: a transaction with SELECT 1: {base_ms:.2f} ms CPU, "
        f"{1000 * base_wall / (rounds * PARTICIPANTS):.2f} ms wall",
        flush=True,
    )
    per_take: dict[int, float] = {}
    for per_delivery in (1, PARTICIPANTS):
        cpu, wall, takes = run(per_delivery, rounds)
        per_take[per_delivery] = 1000 * cpu / takes
        print(
            f"{name:<10} {per_delivery:>2} take(s) a delivery: {takes} takes, "
            f"{per_take[per_delivery]:.2f} ms CPU a take "
            f"({per_take[per_delivery] / base_ms:.1f}x the baseline), "
            f"{1000 * wall / takes:.2f} ms wall a take",
            flush=True,
        )
    hash_ms = hash_step() / 1000
    for per_delivery in (1, PARTICIPANTS):
        deliveries_count = rounds * PARTICIPANTS // per_delivery
        statements = chain_statements(per_delivery, deliveries_count)
        statements_ms = 1000 * statements / (deliveries_count * per_delivery)
        whole = per_take[per_delivery]
        chain_ms = hash_ms + statements_ms
        print(
            f"{name:<10} {per_delivery:>2} take(s) a delivery: the chain's cost a take: hash "
            f"{1000 * hash_ms:.1f} µs + its statement {1000 * statements_ms:.1f} µs = "
            f"{1000 * chain_ms:.1f} µs of {whole:.3f} ms CPU a take: "
            f"{100 * chain_ms / whole:.1f} %",
            flush=True,
        )
    app.state.engine.dispose()


def hash_step(count: int = 20000) -> float:
    """CPU microseconds of `chain.next_link` for one take (the hash step alone)."""
    from datetime import UTC, datetime

    from app.core import chain

    now = datetime.now(UTC)
    content = chain.take_content(
        source="gps-watch", source_id="bib-101-000123", code="CPQHSECRETCODE1",
        taken_at=now, received_at=now, recorded_by="key:rpk_abcd",
        payload={"participant": "101", "code": "CPQHSECRETCODE1", "taken_at": now.isoformat(),
                 "source": "gps-watch", "source_id": "bib-101-000123"},
    )  # fmt: skip
    cpu = time.process_time()
    for seq in range(count):
        chain.next_link(seq, chain.GENESIS, chain.TAKE, content)
    return 1e6 * (time.process_time() - cpu) / count


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--rounds", type=int, default=30, help="takes per participant measured")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    print(f"machine: {machine()}")
    print(f"hash step alone (chain.next_link of a take): {hash_step():.1f} µs CPU", flush=True)
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                measure("sqlite", f"sqlite:///{tmp}/bench.db", args.rounds)
        elif backend == "postgresql":
            with ft.ThrowawayPostgres(args.pg_url) as url:
                measure("postgresql", url, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
