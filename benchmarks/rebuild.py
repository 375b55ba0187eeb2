"""Full rebuild of an event's state from the take log: time, peak memory, growth.

For 500, 1,000 and 2,000 participants with 60 takes each (30,000 / 60,000 /
120,000 takes), each size in a fresh process on a fresh database:
1. the log is inserted in bulk directly (setup, not measured): an event with the
   seed course, participants with save codes, and per participant six deals of
   5 cards, 2 discard codes, 2 more cards and a save code, in field-time order;
2. the baseline: reading every take row of the event (`SELECT ... FROM take`);
3. the rebuild: the feed's own `app.feed.projection.rebuild_event` in one
   transaction, as the organiser's rebuild endpoint runs it.
Prints time, takes per second, peak memory (the rise of the maximum resident
set of a fresh process during the rebuild) and the ratio rebuild / baseline read; then the
growth from 500 to 2,000 participants (linear growth: time per take constant).
Target (issue 10): 120,000 takes under 10 s.

    python benchmarks/rebuild.py              # SQLite, 500 / 1,000 / 2,000 participants
    python benchmarks/rebuild.py --quick      # 100 / 200 / 400 participants
    python benchmarks/rebuild.py --backend postgresql
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _machine import machine  # noqa: E402
from sqlalchemy import insert, select, text  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.db import make_engine, make_sessionmaker  # noqa: E402
from app.events import identity  # noqa: E402
from app.events.codes import normalize_code  # noqa: E402
from app.events.models import Checkpoint, Event, Participant, SaveCode  # noqa: E402
from app.feed.models import Take  # noqa: E402
from app.simulation.course import build_course  # noqa: E402
from app.simulation.local import migrate  # noqa: E402

TAKES_PER_PARTICIPANT = 60


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def populate(session, participants: int, seed: int = 1, *, chained: bool = False) -> Event:
    """Insert the event, deck, participants, save codes and 60 takes each, in bulk.
    `chained`: each participant's takes hash-chained as the feed stores them
    (app.core.chain; the rebuild then writes the heads with the states)."""
    rng = random.Random(seed)
    opens = datetime(2026, 6, 13, 9, tzinfo=UTC)
    event = Event(
        name="Rebuild benchmark",
        opens_at=opens,
        closes_at=opens + timedelta(hours=18),
        timezone="Europe/Moscow",
        hand_ranking="seed",
        save_codes_per_participant=10,
        award_places=3,
        status="course_closed",
    )
    session.add(event)
    session.flush()
    course = build_course(rng)
    session.execute(
        insert(Checkpoint),
        [
            {
                "event_id": event.id,
                "number": cp.number,
                "card": cp.card,
                "code": cp.code,
                "discard_code": cp.discard_code,
                "lat": cp.lat,
                "lon": cp.lon,
                "hint": cp.hint,
            }
            for cp in course
        ],
    )
    session.execute(
        insert(Participant),
        [
            {
                "event_id": event.id,
                "external_id": str(1000 + i),
                "name": f"Participant {i}",
                "access_token_hash": f"{i:064x}",
                "created_at": opens,
            }
            for i in range(participants)
        ],
    )
    ids = list(
        session.scalars(
            select(Participant.id).where(Participant.event_id == event.id).order_by(Participant.id)
        )
    )
    save_rows, take_rows = [], []
    for index, participant_id in enumerate(ids):
        codes = [f"S{index:05d}N{k:02d}" for k in range(10)]
        save_rows += [
            {"event_id": event.id, "participant_id": participant_id, "position": k + 1, "code": c}
            for k, c in enumerate(codes)
        ]
        deck = list(course)
        rng.shuffle(deck)
        sequence: list[str] = []
        for deal in range(TAKES_PER_PARTICIPANT // 10):
            cards = deck[deal * 7 : deal * 7 + 7]
            sequence += [cp.code for cp in cards[:5]]
            sequence += [cp.discard_code for cp in cards[:2]]
            sequence += [cp.code for cp in cards[5:7]]
            sequence.append(codes[deal])
        at = opens + timedelta(minutes=rng.uniform(0, 120))
        for n, code in enumerate(sequence):
            at += timedelta(seconds=rng.uniform(30, 900))
            take_rows.append(
                {
                    "event_id": event.id,
                    "participant_id": participant_id,
                    "source": f"bench-{index}",
                    "source_id": str(n),
                    "code": normalize_code(code),
                    "taken_at": at,
                    "received_at": at,
                    "recorded_by": "benchmark",
                    "payload": {},
                }
            )
    session.execute(insert(SaveCode), save_rows)
    if chained:
        _chain(take_rows)
        # the identity log, as the service writes it when it creates participants
        people = session.scalars(
            select(Participant).where(Participant.event_id == event.id).order_by(Participant.id)
        ).all()
        identity.record(session, event.id, people, "create", "benchmark")
    for start in range(0, len(take_rows), 10_000):
        session.execute(insert(Take), take_rows[start : start + 10_000])
    session.commit()
    return event


def _chain(take_rows: list[dict]) -> None:
    from app.core import chain

    heads: dict[int, tuple[int, str | None]] = {}
    for row in take_rows:
        seq, head = heads.get(row["participant_id"], (0, None))
        content = chain.take_content(
            source=row["source"], source_id=row["source_id"], code=row["code"],
            taken_at=row["taken_at"], received_at=row["received_at"],
            recorded_by=row["recorded_by"], payload=row["payload"],
        )  # fmt: skip
        row["log_seq"], row["log_prev"], row["log_hash"] = chain.next_link(
            seq, head, chain.TAKE, content
        )
        heads[row["participant_id"]] = (row["log_seq"], row["log_hash"])


def child_populate(participants: int, database_url: str) -> dict:
    """Process 1: migrate and insert the log in bulk (not measured)."""
    engine = make_engine(Settings(_env_file=None, database_url=database_url))
    migrate(engine)
    with make_sessionmaker(engine)() as session:
        event_id = populate(session, participants).id
    engine.dispose()
    return {"event_id": event_id}


def child_rebuild(event_id: int, database_url: str) -> dict:
    """Process 2 (fresh, so its peak memory is the rebuild's): rebuild, then the baseline."""
    from app.feed import projection

    engine = make_engine(Settings(_env_file=None, database_url=database_url))
    factory = make_sessionmaker(engine)
    with factory() as session:
        event = session.get(Event, event_id)
        before = rss_kib()
        started = time.perf_counter()
        result = projection.rebuild_event(session, event, actor="benchmark")
        session.commit()
        rebuild_s = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    with factory() as session:
        started = time.perf_counter()
        count = len(session.execute(select(Take).where(Take.event_id == event_id)).all())
        read_s = time.perf_counter() - started
    with engine.connect() as connection:
        combinations = connection.execute(text("SELECT count(*) FROM combination")).scalar_one()
    engine.dispose()
    return {
        "takes": count,
        "rebuilt": list(result),
        "combinations": combinations,
        "read_s": read_s,
        "rebuild_s": rebuild_s,
        "peak_mib": max(0, peak - before) / 1024,
    }


def run_size(participants: int, backend: str, pg_url: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        if backend == "sqlite":
            url = f"sqlite:///{tmp}/rebuild.db"
            return _spawn(participants, url)
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url

        name = f"rogaine_bench_rebuild_{os.getpid()}"
        admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = make_url(pg_url).set(database=name).render_as_string(hide_password=False)
            return _spawn(participants, url)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


def _child(*args: str) -> dict:
    output = subprocess.run(
        [sys.executable, __file__, *args], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def _spawn(participants: int, url: str) -> dict:
    event_id = _child("--populate", str(participants), "--url", url)["event_id"]
    return {"participants": participants, **_child("--rebuild", str(event_id), "--url", url)}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="100 / 200 / 400 participants")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--sizes", help="comma-separated participant counts")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--populate", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rebuild", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.populate:
        print(json.dumps(child_populate(args.populate, args.url)))
        return 0
    if args.rebuild:
        print(json.dumps(child_rebuild(args.rebuild, args.url)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    sizes = sizes or ([100, 200, 400] if args.quick else [500, 1000, 2000])
    print(f"machine: {machine()}")
    print(f"backend: {args.backend}; baseline = reading every take row of the event")
    results = []
    for size in sizes:
        r = run_size(size, args.backend, args.pg_url)
        results.append(r)
        print(
            f"{r['participants']:>6} participants {r['takes']:>7} takes:"
            f" rebuild {r['rebuild_s']:6.2f} s"
            f" ({r['takes'] / r['rebuild_s']:>8.0f} takes/s), peak +{r['peak_mib']:6.1f} MiB;"
            f" baseline read {r['read_s']:5.2f} s; ratio {r['rebuild_s'] / r['read_s']:5.1f}x;"
            f" {r['combinations']} combinations",
            flush=True,
        )
    first, last = results[0], results[-1]
    scale = last["takes"] / first["takes"]
    print(
        f"growth {first['participants']} -> {last['participants']} participants (x{scale:g} takes):"
        f" time x{last['rebuild_s'] / first['rebuild_s']:.2f},"
        f" memory x{(last['peak_mib'] or 1) / (first['peak_mib'] or 1):.2f}"
        f" (linear = x{scale:g}); microseconds per take:"
        + ", ".join(f" {1e6 * r['rebuild_s'] / r['takes']:.0f}" for r in results)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
