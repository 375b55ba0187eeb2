"""Production rehearsal (issue 27): a 2,000-participant event through Caddy (HTTPS, `tls
internal`) in front of two app hosts on one PostgreSQL, with `kill -9` of one host in the
middle of the event and again in the middle of the ceremony, then its restart.

The topology is `deploy/rehearsal.py` (Debian's /usr/bin/caddy, two `uvicorn` processes).
Everything the clients do goes through the proxy over HTTPS (certificate verified against
Caddy's root):

1. baseline and capacity, before any kill: `GET /healthz` (`--clients` concurrent clients
   for `--window` s) and the field feed `POST /api/v1/events/{id}/takes` (field devices
   sending batches of `--batch` takes) for the same window: takes/s against /healthz req/s;
2. the event: field devices deliver every participant's takes in batches, phones sign in
   with their personal link and sync their queues (`POST /me/offline/sync`, their
   cookie); host 0 is killed with SIGKILL while they run, and restarted. A client retries
   a request that failed (502, connection reset, 5xx) with the same batch, as field apps
   and phones do; a take is *acknowledged* when a 200 answer lists it accepted or as a
   duplicate delivery. Stored takes are counted in PostgreSQL: every acknowledged take
   must be stored, once (duplicates: rows beyond one per source id);
3. the ceremony: the course is closed, `--participants` live streams
   (`GET …/live?counts=false`) are opened through the proxy; the organiser opens the
   auction for 3rd place, host 1 is killed, the organiser opens the 2nd-place auction
   and closes the 3rd (on the surviving host); the streams of the dead host reconnect
   after their `retry:` delay with `Last-Event-ID`, as EventSource does; host 1 is
   restarted and the 1st-place auction opened. Each stream must end at the database's
   live version with the auctions' statuses as the API reports them.

Prints takes acknowledged vs stored, duplicates, streams reconnected, reconnect time
(stream end -> `hello` on the other host: median, max), feed takes/s vs /healthz req/s
through the proxy, and the same figures as one JSON object on the last line.

    python benchmarks/rehearsal.py --quick    # 200 participants (a few minutes)
    python benchmarks/rehearsal.py            # 2,000 participants, 2,000 streams

PostgreSQL at 127.0.0.1:5432 (user postgres, trust; `--pg-url`); the database
`--database` is dropped and recreated. Caddy: /usr/bin/caddy (`apt-get install caddy`,
which the script runs when it is missing and it is root). Client, proxy and hosts share
the machine's CPUs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from _machine import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, insert, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from deploy.rehearsal import Rehearsal  # noqa: E402

API = "/api/v1"
RETRY_PAUSE = 0.5  # seconds between a client's retries of a failed request
DEADLINE = 180.0  # seconds any awaited condition may take before the run reports it missed
ACKED = ("accepted", "duplicate_delivery")
PARTICIPANT_COOKIE = "rp_participant"  # app.web.sessions
STARTED = time.monotonic()


def ensure_caddy() -> None:
    """Find /usr/bin/caddy; install Debian's package when missing (as root)."""
    if shutil.which("caddy"):
        return
    if os.geteuid() != 0:
        sys.exit("caddy is missing: apt-get install caddy")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "caddy"], check=True)


def recreate_database(pg_url: str, name: str) -> str:
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(pg_url).set(database=name).render_as_string(hide_password=False)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# ----------------------------------------------------------------------------- setup


def build_event(rehearsal: Rehearsal, participants: int, seed: int) -> tuple[int, list, list]:
    """An open event of the seed course (through the proxy) and `participants` people
    inserted in bulk. Returns the event id, [(external id, token)], the CP codes."""
    from feed_throughput import setup_event

    from app.core.security import hash_token
    from app.events.models import Participant

    with rehearsal.client(headers={"Authorization": f"Bearer {rehearsal.admin_token}"}) as api:
        event_id, _created, codes = setup_event(rehearsal.url, 0, seed, api)
    rng = random.Random(seed)
    people = [(f"r{i}", f"rehearsal-{i}-{rng.getrandbits(96):024x}") for i in range(participants)]
    engine = create_engine(rehearsal.database_url)
    now = datetime.now(UTC)
    with engine.begin() as connection:
        connection.execute(
            insert(Participant),
            [
                {
                    "event_id": event_id,
                    "external_id": ext,
                    "name": f"Участник {ext}",
                    "access_token_hash": hash_token(token),
                    "created_at": now,
                }
                for ext, token in people
            ],
        )
    engine.dispose()
    return event_id, people, codes


