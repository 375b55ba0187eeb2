"""Importing participants from CSV (`POST …/participants/import`), with a same-run baseline.

Setup (not measured): a fresh database migrated to head, an event with 10 save codes
per participant (the default), a CSV of `--participants` rows `name, external_id,
category` (every 3rd row without an external id, so numbers are generated too).
Then, in the same process:
- the import: the whole HTTP request through the app in process (TestClient): parse,
  validate every field, lock the event's numbers, insert the participants and their
  save codes, audit, commit, and the response with every personal link;
- the baseline: the least the database must do for the same rows, a Core bulk INSERT
  of as many participant rows and 10 save-code rows each, committed.
Each is run `--repeats` times on a new event; medians and minima are printed with the
ratio. Target (issue 14): 5,000 participants < 5 s.

    python benchmarks/participants_import.py                  # SQLite file, 5,000
    python benchmarks/participants_import.py --backend postgresql
    python benchmarks/participants_import.py --participants 500 --repeats 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import feed_throughput as ft  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.db import utcnow  # noqa: E402
from app.events.models import Participant, SaveCode  # noqa: E402
from app.main import create_app  # noqa: E402
from app.simulation.local import import_test_client  # noqa: E402

TestClient = import_test_client()
EVENT = {
    "name": "Benchmark",
    "opens_at": "2026-06-12T12:00:00+03:00",
    "closes_at": "2026-06-13T06:00:00+03:00",
    "timezone": "Europe/Moscow",
}
SAVE_CODES = 10


def csv_text(count: int) -> bytes:
    rows = ["name,external_id,category"]
    for i in range(count):
        external_id = "" if i % 3 == 2 else str(10_000 + i)
        rows.append(f"Участник {i},{external_id},{'MW'[i % 2]}{21 + i % 40}")
    return ("\n".join(rows) + "\n").encode()


def baseline_insert(sessionmaker, event_id: int, count: int) -> float:
    """Seconds for a Core bulk INSERT of `count` participants and their save codes."""
    now = utcnow()
    with sessionmaker() as session:
        started = time.perf_counter()
        rows = [
            {
                "event_id": event_id,
                "external_id": f"B{i}",
                "name": f"Участник {i}",
                "category": "M21",
                "access_token_hash": f"{event_id}-{i:060d}",
                "created_at": now,
            }
            for i in range(count)
        ]
        ids = session.scalars(
            insert(Participant).returning(Participant.id, sort_by_parameter_order=True), rows
        ).all()
        codes = [
            {"event_id": event_id, "participant_id": pid, "position": k, "code": f"{pid}C{k}"}
            for pid in ids
            for k in range(1, SAVE_CODES + 1)
        ]
        session.execute(insert(SaveCode), codes)
        session.commit()
        return time.perf_counter() - started


def run(database_url: str, count: int, repeats: int) -> dict:
    ft.migrate(database_url)
    settings = Settings(
        database_url=database_url,
        admin_token=ft.TOKEN,
        log_level="WARNING",
        environment="development",
    )
    app = create_app(settings)
    body = csv_text(count)
    imports: list[float] = []
    baselines: list[float] = []
    with TestClient(app, headers={"Authorization": f"Bearer {ft.TOKEN}"}) as client:
        for _ in range(repeats):
            event_id = client.post("/api/v1/events", json=EVENT).json()["id"]
            started = time.perf_counter()
            response = client.post(
                f"/api/v1/events/{event_id}/participants/import",
                content=body,
                headers={"Content-Type": "text/csv"},
            )
            imports.append(time.perf_counter() - started)
            assert response.status_code == 201, response.text[:500]
            assert len(response.json()["participants"]) == count
            size = len(response.content)
            other = client.post("/api/v1/events", json=EVENT).json()["id"]
            baselines.append(baseline_insert(app.state.sessionmaker, other, count))
    return {
        "import_s": statistics.median(imports),
        "import_min_s": min(imports),
        "baseline_s": statistics.median(baselines),
        "baseline_min_s": min(baselines),
        "csv_bytes": len(body),
        "response_bytes": size,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--participants", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if args.backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            result = run(f"sqlite:///{tmp}/bench.db", args.participants, args.repeats)
    else:
        with ft.ThrowawayPostgres(args.pg_url) as url:
            result = run(url, args.participants, args.repeats)
    n = args.participants
    ratio = result["import_s"] / result["baseline_s"]
    print(
        f"backend: {args.backend}; {n} participants, {SAVE_CODES} save codes each; CSV "
        f"{result['csv_bytes'] / 1024:.0f} KiB, response {result['response_bytes'] / 1024:.0f} KiB"
    )
    print(
        f"baseline: bulk INSERT of {n} participants + {n * SAVE_CODES} save codes, committed: "
        f"median {result['baseline_s']:.3f} s, min {result['baseline_min_s']:.3f} s"
    )
    print(
        f"import (HTTP in process): median {result['import_s']:.3f} s, min "
        f"{result['import_min_s']:.3f} s ({n / result['import_s']:,.0f} participants/s; "
        f"target 5,000 < 5 s) = {ratio:.1f} x baseline (medians of {args.repeats})"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
