"""The organiser's screens at 20 and at 2,000 participants: CPU per request, in process.

For each size an event of the seed course is set up through the API (in process, SQLite
file unless `--database-url`), every participant takes `--takes` takes (5 cards then a
save code, over and over, delivered 100 to a request), a tenth of them also scans an
unknown code, and auction 3 is opened (the ceremony has begun: the projector has
something to show). Then, in the same process and run, CPU per request
(`time.process_time`, the app and the database engine in this process; the sizes and
screens measured in turn, `--rounds` times, the median of the rounds) of:

- `GET /healthz` (the baseline),
- `GET /admin/events/{id}` (the dashboard page),
- `GET /admin/events/{id}/live.json` (its poll),
- `GET /admin/events/{id}/projector/3` (the projector) and its poll `…/live.json`.

Targets (issue 24): each screen at 2,000 participants ≤ 1.5x its cost at 20, and
≤ 5x `/healthz`.

    python benchmarks/dashboard.py                 # 20 and 2,000 participants
    python benchmarks/dashboard.py --requests 100 --takes 12
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import feed_throughput as ft  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.simulation.local import import_test_client  # noqa: E402

TestClient = import_test_client()
API = "/api/v1"


def populate(client, size: int, takes: int) -> int:
    """An event of `size` participants who took `takes` takes each; auction 3 opened."""
    event_id, _, codes = ft.setup_event("", 0, size, client)
    rows = "".join(f"Участник {i},d{size}-{i},M21\n" for i in range(size))
    imported = client.post(  # the participants in one CSV import
        f"{API}/events/{event_id}/participants/import",
        content=("name,external_id,category\n" + rows).encode(),
        headers={"Content-Type": "text/csv"},
    )
    imported.raise_for_status()
    participants = imported.json()["participants"]
    make = ft.feed_requests(event_id, participants, codes)
    batch: list[dict] = []
    for n in range(takes):
        for index in range(size):
            batch.append(json.loads(make(index, n)[2])["takes"][0])
    for index in range(0, size, 10):  # a tenth scans a code that is no checkpoint's
        take = json.loads(make(index, takes)[2])["takes"][0]
        batch.append({**take, "code": "NOSUCHCODE", "source_id": f"unknown-{index}"})
    for start in range(0, len(batch), 100):
        response = client.post(
            f"{API}/events/{event_id}/takes", json={"takes": batch[start : start + 100]}
        )
        response.raise_for_status()
    # the course ends: the window closes now, so the ceremony may begin
    client.patch(
        f"{API}/events/{event_id}",
        json={"closes_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))},
    ).raise_for_status()
    client.post(f"{API}/events/{event_id}/auctions/3/open").raise_for_status()
    return event_id


def cpu_per_request(client, path: str, requests: int) -> float:
    """CPU milliseconds per `GET path` (this process), after two warm-up requests."""
    for _ in range(2):
        client.get(path).raise_for_status()
    start = time.process_time()
    for _ in range(requests):
        client.get(path)
    return (time.process_time() - start) * 1000 / requests


def interleaved(
    client, events: dict[int, int], requests: int, rounds: int
) -> dict[int, dict[str, float]]:
    """CPU ms per request of each screen at each size and of `/healthz`, measured in
    `rounds` rounds that visit every (screen, size) in turn, the sizes in alternating
    order (so that a change of the machine's load falls on all of them alike); the
    median of the rounds."""
    samples: dict[tuple[int, str], list[float]] = {}
    gc.collect()
    gc.freeze()  # the set-up's objects: no collector pass of the requests walks them
    for turn in range(rounds):
        order = list(events.items())
        for size, event_id in order if turn % 2 == 0 else order[::-1]:
            paths = {"/healthz": "/healthz", **screens(event_id)}
            for name, path in paths.items():
                figure = cpu_per_request(client, path, max(1, requests // rounds))
                samples.setdefault((size, name), []).append(figure)
    results: dict[int, dict[str, float]] = {}
    for (size, name), values in samples.items():
        results.setdefault(size, {})[name] = statistics.median(values)
    return results


def screens(event_id: int) -> dict[str, str]:
    base = f"/admin/events/{event_id}"
    return {
        "dashboard": base,
        "dashboard live.json": f"{base}/live.json",
        "projector": f"{base}/projector/3",
        "projector live.json": f"{base}/projector/3/live.json",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="20,2000", help="participants, comma-separated")
    parser.add_argument("--takes", type=int, default=12, help="takes per participant")
    parser.add_argument("--requests", type=int, default=400, help="requests per figure")
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds (median)")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{tmp}/dashboard.db"
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
                events[size] = populate(client, size, args.takes)
                took = time.perf_counter() - started
                print(
                    f"event {events[size]}: {size} participants, {args.takes} takes each "
                    f"({took:.0f} s)"
                )
            results = interleaved(client, events, args.requests, args.rounds)
    small, large = results[sizes[0]], results[sizes[-1]]
    print(f"\nCPU per request (ms), in process, {url.split(':')[0]}; load {os.getloadavg()[0]:.1f}")
    print(
        f"{'screen':24}{sizes[0]:>10}{sizes[-1]:>10}{'ratio':>8}  (target 1.5)"
        f"{'x /healthz':>12}  (target 5)"
    )
    for name in small:
        ratio = large[name] / small[name]
        vs_health = large[name] / large["/healthz"]
        print(
            f"{name:24}{small[name]:10.2f}{large[name]:10.2f}{ratio:8.2f}{'':14}{vs_health:10.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