# ------------------------------------------------------------------------ the clients


@dataclass
class Tally:
    """What the clients saw."""

    sent: set[str] = field(default_factory=set)  # source ids sent
    killed_at: float | None = None  # monotonic time of the kill
    sessions_across_kill: int = 0  # phones signed in before the kill, synced after it
    acked: set[str] = field(default_factory=set)  # source ids acknowledged
    requests: int = 0
    retries: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # why a request was retried
    rejected: dict[str, int] = field(default_factory=dict)  # 4xx answers (not retried)

    def note(self, kind: str, into: dict[str, int]) -> None:
        into[kind] = into.get(kind, 0) + 1


async def deliver(
    client: httpx.AsyncClient, path: str, body: dict, tally: Tally, **kwargs
) -> dict | None:
    """POST `body` until a 2xx (then its JSON) or a 4xx (None); retries anything else."""
    tally.sent.update(take["source_id"] for take in body["takes"])
    while True:
        tally.requests += 1
        try:
            response = await client.post(path, json=body, **kwargs)
        except httpx.HTTPError as exc:
            tally.note(type(exc).__name__, tally.failures)
        else:
            if response.is_success:
                results = response.json()["results"]
                tally.acked.update(r["source_id"] for r in results if r["status"] in ACKED)
                return response.json()
            if response.status_code < 500 and response.status_code != 429:
                tally.note(str(response.status_code), tally.rejected)
                return None
            tally.note(str(response.status_code), tally.failures)
        tally.retries += 1
        await asyncio.sleep(RETRY_PAUSE)


def field_takes(people: list, codes: list[str], per_person: int, start: datetime) -> list[dict]:
    """Every participant's `per_person` takes (codes in a per-person order), field times
    a minute apart from `start`, each with a unique source id."""
    takes = []
    for index, (ext, _token) in enumerate(people):
        for k in range(per_person):
            takes.append(
                {
                    "participant": ext,
                    "code": codes[(index * 7 + k) % len(codes)],
                    "taken_at": (start + timedelta(minutes=k)).isoformat(),
                    "source": f"field-{index % 20}",
                    "source_id": f"field-{ext}-{k}",
                }
            )
    return takes


async def field_device(
    client: httpx.AsyncClient, event_id: int, batches: list[list[dict]], tally: Tally, admin
) -> None:
    for batch in batches:
        await deliver(client, f"{API}/events/{event_id}/takes", {"takes": batch}, tally, **admin)


async def phone(
    client: httpx.AsyncClient, person: tuple, codes: list[str], rounds: int, tally: Tally
) -> None:
    """Sign in with the personal link (cookie), then sync `rounds` queues of 2 takes."""
    index, (ext, token) = person
    cookie = None
    while cookie is None:
        try:
            response = await client.get(f"/p/{token}", follow_redirects=False)
            cookie = response.cookies.get(PARTICIPANT_COOKIE)
            if cookie is None:
                tally.note(f"sign-in {response.status_code}", tally.failures)
        except httpx.HTTPError as exc:
            tally.note(type(exc).__name__, tally.failures)
        if cookie is None:
            await asyncio.sleep(RETRY_PAUSE)
    signed_in_at = time.monotonic()
    headers = {
        "Cookie": f"{PARTICIPANT_COOKIE}={cookie}",
        "Origin": str(client.base_url).rstrip("/"),
    }
    now = datetime.now(UTC)
    for r in range(rounds):
        takes = [
            {
                "code": codes[(index * 5 + 2 * r + k) % len(codes)],
                "taken_at": (now - timedelta(minutes=30 - 2 * r - k)).isoformat(),
                "source_id": f"phone-{ext}-{r}-{k}",
            }
            for k in range(2)
        ]
        source = f"phone-{ext.replace('r', 'p'):0>8}"
        body = {"source": source, "takes": takes, "sent_at": datetime.now(UTC).isoformat()}
        answered = await deliver(client, "/me/offline/sync", body, tally, headers=headers)
        killed = tally.killed_at
        if answered and r == rounds - 1 and killed is not None and signed_in_at < killed:
            tally.sessions_across_kill += 1


