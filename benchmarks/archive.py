"""Event archive: export and checked import of 2,000 participants × 60 takes.

One process per size, a fresh database each (SQLite files, or throwaway
PostgreSQL databases with `--backend postgresql`):
1. setup (not measured): the log of `rebuild.py` (an event of the seed course,
   60 takes a participant: six deals of 5 cards, 2 discards, 2 cards, a save),
   hash-chained as the feed stores it, and its state built by the bulk rebuild;
2. export: `app.flows.archive.export_event` and `json.dumps` to a file;
3. import into a second fresh database: `json.loads`, `import_event` (rows
   inserted, the feed replayed, every chain recomputed, head, states,
   combinations, outcomes and results compared), commit.
Baseline, same run: the feed's bulk rebuild of the same event (the replay the
import contains) and reading every take row. Targets (issue 19): export < 10 s,
import with verification < 20 s for 2,000 participants.

    python benchmarks/archive.py               # 2,000 participants (120,000 takes)
    python benchmarks/archive.py --quick       # 200 participants, for development
    python benchmarks/archive.py --backend postgresql
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rebuild as rb  # noqa: E402
from _machine import machine  # noqa: E402
from sqlalchemy import create_engine, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.db import make_engine, make_sessionmaker  # noqa: E402
from app.events.models import Event  # noqa: E402
from app.feed import projection  # noqa: E402
from app.feed.models import Take  # noqa: E402
from app.flows import archive  # noqa: E402
from app.simulation.local import migrate  # noqa: E402


def engine_for(url: str):
    engine = make_engine(Settings(_env_file=None, database_url=url))
    migrate(engine)
    return engine


def measure(participants: int, source_url: str, target_url: str, tmp: str) -> None:
    source = engine_for(source_url)
    factory = make_sessionmaker(source)
    with factory() as session:
        event_id = rb.populate(session, participants, chained=True).id
    with factory() as session:
        started = time.perf_counter()
        projection.rebuild_event(session, session.get(Event, event_id), actor="benchmark")
        session.commit()
        rebuild_s = time.perf_counter() - started
    with factory() as session:
        started = time.perf_counter()
        takes = len(session.execute(select(Take).where(Take.event_id == event_id)).all())
        read_s = time.perf_counter() - started

    path = Path(tmp) / "archive.json"
    with factory() as session:
        started = time.perf_counter()
        document = archive.export_event(session, session.get(Event, event_id))
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        export_s = time.perf_counter() - started
    source.dispose()
    size_mib = path.stat().st_size / 2**20

    target = engine_for(target_url)
    with make_sessionmaker(target)() as session:
        started = time.perf_counter()
        loaded = json.loads(path.read_text(encoding="utf-8"))
        _, report = archive.import_event(session, loaded, actor="benchmark")
        session.commit()
        import_s = time.perf_counter() - started
    target.dispose()
    assert report["head"] == document["expected"]["log"]["head"]
    print(
        f"{participants:>5} participants, {takes} takes, archive {size_mib:.1f} MiB: "
        f"export {export_s:.2f} s (target 10 s), import with verification {import_s:.2f} s "
        f"(target 20 s); baseline: bulk rebuild {rebuild_s:.2f} s, reading the take rows "
        f"{read_s:.2f} s; import / rebuild {import_s / rebuild_s:.1f}x",
        flush=True,
    )


class Postgres:
    """Two throwaway PostgreSQL databases (dropped afterwards)."""

    def __init__(self, url: str) -> None:
        self.admin = create_engine(url, isolation_level="AUTOCOMMIT")
        self.url = url
        self.names = [f"rogaine_bench_archive_{os.getpid()}_{n}" for n in (1, 2)]

    def __enter__(self) -> list[str]:
        with self.admin.connect() as connection:
            for name in self.names:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
                connection.execute(text(f'CREATE DATABASE "{name}"'))
        return [
            make_url(self.url).set(database=n).render_as_string(hide_password=False)
            for n in self.names
        ]

    def __exit__(self, *exc: object) -> None:
        with self.admin.connect() as connection:
            for name in self.names:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self.admin.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="200 participants")
    parser.add_argument("--participants", type=int, help="default 2,000 (--quick: 200)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    participants = args.participants or (200 if args.quick else 2000)
    print(f"machine: {machine()}; load {os.getloadavg()[0]:.1f}")
    print(f"backend: {args.backend}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.backend == "sqlite":
            measure(participants, f"sqlite:///{tmp}/field.db", f"sqlite:///{tmp}/server.db", tmp)
        else:
            with Postgres(args.pg_url) as (source, target):
                measure(participants, source, target, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
