"""Concurrent deliveries for one participant give the sequential result (issue 5).

Threads on both backends; two OS processes with their own engines on PostgreSQL.
"""

from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from app.core.db import make_engine
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.feed.conftest import World, at


def plan(w: World) -> list[tuple[str, float]]:
    """12 takes of Alice and their outcomes in field-time order, worked out by hand:
    5 spades count, 7♠ at minute 6 is hand_full (I-1), the discard of 2♠ starts round 2,
    7♠ at minute 8 counts, the save keeps 3♠–7♠, 8♠ 9♠ count, the discard of 8♠ is
    refused (2 cards: not a decision point, I-2)."""
    a = w.alice
    return [
        (w.cp("2S"), 1), (w.cp("3S"), 2), (w.cp("4S"), 3), (w.cp("5S"), 4), (w.cp("6S"), 5),
        (w.cp("7S"), 6), (w.discard("2S"), 7), (w.cp("7S"), 8), (a.save_codes[0], 9),
        (w.cp("8S"), 10), (w.cp("9S"), 11), (w.discard("8S"), 12),
    ]  # fmt: skip


EXPECTED_REASONS = [None] * 5 + ["hand_full"] + [None] * 5 + ["hand_not_full"]


def item(w: World, index: int, code: str, minute: float) -> dict:
    return {
        "participant": w.alice.external_id,
        "code": code,
        "taken_at": at(minute).isoformat(),
        "source": "app",
        "source_id": f"c{index}",
    }


def check_final_state(client: TestClient, w: World) -> None:
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    s = client.get(
        f"/api/v1/events/{w.id}/participants/{w.alice.external_id}/state", headers=admin
    ).json()
    assert [t["reason"] for t in s["takes"]] == EXPECTED_REASONS
    assert s["hand"] == ["8S", "9S"]
    assert (s["deal"], s["round"]) == (2, 1)
    (combination,) = s["combinations"]
    assert combination["cards"] == ["3S", "4S", "5S", "6S", "7S"]
    rebuilt = client.post(f"/api/v1/events/{w.id}/rebuild", headers=admin).json()
    assert rebuilt["changed_outcomes"] == 0
    # The participant's hash chain stayed one line: every take follows the one stored before.
    verified = client.get(f"/api/v1/events/{w.id}/log/verify", headers=admin).json()
    assert (verified["ok"], verified["takes"]) == (True, len(EXPECTED_REASONS))


def test_concurrent_deliveries_from_threads(client, world):
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    items = [item(world, i, code, minute) for i, (code, minute) in enumerate(plan(world))]
    random.Random(5).shuffle(items)  # arrival order unlike field order: many late takes

    def send(one: dict) -> int:
        response = client.post(
            f"/api/v1/events/{world.id}/takes", json={"takes": [one]}, headers=admin
        )
        return response.status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(send, items)) == [200] * len(items)
    check_final_state(client, world)


def _deliver_in_process(url: str, event_id: int, items: list[dict], barrier) -> None:
    """A second app process: its own engine and app, one request per take."""
    engine = make_engine(make_settings(url))
    app = create_app(make_settings(url), engine)
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with TestClient(app) as client:
        barrier.wait(timeout=60)
        for one in items:
            response = client.post(
                f"/api/v1/events/{event_id}/takes", json={"takes": [one]}, headers=headers
            )
            assert response.status_code == 200, response.text
    engine.dispose()


def test_concurrent_deliveries_from_two_processes(engine, client, world, database_url):
    if engine.dialect.name == "sqlite":
        pytest.skip("two processes need PostgreSQL's row locks; SQLite serialises all writers")
    items = [item(world, i, code, minute) for i, (code, minute) in enumerate(plan(world))]
    random.Random(7).shuffle(items)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    processes = [
        context.Process(
            target=_deliver_in_process, args=(database_url, world.id, items[i::2], barrier)
        )
        for i in range(2)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0, 0]
    check_final_state(client, world)