class Organiser:
    """The organiser's browser: signed in once through the form (cookie session); its
    dashboard is asked for after each kill, through the proxy (whichever host answers)."""

    def __init__(self, rehearsal: Rehearsal) -> None:
        self.client = rehearsal.client(follow_redirects=False)
        page = self.client.get("/admin/login")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf is not None, "no csrf_token on /admin/login"
        form = {"token": rehearsal.admin_token, "csrf_token": csrf.group(1), "next": "/admin"}
        signed_in = self.client.post("/admin/login", data=form)
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/admin"
        self.checks: list[int] = []

    def check(self) -> None:
        """GET /admin with the session cookie: 200 while the session lives (else 303)."""
        for _ in range(int(DEADLINE / RETRY_PAUSE)):
            try:
                status = self.client.get("/admin").status_code
            except httpx.HTTPError:
                status = 0
            if status and status < 500:
                self.checks.append(status)
                return
            time.sleep(RETRY_PAUSE)


# ---------------------------------------------------------------------- measurements


def https_client(rehearsal: Rehearsal, **kwargs) -> httpx.AsyncClient:
    """A client of the proxy over HTTPS with its own connection pool: one per simulated
    device (httpx's pool shared by dozens of concurrent tasks serves them at a few
    requests per second, whatever the server)."""
    kwargs.setdefault("timeout", 60)
    return httpx.AsyncClient(base_url=rehearsal.url, verify=rehearsal.ssl_context(), **kwargs)


async def closed_loop(rehearsal: Rehearsal, clients: int, seconds: float, call) -> float:
    """`clients` loops (each its own connection) calling `call(client)` for `seconds`,
    counted from when every client has made its TLS handshake; units done per second."""
    done = 0
    ready = 0
    go = asyncio.Event()
    window: dict[str, float] = {}

    async def loop() -> None:
        nonlocal done, ready
        async with https_client(rehearsal) as client:
            await call(client)  # the TLS handshake, before the clock
            ready += 1
            if ready == clients:
                window["start"] = time.monotonic()
                window["end"] = window["start"] + seconds
                go.set()
            await go.wait()
            while time.monotonic() < window["end"]:
                units = await call(client)  # (`done += await …` would read `done` first)
                done += units

    await asyncio.gather(*(loop() for _ in range(clients)))
    return done / (time.monotonic() - window["start"])


async def capacity(args, rehearsal: Rehearsal, event_id: int, people, codes) -> dict:
    """/healthz req/s and feed takes/s through the proxy, before any kill."""
    admin = {"headers": {"Authorization": f"Bearer {rehearsal.admin_token}"}}
    counter = iter(range(10**9))
    start = datetime.now(UTC) - timedelta(hours=1, minutes=50)

    async def health(c: httpx.AsyncClient) -> int:
        return int((await c.get("/healthz")).status_code == 200)

    async def feed(c: httpx.AsyncClient) -> int:
        n = next(counter)
        batch = [
            {
                "participant": people[(n * args.batch + k) % len(people)][0],
                "code": codes[(n + k) % len(codes)],
                "taken_at": (start + timedelta(seconds=n)).isoformat(),
                "source": "capacity",
                "source_id": f"capacity-{n}-{k}",
            }
            for k in range(args.batch)
        ]
        path = f"{API}/events/{event_id}/takes"
        response = await c.post(path, json={"takes": batch}, **admin)
        return sum(r["status"] == "accepted" for r in response.json()["results"])

    await closed_loop(rehearsal, args.clients, 2, health)  # warm-up
    healthz = await closed_loop(rehearsal, args.clients, args.window, health)
    takes = await closed_loop(rehearsal, args.clients, args.window, feed)
    return {"healthz_rps": healthz, "feed_takes_per_s": takes}


