"""One change, many streams: a bid's latency and the close's reach with 20 and 2,000 phones.

An event of `--participants` (2,000) participants, each holding one saved combination, on
PostgreSQL behind `--workers` (2) uvicorn workers (`benchmarks/ceremony.py` builds it and
provides the raw clients). Two phases in one run, each on its own auction:

1. 20 phones hold the live stream open (`GET /api/v1/events/{id}/live?counts=false`, as the
   phone page), `--bids` participants bid over `--bid-window` seconds (participant token,
   open loop; p50/p99 of the answers), the organiser closes and reveals everything; the
   time from the close's answer until the last phone has the close ("being revealed",
   RULES.md I-21) and until it has the result (every bid revealed) in its stream. The
   phones read raw chunks and look for the two stages (`lean_stream`): on one shared
   machine a client that decodes every line would measure its own parsing;
2. the same with every participant's phone (2,000 streams).

Targets (issue 24): the bid p50 with 2,000 streams ≤ 2x its p50 with 20 (the baseline of
the same run); the close reaches the last of the 2,000 phones within 1 s (the result is
printed too: it follows the organiser's reveal).

    python benchmarks/fanout.py                    # 20 and 2,000 streams
    python benchmarks/fanout.py --participants 500 --bids 50

PostgreSQL at 127.0.0.1:5432 (user postgres, trust; `--pg-url`); the benchmark drops and
recreates the database `--database` (default rogaine_fanout_bench). Client and server
share the machine's CPUs. Needs ~2 file descriptors per phone (the soft `ulimit -n` is
raised to the hard limit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import time

import ceremony as cer
from _machine import machine


async def lean_stream(
    port: int, path: str, cookie: str, connected: asyncio.Event, state: dict, place: int
) -> None:
    """One phone on the live stream, reading raw chunks (a phone is its own device: the
    client's parsing should not be what is measured on one shared machine). Notes when the
    close of `place` (its stage `closed:…`, "being revealed") and its result (the stage
    after the whole reveal, `"revealing":false`) have arrived."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**24)
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\r\n"
    writer.write(request.encode())
    head = f'{{"place":{place},"status":"closed"'.encode()
    seen, tail, closed = False, b"", False
    try:
        while True:
            chunk = await reader.read(1 << 16)
            if not chunk:
                return
            text = tail + chunk
            if not seen and b"event: hello" in text:
                seen = True
                state["hello"] += 1
                if state["hello"] >= state["phones"]:
                    connected.set()
            start = text.find(head)
            while start >= 0:
                if not closed:
                    closed = True
                    state["close_at"].append(time.monotonic())
                if b'"revealing":false' in text[start : start + 300]:
                    state["result_at"].append(time.monotonic())
                    return
                start = text.find(head, start + 1)
            tail = text[-400:]
    finally:
        writer.close()


async def bids(port: int, event_id: int, place: int, bidders, window: float) -> dict:
    """`ceremony.bids`, but an answer other than 201 is counted, not fatal (a shared
    PostgreSQL may run out of connection slots): latencies of the stored bids and the
    other answers' statuses."""
    latencies: list[float] = []
    refused: list[int] = []

    async def one(token: str, combination: int) -> None:
        await asyncio.sleep(random.uniform(0, window))
        client = cer.Http(port)
        body = json.dumps({"combination_id": combination}).encode()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        path = f"/api/v1/events/{event_id}/auctions/{place}/bids"
        start = time.monotonic()
        try:
            status, _, _ = await asyncio.wait_for(
                client.request("POST", path, headers, body), cer.BID_TIMEOUT
            )
        except TimeoutError:
            status = 0
        finally:
            client.close()
        if status == 201:
            latencies.append(time.monotonic() - start)
        else:
            refused.append(status)

    await asyncio.gather(*(one(token, combination) for _, token, combination in bidders))
    return {"latencies": latencies, "refused": refused}


async def phase(
    server: cer.Server, event_id: int, place: int, cookies: list[str], bidders, args
) -> dict:
    """`len(cookies)` phones on the stream while `bidders` bid in auction `place`; then the
    close and the reveal of everything. Returns the figures."""
    port = server.port
    await cer.organiser(port, "POST", f"/api/v1/events/{event_id}/auctions/{place}/open")
    state = {"hello": 0, "phones": len(cookies), "close_at": [], "result_at": []}
    connected = asyncio.Event()
    path = f"/api/v1/events/{event_id}/live?since=0&counts=false"
    tasks = []
    for cookie in cookies:
        task = lean_stream(port, path, cookie, connected, state, place)
        tasks.append(asyncio.create_task(task))
        if len(tasks) % 200 == 0:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(connected.wait(), 180)
    await asyncio.sleep(2)
    answered = await bids(port, event_id, place, bidders, args.bid_window)
    latencies = answered["latencies"]
    await asyncio.sleep(1)
    close = f"/api/v1/events/{event_id}/auctions/{place}/close"
    _, _, sent, done = await cer.organiser(port, "POST", close)
    reveal = f"/api/v1/events/{event_id}/auctions/{place}/reveal"
    await cer.organiser(port, "POST", reveal, body=b'{"all": true}')
    await asyncio.wait(tasks, timeout=cer.RESULT_WAIT)
    got, closes = state["result_at"], state["close_at"]
    for task in tasks:
        task.cancel()
    return {
        "streams": len(cookies),
        "bids": len(latencies),
        "bid_p50_ms": 1000 * cer.pct(latencies, 0.5),
        "bid_p99_ms": 1000 * cer.pct(latencies, 0.99),
        "not_stored": len(answered["refused"]),
        "not_stored_statuses": sorted(set(answered["refused"])),
        "close_ms": 1000 * (done - sent),
        "phones_with_result": len(got),
        "last_close_s": (max(closes) - done) if closes else float("nan"),
        "last_phone_s": (max(got) - done) if got else float("nan"),
        "median_phone_s": (statistics.median(got) - done) if got else float("nan"),
    }


async def run(args, event_id: int, people) -> list[dict]:
    server = cer.Server(args.url, args.workers)
    try:
        for _ in range(300):
            try:
                client = cer.Http(server.port)
                status, _, _ = await client.request("GET", "/healthz")
                client.close()
                if status == 200:
                    break
            except OSError:
                await asyncio.sleep(0.2)
        await asyncio.sleep(0.5 * args.workers)
        cookies = await cer.sign_in(server.port, people)
        few = phase(server, event_id, 3, cookies[: args.few], people[: args.bids], args)
        first = await few
        print("20 streams:", first, flush=True)
        bidders = people[args.bids : 2 * args.bids]  # place 3's winner may not bid again
        second = await phase(server, event_id, 2, cookies, bidders, args)
        errors = server.error_lines()[:12]
    finally:
        server.stop()
    return [first, second, {"server_errors": errors}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--participants", type=int, default=2000)
    parser.add_argument("--few", type=int, default=20, help="streams of the baseline phase")
    parser.add_argument("--bids", type=int, default=200, help="bids per phase")
    parser.add_argument("--bid-window", type=float, default=20.0, help="seconds the bids span")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="rogaine_fanout_bench")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    args.url = cer.recreate_database(args.pg_url, args.database)
    started = time.perf_counter()
    event_id, people = cer.build_event(args.url, args.participants, args.seed)
    took = time.perf_counter() - started
    print(f"event {event_id}: {args.participants} participants ({took:.1f} s)")
    few, many, extra = asyncio.run(run(args, event_id, people))
    load = os.getloadavg()[0]
    print(
        f"\n{args.workers} workers, PostgreSQL; {args.bids} bids per phase over "
        f"{args.bid_window:.0f} s; load {load:.1f}"
    )
    print(f"{'':40}{few['streams']:>10}{many['streams']:>10}   ratio")
    for key, label in [
        ("bid_p50_ms", "bid p50 (ms; target ratio <= 2)"),
        ("bid_p99_ms", "bid p99 (ms)"),
        ("close_ms", "close request (ms)"),
        ("last_close_s", "close -> last phone has the close (s; 1)"),
        ("median_phone_s", "close -> median phone has the result (s)"),
        ("last_phone_s", "close -> last phone has the result (s)"),
    ]:
        ratio = many[key] / few[key] if few[key] else float("nan")
        print(f"{label:40}{few[key]:10.2f}{many[key]:10.2f}{ratio:8.2f}")
    print(f"{'bids not stored (statuses)':40}{few['not_stored']:10}{many['not_stored']:10}"
          f"   {few['not_stored_statuses']} {many['not_stored_statuses']}")  # fmt: skip
    for key in ("phones_with_result",):
        print(f"{key:40}{few[key]:10}{many[key]:10}")
    if extra["server_errors"]:
        print("server errors:", *extra["server_errors"], sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
