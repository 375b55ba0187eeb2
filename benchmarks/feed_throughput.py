"""Feed throughput and latency through real uvicorn processes, with a same-run baseline.

For each backend (SQLite file, throwaway PostgreSQL database) and each number of
uvicorn workers (1, 2), at 50 and 200 concurrent clients on loopback, measures:
- the trivial endpoint `GET /healthz` of the same app (the baseline), then
- the field feed `POST /api/v1/events/{id}/takes`, each client a field device
  sending its participant's takes one at a time (5 card takes, then a save code,
  repeated), every take with a later field time than the previous one.
Then the same devices paced at half the measured capacity, and at a fixed total
rate (`--rate`, 100 takes/s by default: a 2,000-participant event's busiest
minutes are well below that). Prints requests per second, p50 and p99 latency,
errors, and the ratio of the feed's throughput to the baseline's. Targets (issue
10): PostgreSQL with 2 workers >= 30 % of the baseline, p99 < 100 ms at 200
clients, no errors. A closed loop of 200 clients keeps 200 requests in flight, so
its latency is 200 / throughput whatever the endpoint (even /healthz's p99 is
above 100 ms there): the p99 target is read at the paced loads.

    python benchmarks/feed_throughput.py            # the default run (a few minutes)
    python benchmarks/feed_throughput.py --quick    # fewer requests
    python benchmarks/feed_throughput.py --backends sqlite --workers 1 --clients 50

PostgreSQL: 127.0.0.1:5432, user postgres (trust), override with --pg-url; the
benchmark creates a database `rogaine_bench_<pid>` and drops it at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.simulation.course import build_course  # noqa: E402

TOKEN = "benchmark-organiser-token-0123456789"
KEEP_ALIVE = 4.0  # seconds a client reuses an idle connection (uvicorn's default is 5)
API = "/api/v1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def migrate(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url}
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


class Server:
    """`uvicorn app.main:app` in a subprocess on a free loopback port."""

    def __init__(self, database_url: str, workers: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed in stop()
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "ADMIN_TOKEN": TOKEN,
            "LOG_LEVEL": "WARNING",
            "ENVIRONMENT": "development",
        }
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    time.sleep(0.5 * workers)  # let every worker finish starting
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("uvicorn did not start")

    def error_lines(self) -> int:
        """Lines of the server log that report an error (tracebacks are not printed)."""
        self.log.flush()
        self.log.seek(0)
        return sum(1 for line in self.log if " ERROR " in line)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


def setup_event(
    url: str, participants: int, seed: int, client: httpx.Client | None = None
) -> tuple[int, list[dict], list[str]]:
    """An event of the seed course with `participants` participants (through the API, at
    `url` or with `client`, e.g. an in-process TestClient sending the organiser token)."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if client is None:
        with httpx.Client(base_url=url, headers=headers, timeout=60) as own:
            return setup_event(url, participants, seed, own)
    now = datetime.now(UTC)
    course = build_course(random.Random(seed))
    body = {
        "name": f"Benchmark {seed}",
        "opens_at": (now - timedelta(hours=2)).isoformat(),
        "closes_at": (now + timedelta(hours=16)).isoformat(),
        "timezone": "Europe/Moscow",
        "hand_ranking": "seed",
        "save_codes_per_participant": 10,
    }
    event = client.post(f"{API}/events", json=body)
    event.raise_for_status()
    event_id = event.json()["id"]
    deck = [
        {
            "number": cp.number,
            "card": cp.card,
            "lat": cp.lat,
            "lon": cp.lon,
            "hint": cp.hint,
            "code": cp.code,
            "discard_code": cp.discard_code,
        }
        for cp in course
    ]
    client.put(f"{API}/events/{event_id}/checkpoints", json={"checkpoints": deck})
    client.post(f"{API}/events/{event_id}/status", json={"status": "course_open"})
    created = []
    for index in range(participants):
        response = client.post(
            f"{API}/events/{event_id}/participants",
            json={"name": f"Bench {index}", "external_id": f"b{seed}-{index}"},
        )
        response.raise_for_status()
        created.append(response.json())
    codes = [cp.code for cp in course]
    random.Random(seed).shuffle(codes)
    return event_id, created, codes