async def event_phase(
    args, rehearsal: Rehearsal, event_id: int, people, codes, organiser: Organiser
) -> dict:
    """Field devices and phones through the proxy; host 0 killed and restarted meanwhile."""
    admin = {"headers": {"Authorization": f"Bearer {rehearsal.admin_token}"}}
    takes = field_takes(people, codes, args.takes, datetime.now(UTC) - timedelta(hours=1))
    devices = 20
    per_device: list[list[dict]] = [[] for _ in range(devices)]
    for take in takes:
        per_device[int(take["source"].split("-")[1])].append(take)
    field_tally, phone_tally = Tally(), Tally()

    async def one_device(queue: list[dict]) -> None:
        batches = [queue[i : i + args.batch] for i in range(0, len(queue), args.batch)]
        async with https_client(rehearsal) as client:
            await field_device(client, event_id, batches, field_tally, admin)

    gate = asyncio.Semaphore(args.clients)

    async def one_phone(person) -> None:
        async with gate, https_client(rehearsal) as client:
            await phone(client, person, codes, 3, phone_tally)

    work = [one_device(queue) for queue in per_device]
    work += [one_phone(person) for person in enumerate(people)]
    running = asyncio.gather(*work)
    total = len(takes) + 6 * len(people)
    await wait_until(lambda: len(field_tally.acked) + len(phone_tally.acked) >= total // 3)
    killed_at = phone_tally.killed_at = time.monotonic()
    rehearsal.kill(0)
    print(f"  kill -9 host 0 after {len(field_tally.acked) + len(phone_tally.acked)} takes")
    await asyncio.sleep(args.down)
    await asyncio.to_thread(rehearsal.start_host, 0)
    print(f"  host 0 back after {time.monotonic() - killed_at:.1f} s")
    await asyncio.wait_for(running, DEADLINE * 5)
    await asyncio.to_thread(organiser.check)
    return {"field": field_tally, "phones": phone_tally}


async def wait_until(condition, deadline: float = DEADLINE) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return True
        await asyncio.sleep(0.1)
    return False


def takes_in_database(url: str, event_id: int) -> tuple[int, set[str]]:
    """(rows, distinct source ids) of the event's takes."""
    from app.feed.models import Take

    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.scalar(
            select(func.count()).select_from(Take).where(Take.event_id == event_id)
        )
        ids = set(connection.scalars(select(Take.source_id).where(Take.event_id == event_id)))
    engine.dispose()
    return rows or 0, ids


# ------------------------------------------------------------------------ the ceremony


@dataclass
class Watcher:
    """One phone's EventSource: reconnects after `retry:` with Last-Event-ID."""

    last_id: str | None = None
    retry_ms: int = 3000
    auctions: dict[int, str] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    ends: int = 0
    reconnects: list[float] = field(default_factory=list)  # seconds: end -> next hello
    hello: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, rehearsal: Rehearsal, path: str, stop: asyncio.Event) -> None:
        async with https_client(rehearsal, timeout=httpx.Timeout(60, read=60)) as client:
            await self.follow(client, path, stop)

    async def follow(self, client: httpx.AsyncClient, path: str, stop: asyncio.Event) -> None:
        ended_at: float | None = None
        while not stop.is_set():
            headers = {"Accept": "text/event-stream"}
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            try:
                async with client.stream("GET", path, headers=headers) as response:
                    if response.status_code != 200:
                        raise httpx.HTTPStatusError("", request=response.request, response=response)
                    self.hosts.append(response.headers.get("x-served-by", "?"))
                    ended_at = await self.read(response, ended_at, stop)
            except (TimeoutError, httpx.HTTPError):
                pass
            if stop.is_set():
                return
            self.ends += 1
            ended_at = ended_at or time.monotonic()
            await asyncio.sleep(self.retry_ms / 1000)

    async def read(self, response, ended_at, stop) -> float | None:
        event, ident, data = "message", None, []
        async for line in response.aiter_lines():
            if stop.is_set():
                return None
            if line.startswith("retry:"):
                self.retry_ms = int(line[6:].strip())
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("id:"):
                ident = line[3:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line == "" and data:
                self.receive(event, ident, json.loads("\n".join(data)))
                if event == "hello" and ended_at is not None:
                    self.reconnects.append(time.monotonic() - ended_at)
                    ended_at = None
                event, ident, data = "message", None, []
        return time.monotonic()

    def receive(self, event: str, ident: str | None, data: dict) -> None:
        if event == "hello":
            self.hello.set()
        if event == "auction":
            self.auctions[data["place"]] = data["status"]
        if ident is not None:
            self.last_id = ident


async def ceremony_phase(
    args, rehearsal: Rehearsal, event_id: int, streams: int, browser: Organiser
) -> dict:
    admin = {"Authorization": f"Bearer {rehearsal.admin_token}"}
    async with httpx.AsyncClient(
        base_url=f"{rehearsal.url}{API}/events/{event_id}",
        verify=rehearsal.ssl_context(),
        headers=admin,
        timeout=60,
    ) as organiser:
        actions = {}

        async def act(name: str, path: str) -> None:
            for _ in range(int(DEADLINE / RETRY_PAUSE)):
                try:
                    response = await organiser.post(path)
                    if response.status_code < 500:
                        actions[name] = response.status_code
                        return
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(RETRY_PAUSE)

        await act("close course", "/course/close")
        stop = asyncio.Event()
        watchers = [Watcher() for _ in range(streams)]
        path = f"{API}/events/{event_id}/live?counts=false"
        tasks = []
        for watcher in watchers:
            tasks.append(asyncio.create_task(watcher.run(rehearsal, path, stop)))
            await asyncio.sleep(0.002)  # staggered: phones do not all open at once
        opened = await wait_until(lambda: all(w.hello.is_set() for w in watchers))
        print(f"  {sum(w.hello.is_set() for w in watchers)} streams open (all: {opened})")
        await act("open 3", "/auctions/3/open")
        await wait_until(lambda: all(w.auctions.get(3) == "open" for w in watchers))
        on_dead = sum(w.hosts[-1] == rehearsal.app_hosts[1].address for w in watchers if w.hosts)
        rehearsal.kill(1)
        print(f"  kill -9 host 1, serving {on_dead} of the streams")
        await act("close 3", "/auctions/3/close")  # on the surviving host
        await act("reveal 3", "/auctions/3/reveal")
        await asyncio.sleep(args.down)
        await asyncio.to_thread(rehearsal.start_host, 1)
        await act("open 2", "/auctions/2/open")
        await asyncio.to_thread(browser.check)
        truth = await database_truth(rehearsal, organiser, event_id)
        caught_up = await wait_until(lambda: all(agrees(w, truth) for w in watchers))
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    reconnects = [t for w in watchers for t in w.reconnects]
    return {
        "streams": streams,
        "streams_on_killed_host": on_dead,
        "streams_reconnected": sum(1 for w in watchers if w.reconnects),
        "streams_final_state_equal": sum(agrees(w, truth) for w in watchers),
        "caught_up": caught_up,
        "reconnect_median_s": statistics.median(reconnects) if reconnects else None,
        "reconnect_max_s": max(reconnects) if reconnects else None,
        "organiser_actions": actions,
        "truth": truth,
    }


async def database_truth(rehearsal: Rehearsal, organiser, event_id: int) -> dict:
    """The live version in PostgreSQL and each auction's status as the API reports it."""
    from app.core.models import LiveVersion

    engine = create_engine(rehearsal.database_url)
    with engine.connect() as connection:
        version = connection.scalar(
            select(LiveVersion.version).where(LiveVersion.event_id == event_id)
        )
    engine.dispose()
    auctions = {p: (await organiser.get(f"/auctions/{p}")).json()["status"] for p in (1, 2, 3)}
    return {"version": str(version), "auctions": auctions}


def agrees(watcher: Watcher, truth: dict) -> bool:
    return watcher.last_id == truth["version"] and watcher.auctions == truth["auctions"]


# ------------------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 participants, short windows")
    parser.add_argument("--participants", type=int, default=2000)
    parser.add_argument("--takes", type=int, default=10, help="field takes per participant")
    parser.add_argument("--batch", type=int, default=10, help="takes per field delivery")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--window", type=float, default=15.0, help="capacity window, s")
    parser.add_argument("--down", type=float, default=5.0, help="s a killed host stays down")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers per host")
    parser.add_argument(
        "--db-max-connections",
        type=int,
        default=60,
        help="DB_MAX_CONNECTIONS of the hosts: this run's share of the PostgreSQL server "
        "(default 60 of its 100: the server may be shared with other databases)",
    )
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="rogaine_rehearsal_bench")
    args = parser.parse_args(argv)
    if args.quick:
        args.participants, args.window = min(args.participants, 200), 8.0
    return args


