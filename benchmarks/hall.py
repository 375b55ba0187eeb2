"""The hall screen at 20 and at 2,000 participants: CPU per viewer's request, in process.

The events are `dashboard.py`'s (the seed course through the API, every participant
`--takes` takes, a tenth an unknown code, the course closed, auction 3 open). Then, in
the same process and run, CPU per request (`time.process_time`: the app and the database
engine in this process; sizes and screens in turn, `--rounds` times, the median) of:

- `GET /healthz` (the baseline),
- `GET /hall/{id}` (the hall screen page) and `GET /hall/{id}/data.json` (its data), as a
  viewer gets them: through the process's hall cache (`app.flows.hall.HallCache`, one
  computation per event every 2 s whatever the number of screens),
- `data.json, uncached`: the same with the cache's lifetime at 0, so every request
  computes the data (what one refresh costs the process every 2 s).

Target (issue 29): the same cost at 20 and 2,000 participants.

    python benchmarks/hall.py                        # SQLite, 20 and 2,000
    python benchmarks/hall.py --database-url postgresql+psycopg://…/db
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dashboard  # noqa: E402
import feed_throughput as ft  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.flows import hall as hall_flow  # noqa: E402
from app.main import create_app  # noqa: E402
from app.simulation.local import import_test_client  # noqa: E402

TestClient = import_test_client()
UNCACHED = "data.json, uncached"


def screens(event_id: int) -> dict[str, str]:
    return {
        "/healthz": "/healthz",
        "hall page": f"/hall/{event_id}",
        "data.json": f"/hall/{event_id}/data.json",
        UNCACHED: f"/hall/{event_id}/data.json",
    }


def measure(client, app, events: dict[int, int], requests: int, rounds: int) -> dict:
    """CPU ms per request of each screen at each size, `rounds` interleaved rounds (the
    sizes in alternating order), the median of the rounds."""
    cache = hall_flow.cache_for(app.state)
    samples: dict[tuple[int, str], list[float]] = {}
    gc.collect()
    gc.freeze()
    for turn in range(rounds):
        order = list(events.items())
        for size, event_id in order if turn % 2 == 0 else order[::-1]:
            for name, path in screens(event_id).items():
                cache.ttl = 0.0 if name == UNCACHED else hall_flow.CACHE_SECONDS
                figure = dashboard.cpu_per_request(client, path, max(1, requests // rounds))
                samples.setdefault((size, name), []).append(figure)
    cache.ttl = hall_flow.CACHE_SECONDS
    results: dict[int, dict[str, float]] = {}
    for (size, name), values in samples.items():
        results.setdefault(size, {})[name] = statistics.median(values)
    return results


def report(results: dict, sizes: list[int], url: str) -> None:
    small, large = results[sizes[0]], results[sizes[-1]]
    print(f"\nCPU per request (ms), in process, {url.split(':')[0]}; load {os.getloadavg()}")
    print(f"{'screen':22}{sizes[0]:>10}{sizes[-1]:>10}{'ratio':>8}{'x /healthz':>12}")
    for name in small:
        ratio = large[name] / small[name]
        vs_health = large[name] / large["/healthz"]
        print(f"{name:22}{small[name]:10.2f}{large[name]:10.2f}{ratio:8.2f}{vs_health:12.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="20,2000", help="participants, comma-separated")
    parser.add_argument("--takes", type=int, default=12, help="takes per participant")
    parser.add_argument("--requests", type=int, default=400, help="requests per figure")
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds (median)")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()}")
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{tmp}/hall.db"
        ft.migrate(url)
        settings = Settings(
            database_url=url, admin_token=ft.TOKEN, log_level="WARNING", environment="development"
        )
        app = create_app(settings)
        headers = {"Authorization": f"Bearer {ft.TOKEN}"}
        with TestClient(app, headers=headers) as client:
            events = {}
            for size in sizes:
                started = time.perf_counter()
                events[size] = dashboard.populate(client, size, args.takes)
                took = time.perf_counter() - started
                print(f"event {events[size]}: {size} participants × {args.takes} ({took:.0f} s)")
            results = measure(client, app, events, args.requests, args.rounds)
    report(results, sizes, url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