class Connection:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams (one per simulated device).

    Far lighter than a general-purpose client, so that on a small machine most
    of the CPU goes to the server being measured, not to the load generator.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.last_used = 0.0

    async def request(self, method: str, path: str, body: bytes, headers: str) -> tuple[int, bytes]:
        if self.writer is not None and time.perf_counter() - self.last_used > KEEP_ALIVE:
            self.close()  # uvicorn closes idle connections after 5 s: open a new one
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
            f"{headers}\r\n"
        )
        self.writer.write(head.encode() + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        length = 0
        for line in lines[1:]:
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        payload = await self.reader.readexactly(length)
        self.last_used = time.perf_counter()
        return int(lines[0].split()[1]), payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def load(
    port: int,
    clients: int,
    requests_per_client: int,
    make_request,
    time_limit: float,
    interval: float = 0.0,
) -> dict[str, float]:
    """`clients` devices, each sending its requests one after another.

    `interval` 0: closed loop (the next request as soon as the answer arrives:
    the capacity). `interval` > 0: each device sends one request every
    `interval` seconds (an offered load below capacity: the latency devices see).
    """
    latencies: list[float] = []
    errors = 0
    first_error: list[str] = []
    started = time.perf_counter()
    stop_at = started + time_limit

    async def device(index: int) -> None:
        nonlocal errors
        connection = Connection(port)
        if interval:
            await asyncio.sleep(interval * index / clients)  # spread the devices out
        try:
            for n in range(requests_per_client):
                begin = time.perf_counter()
                if begin > stop_at:
                    return
                method, path, body, headers = make_request(index, n)
                try:
                    status, payload = await asyncio.wait_for(
                        connection.request(method, path, body, headers), 30
                    )
                    ok = status == 200 and b'"status":"error"' not in payload
                except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                    ok = False
                    connection.close()
                latencies.append(time.perf_counter() - begin)
                errors += not ok
                if interval and n < requests_per_client - 1:  # no idle tail after the last
                    await asyncio.sleep(max(0.0, interval - (time.perf_counter() - begin)))
        finally:
            connection.close()

    await asyncio.gather(*(device(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50": percentile(latencies, 0.50) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "errors": errors,
        "first_error": first_error[0] if first_error else "",
    }


def feed_requests(event_id: int, participants: list[dict], codes: list[str], offset: int = 0):
    """Request factory: device i sends 5 card takes then a save code, over and over.

    `offset` continues each device's sequence (source ids, field times, codes)
    after an earlier measurement with the same participants.
    """
    headers = f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
    base = datetime.now(UTC) - timedelta(hours=1)
    path = f"{API}/events/{event_id}/takes"

    def make(index: int, n: int):
        n += offset
        participant = participants[index]
        cycle, position = divmod(n, 6)
        if position < 5:
            code = codes[(index * 7 + cycle * 5 + position) % len(codes)]
        else:
            code = participant["save_codes"][cycle % len(participant["save_codes"])]
        take = {
            "participant": participant["external_id"],
            "code": code,
            "taken_at": (base + timedelta(seconds=n)).isoformat(),
            "source": f"bench-{participant['external_id']}",
            "source_id": str(n),
        }
        return "POST", path, json.dumps({"takes": [take]}).encode(), headers

    return make


def health_requests(index: int, n: int):
    return "GET", "/healthz", b"", ""


def paced_load(
    port: int, clients: int, rate: float, most: int, limit: float, make_request
) -> tuple[dict[str, float], int]:
    """`clients` devices sending `rate` requests/s in all (at most `most` each, for at
    most `limit` s); (the figures, requests sent per device)."""
    interval = clients / max(rate, 0.1)
    count = max(2, min(most, int(limit / interval)))
    return asyncio.run(load(port, clients, count, make_request, limit, interval=interval)), count


def run_backend(name: str, database_url: str, args: argparse.Namespace, rows: list[dict]) -> None:
    migrate(database_url)
    seed = 0
    for workers in args.workers:
        server = Server(database_url, workers)
        try:
            for clients in args.clients:
                seed += 1
                event_id, participants, codes = setup_event(server.url, clients, seed)
                per_client = max(
                    2, (args.requests or (10 if args.quick else 40) * clients) // clients
                )
                limit = args.time_limit
                base = asyncio.run(load(server.port, clients, per_client, health_requests, limit))
                feed = asyncio.run(
                    load(
                        server.port,
                        clients,
                        per_client,
                        feed_requests(event_id, participants, codes),
                        limit,
                    )
                )
                row = {"backend": name, "workers": workers, "clients": clients}
                rows.append({**row, "endpoint": "GET /healthz", **base})
                rows.append(
                    {**row, "endpoint": "POST takes", **feed, "ratio": feed["rps"] / base["rps"]}
                )
                print_row(rows[-2])
                print_row(rows[-1])
                # The same devices, each at one take every `interval` seconds: half the capacity.
                half, sent = paced_load(
                    server.port,
                    clients,
                    0.5 * feed["rps"],
                    per_client // 2,
                    limit,
                    feed_requests(event_id, participants, codes, offset=per_client),
                )
                rows.append({**row, "endpoint": "takes@50%", **half})
                print_row(rows[-1])
                # The same devices at a fixed total rate (`--rate` takes/s): the latency
                # of a big event's busiest minutes, whatever this machine's capacity.
                fixed, _ = paced_load(
                    server.port,
                    clients,
                    args.rate,
                    per_client // 2,
                    limit,
                    feed_requests(event_id, participants, codes, offset=per_client + sent),
                )
                rows.append({**row, "endpoint": f"takes@{args.rate:g}/s", **fixed})
                print_row(rows[-1])
                if server.error_lines():
                    print(f"  server log: {server.error_lines()} ERROR lines so far", flush=True)
        finally:
            server.stop()


def print_row(row: dict) -> None:
    ratio = f"{100 * row['ratio']:5.1f}% of base" if "ratio" in row else ""
    if row["endpoint"] == "GET /healthz":
        ratio = "baseline"
    print(
        f"{row['backend']:<10} {row['workers']:>2}w {row['clients']:>4}c  {row['endpoint']:<13}"
        f" {row['requests']:>6} req {row['rps']:>8.1f} req/s  p50 {row['p50']:>7.1f} ms"
        f"  p99 {row['p99']:>7.1f} ms  errors {row['errors']:>3}  {ratio}",
        flush=True,
    )
    if row.get("first_error"):
        print(f"  first error: {row['first_error']}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer requests per client")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--clients", default="50,200")
    parser.add_argument("--requests", type=int, default=0, help="total requests per measurement")
    parser.add_argument(
        "--rate", type=float, default=100.0, help="takes/s of the fixed-rate measurement"
    )
    parser.add_argument("--time-limit", type=float, default=40.0, help="seconds per measurement")
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    args.workers = [int(w) for w in args.workers.split(",")]
    args.clients = [int(c) for c in args.clients.split(",")]
    print(f"machine: {machine()}")
    print("ratio = feed throughput / /healthz throughput in the same server run")
    rows: list[dict] = []
    for backend in args.backends.split(","):
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                run_backend("sqlite", f"sqlite:///{tmp}/bench.db", args, rows)
        elif backend == "postgresql":
            with ThrowawayPostgres(args.pg_url) as url:
                run_backend("postgresql", url, args, rows)
    return 0


class ThrowawayPostgres:
    """CREATE DATABASE rogaine_bench_<pid> on enter, DROP it on exit."""

    def __init__(self, admin_url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url

        self.name = f"rogaine_bench_{os.getpid()}"
        self.admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.url = make_url(admin_url).set(database=self.name).render_as_string(hide_password=False)

    def __enter__(self) -> str:
        from sqlalchemy import text

        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{self.name}"'))
            connection.execute(text(f'CREATE DATABASE "{self.name}"'))
        return self.url

    def __exit__(self, *exc) -> None:
        from sqlalchemy import text

        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
        self.admin.dispose()


if __name__ == "__main__":
    raise SystemExit(main())