def merged(first: dict[str, int], second: dict[str, int]) -> dict[str, int]:
    return {k: first.get(k, 0) + second.get(k, 0) for k in sorted({*first, *second})}


def report(args, capacity_figures: dict, event: dict, stored: tuple, ceremony: dict) -> dict:
    rows, ids = stored
    field_tally, phone_tally = event["field"], event["phones"]
    acked = field_tally.acked | phone_tally.acked
    sent = field_tally.sent | phone_tally.sent
    figures = {
        "participants": args.participants,
        "takes_sent": len(sent),
        "takes_acknowledged": len(acked),
        "takes_stored": len(ids & sent),
        "acknowledged_lost": len(acked - ids),
        "duplicates": rows - len(ids),
        "requests": field_tally.requests + phone_tally.requests,
        "requests_retried": field_tally.retries + phone_tally.retries,
        "retried_because": merged(field_tally.failures, phone_tally.failures),
        "rejected_4xx": merged(field_tally.rejected, phone_tally.rejected),
        "phone_sessions_across_kill": phone_tally.sessions_across_kill,
        "feed_takes_per_s": round(capacity_figures["feed_takes_per_s"], 1),
        "healthz_rps": round(capacity_figures["healthz_rps"], 1),
    }
    figures["feed_requests_per_s"] = round(figures["feed_takes_per_s"] / args.batch, 1)
    figures["feed_vs_healthz"] = round(figures["feed_takes_per_s"] / figures["healthz_rps"], 3)
    figures["feed_requests_vs_healthz"] = round(
        figures["feed_requests_per_s"] / figures["healthz_rps"], 3
    )
    figures["batch"] = args.batch
    figures["db_max_connections"] = args.db_max_connections
    figures["clients"] = args.clients
    figures.update({k: v for k, v in ceremony.items()})
    for key in ("reconnect_median_s", "reconnect_max_s"):
        if figures[key] is not None:
            figures[key] = round(figures[key], 2)
    figures["load_average"] = round(os.getloadavg()[0], 1)
    figures["elapsed_s"] = round(time.monotonic() - STARTED, 1)
    return figures


