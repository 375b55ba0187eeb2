"""A simulated history for the demo event of `make run`, so that nothing starts empty.

After the demo event is loaded (`app.events.demo`), `simulate_history` plays
its participants — and a few more simulated ones — from the opening of the
course up to now, in-process through the HTTP API: takes, discards, saves,
offline devices and the field's mistakes, exactly as `rogaine-poker simulate`
does. Takes after now are not sent; a device still offline keeps its backlog.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from app.core.config import Settings
from app.core.db import make_engine, utcnow
from app.core.text import counted
from app.simulation.client import ApiClient
from app.simulation.runner import FIRST_NAMES, LAST_NAMES, Simulation, SimulationConfig

DEMO_SEED = 2026


def simulate_history(
    settings: Settings,
    event_id: int,
    participants: Iterable[dict[str, Any]],
    *,
    extra_participants: int = 8,
    seed: int = DEMO_SEED,
    now: datetime | None = None,
) -> str:
    """Play the event `event_id` from its opening until `now` (default: the clock).

    `participants`: the demo participants (`external_id`, `name`, `save_codes`,
    `access_token`); `extra_participants` more are registered through the API.
    Everyone starts within the first 20 minutes. Returns one line to print.
    Request log lines are silenced while it runs.
    """
    from app.main import create_app
    from app.simulation.local import import_test_client

    TestClient = import_test_client()

    now = now or utcnow()
    engine = make_engine(settings)
    access_log = logging.getLogger("app.access")
    level = access_log.level
    try:
        app = create_app(settings, engine)
        access_log.setLevel(logging.WARNING)
        with TestClient(app, base_url=settings.base_url) as http:
            api = ApiClient(http, settings.admin_token or "")
            event = (
                http.get(f"/api/v1/events/{event_id}", headers=api.admin).raise_for_status().json()
            )
            opens_at = datetime.fromisoformat(event["opens_at"])
            closes_at = datetime.fromisoformat(event["closes_at"])
            simulation = Simulation(api, SimulationConfig(seed=seed))
            people = [dict(p) for p in participants]
            rng = random.Random(seed)
            taken = {p["external_id"] for p in people}
            for index in range(extra_participants):
                external_id = str(201 + index)
                if external_id in taken:
                    continue
                name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
                created = api.add_participant(
                    event_id, {"name": name, "external_id": external_id, "category": "sim"}
                )
                people.append({"external_id": external_id, "name": name, **created})
            simulation.attach(event_id, opens_at, closes_at, people)
            for agent in simulation.agents:  # a floating start, all in the first 20 minutes
                agent.start_at = opens_at + timedelta(minutes=agent.rng.uniform(0, 20))
            simulation.play(until=now)
            sent = simulation.deliveries["accepted"]
            late = sum(len(d.backlog) for d in simulation.devices.values())
    finally:
        access_log.setLevel(level)
        engine.dispose()
    return (
        f"  Simulated history: {counted(sent, 'take')} by"
        f" {counted(len(simulation.agents), 'participant')} since the"
        f" opening ({late} more waiting on offline devices)"
    )
