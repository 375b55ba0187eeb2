"""Server CPU of one take sent alone, against `/healthz` in the same server run.

PostgreSQL (a throwaway database), `--workers` (2) uvicorn workers, `--clients` (200)
devices on loopback in a closed loop (`benchmarks/feed_throughput.py`'s raw clients), one
event of the seed course with one participant per device. Measured, each over
`--requests` requests, as the server's CPU (user + system of every uvicorn process, from
/proc) divided by the requests, and as throughput:

1. `GET /healthz` (the baseline);
2. the feed's single-item path: `POST /api/v1/events/{id}/takes` with one take (the
   organiser token; a device's next take, later in field time than its last);
3. the phone's path: `POST /api/v1/scan` with the participant's token (one code at the
   server's clock).

Target (issue 24): a single take ≤ 3x `/healthz` server CPU (≥ 33 % of its throughput).

    python benchmarks/single_take.py
    python benchmarks/single_take.py --clients 50 --requests 4000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

import ceremony as cer
import feed_throughput as ft
import httpx
from _machine import machine


def wait_ready(server: cer.Server, workers: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{server.port}/healthz", timeout=1).status_code == 200:
                time.sleep(0.5 * workers + 1)  # every worker started
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("uvicorn did not start")


def scan_requests(participants: list[dict], codes: list[str], offset: int = 0):
    """Device i scans the codes in its own order (card takes; a full hand is refused);
    `offset` continues after an earlier measurement."""

    def make(index: int, n: int):
        n += offset
        participant = participants[index]
        body = {
            "code": codes[(index * 7 + n) % len(codes)],
            "source_id": f"scan-{index}-{n}",
        }
        headers = (
            f"Authorization: Bearer {participant['access_token']}\r\n"
            "Content-Type: application/json\r\n"
        )
        return "POST", "/api/v1/scan", json.dumps(body).encode(), headers

    return make


def measure(server: cer.Server, clients: int, count: int, make, limit: float) -> dict:
    """Closed loop of `clients` devices, `count` requests in all: rps and CPU ms/request."""
    per_client = max(2, count // clients)
    before = server.cpu()
    figures = asyncio.run(ft.load(server.port, clients, per_client, make, limit))
    used = server.cpu() - before
    figures["cpu_ms"] = 1000 * used / max(1, figures["requests"])
    return figures


def report(rows: dict[str, list[dict]], workers: int, clients: int) -> None:
    """The table (each endpoint's least disturbed round) and the ratios to `/healthz`."""
    load = os.getloadavg()[0]
    print(f"\nPostgreSQL, {workers} workers, {clients} clients; load {load:.1f}")
    health_cpu = min(r["cpu_ms"] for r in rows["GET /healthz"])
    health_rps = max(r["rps"] for r in rows["GET /healthz"])
    print(f"{'endpoint':24}{'requests':>9}{'req/s':>9}{'CPU ms':>9}{'x healthz':>11}"
          f"{'% rps':>8}{'errors':>8}")  # fmt: skip
    for name, measured in rows.items():
        best = min(measured, key=lambda r: r["cpu_ms"])  # the least disturbed round
        print(
            f"{name:24}{best['requests']:9}{best['rps']:9.0f}{best['cpu_ms']:9.2f}"
            f"{best['cpu_ms'] / health_cpu:11.2f}{100 * best['rps'] / health_rps:8.1f}"
            f"{best['errors']:8}"
        )
    print("target: a single take <= 3x /healthz CPU (>= 33 % of its throughput)")
    for name in ("POST takes (1 take)", "POST scan"):
        best = min(rows[name], key=lambda r: r["cpu_ms"])
        ratio, share = best["cpu_ms"] / health_cpu, 100 * best["rps"] / health_rps
        verdict = "met" if ratio <= 3 else "missed"
        print(f"  {name}: {ratio:.2f}x /healthz CPU ({verdict}), {share:.1f} % of its req/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--requests", type=int, default=8000, help="per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="baseline/feed/scan rounds")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per measurement")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    rows: dict[str, list[dict]] = {"GET /healthz": [], "POST takes (1 take)": [], "POST scan": []}
    with ft.ThrowawayPostgres(args.pg_url) as url:
        ft.migrate(url)
        server = cer.Server(url, args.workers)
        try:
            wait_ready(server, args.workers)
            base = f"http://127.0.0.1:{server.port}"
            event_id, participants, codes = ft.setup_event(base, args.clients, 1)
            feed = ft.feed_requests(event_id, participants, codes)
            scans = scan_requests(participants, codes)
            offset = 0
            for _ in range(args.rounds):  # in turn: a change of load falls on all alike
                health = measure(server, args.clients, args.requests, ft.health_requests, 60)
                rows["GET /healthz"].append(health)
                step = max(2, args.requests // args.clients)

                def take(index: int, n: int, offset: int = offset):
                    return feed(index, n + offset)

                rows["POST takes (1 take)"].append(
                    measure(server, args.clients, args.requests, take, args.time_limit)
                )
                offset += step
                rows["POST scan"].append(
                    measure(server, args.clients, args.requests, scans, args.time_limit)
                )
                scans = scan_requests(participants, codes, offset)
            errors = server.error_lines()
        finally:
            server.stop()
    report(rows, args.workers, args.clients)
    if errors:
        print("server errors:", *errors[:10], sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