def print_report(figures: dict) -> None:
    f = figures
    print()
    print(f"takes: {f['takes_sent']} sent, {f['takes_acknowledged']} acknowledged, "
          f"{f['takes_stored']} stored; acknowledged but lost: {f['acknowledged_lost']}; "
          f"duplicates: {f['duplicates']}")  # fmt: skip
    print(f"requests: {f['requests']}, retried {f['requests_retried']} "
          f"({f['retried_because']}); 4xx {f['rejected_4xx']}")  # fmt: skip
    print(f"streams: {f['streams']}, {f['streams_on_killed_host']} on the killed host, "
          f"{f['streams_reconnected']} reconnected, reconnect median "
          f"{f['reconnect_median_s']} s, max {f['reconnect_max_s']} s; final state equal to "
          f"the database: {f['streams_final_state_equal']} of {f['streams']}")  # fmt: skip
    print(f"sessions: {f['phone_sessions_across_kill']} phones signed in before the kill "
          f"synced after it; the organiser's dashboard after each kill: "
          f"{f['organiser_session_after_kills']} (200: still signed in)")  # fmt: skip
    print(f"feed through the proxy ({f['clients']} clients, {f['batch']} takes a request): "
          f"{f['feed_takes_per_s']} takes/s = {f['feed_requests_per_s']} requests/s; "
          f"/healthz through the proxy: {f['healthz_rps']} req/s; ratio {f['feed_vs_healthz']}"
          f" (requests: {f['feed_requests_vs_healthz']})")  # fmt: skip
    print(json.dumps(figures, sort_keys=True))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ensure_caddy()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 6 * args.participants + 500  # client, proxy (both sides) and hosts
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    url = recreate_database(args.pg_url, args.database)
    budget = {"DB_MAX_CONNECTIONS": str(args.db_max_connections)}
    with Rehearsal(url, workers=args.workers, env=budget) as rehearsal:
        print(f"proxy {rehearsal.url} -> " + ", ".join(h.url for h in rehearsal.app_hosts))
        event_id, people, codes = build_event(rehearsal, args.participants, args.seed)
        capacity_figures = asyncio.run(capacity(args, rehearsal, event_id, people, codes))
        print(f"capacity: {capacity_figures}")
        organiser = Organiser(rehearsal)
        event = asyncio.run(event_phase(args, rehearsal, event_id, people, codes, organiser))
        stored = takes_in_database(url, event_id)
        ceremony = asyncio.run(
            ceremony_phase(args, rehearsal, event_id, args.participants, organiser)
        )
        ceremony["organiser_session_after_kills"] = organiser.checks
    figures = report(args, capacity_figures, event, stored, ceremony)
    print_report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
