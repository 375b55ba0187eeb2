"""The live channel across real uvicorn processes: PostgreSQL NOTIFY wakes another
process's streams; SIGTERM ends open streams and the process promptly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from subprocess import Popen

import httpx
import pytest

from tests import conftest
from tests.conftest import ADMIN_TOKEN, PG_SKIP_REASON, truncate_all
from tests.live.sse import Stream
from tests.live.test_stream import ceremony_event
from tests.web.conftest import free_port


@contextmanager
def uvicorn_processes(database_url: str, count: int = 1) -> Iterator[list[tuple[str, Popen]]]:
    """`count` processes of `uvicorn app.main:app`, each on its own free port (started
    together: importing the app is most of their start-up), until the block ends."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "ADMIN_TOKEN": ADMIN_TOKEN,
        "ENVIRONMENT": "test",
        "LOG_LEVEL": "WARNING",
    }
    servers = []
    for _ in range(count):
        port = free_port()
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)]
        process = subprocess.Popen([*command, "--log-level", "warning"], env=env)
        servers.append((f"http://127.0.0.1:{port}", process))
    try:
        for url, _ in servers:
            deadline = time.monotonic() + 120  # bounded wait for the socket, in seconds
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{url}/healthz", timeout=120).is_success:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
        yield servers
    finally:
        for _, process in servers:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_bid_in_one_process_moves_the_count_on_another_process_stream(pg_engine, admin):
    if conftest.test_database_url() is None:
        pytest.skip(PG_SKIP_REASON)
    truncate_all(pg_engine)
    event_id, _anna, _boris, full, high = ceremony_event(pg_engine)
    url = conftest.test_database_url()
    with uvicorn_processes(url, 2) as [(streamer, _), (writer, _)]:
        stream = Stream(f"{streamer}/api/v1/events/{event_id}/live?since=0").start()
        assert stream.next().event == "hello"
        api = httpx.Client(
            base_url=f"{writer}/api/v1/events/{event_id}", headers=admin, timeout=120
        )
        assert api.post("/auctions/3/open").is_success
        opened = stream.until(lambda m: m.event == "auction")
        assert (opened.id, opened.data["status"], opened.data["bid_count"]) == ("1", "open", 0)
        for person, combination, count in (("41", full, 1), ("42", high, 2)):
            body = {"participant": person, "combination_id": combination}
            assert api.post("/auctions/3/bids", json=body).status_code == 201
            message = stream.until(lambda m: m.event == "auction")
            assert (message.data["place"], message.data["bid_count"]) == (3, count)
        stream.close()
    truncate_all(pg_engine)


def test_sigterm_ends_open_streams_and_the_process(engine):
    event_id, *_ = ceremony_event(engine)
    with uvicorn_processes(engine.url.render_as_string(hide_password=False)) as [(url, process)]:
        streams = [Stream(f"{url}/api/v1/events/{event_id}/live").start() for _ in range(3)]
        for stream in streams:
            assert stream.next().event == "hello"
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        # Without the shutdown handling uvicorn would wait for the streams forever.
        # uvicorn exits by re-raising the signal it handled: -SIGTERM after a clean shutdown
        assert process.wait(timeout=120) == -signal.SIGTERM
        for stream in streams:
            assert stream.ended.wait(timeout=60)
            stream.close()
        print(f"SIGTERM to exit: {time.monotonic() - sent:.2f} s")  # figures: README
