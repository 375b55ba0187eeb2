"""The per-process database gate (app.core.deps.database_gate)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from app.core.deps import THREAD_POOL_SIZE, database_concurrency
from tests.conftest import make_settings
from tests.factories import event_cp_code, make_event, make_participant


def test_gate_sizes_stay_below_the_thread_pool() -> None:
    assert database_concurrency(make_settings("sqlite:///x.db")) == 4
    pg = "postgresql+psycopg://u@h/db"
    assert database_concurrency(make_settings(pg)) == 30  # pool 10 + overflow 20
    big = make_settings(pg, db_pool_size=50, db_max_overflow=50)
    assert database_concurrency(big) == THREAD_POOL_SIZE - 8


def test_a_burst_larger_than_the_thread_pool_is_served(client, admin, session) -> None:
    # 60 devices deliver at once (more than the 40 worker threads). Without the gate
    # the threads all block on connections or the SQLite lock held by requests that
    # wait for a thread, and the requests fail after the 30 s timeouts.
    event = make_event(session)
    devices = [make_participant(session, event, f"g{i}") for i in range(60)]
    session.commit()
    code = event_cp_code(event, "AS")
    taken_at = datetime.now(UTC).isoformat()

    def deliver(index: int) -> tuple[int, str]:
        take = {
            "participant": devices[index].external_id,
            "code": code,
            "taken_at": taken_at,
            "source": f"device-{index}",
            "source_id": "1",
        }
        response = client.post(
            f"/api/v1/events/{event.id}/takes", json={"takes": [take]}, headers=admin
        )
        return response.status_code, response.json()["results"][0]["outcome"]

    with ThreadPoolExecutor(max_workers=60) as pool:
        answers = list(pool.map(deliver, range(60)))
    assert answers == [(200, "counted")] * 60
