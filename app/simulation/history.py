"""A simulated history for the demo event of `make run`, so that nothing starts empty.

After the demo event is loaded (`app.events.demo`, the course opened several
hours ago), `simulate_history` plays its participants — and a few more
simulated ones — from the opening of the course up to now, in-process through
the HTTP API, exactly as `rogaine-poker simulate` does: takes, discards, saves,
offline devices and the field's mistakes. Starts float between the opening and
now, each participant entering the park at their own point of its edge, so the
field is at different stages and hands differ. Takes after now are not sent;
one device is out of coverage now and keeps its backlog (as may others, by
their own offline plans).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.core.config import Settings
from app.core.db import make_engine, utcnow
from app.core.text import counted
from app.simulation.agent import Agent
from app.simulation.client import ApiClient
from app.simulation.runner import Simulation, SimulationConfig

DEMO_SEED = 2026
# Names of the simulated participants, in the demo's language, each surname in the form of
# the first name's gender (Egor Orlov, Olga Orlova): (first names, surnames as (male, female)).
FEMALE_FIRST = {
    "ru": ("Анна", "Дарья", "Галина", "Екатерина", "Мария", "Ольга", "София", "Ульяна", "Вера"),
    "en": ("Anna", "Daria", "Galina", "Katya", "Maria", "Olga", "Sofia", "Ulyana", "Vera"),
}
MALE_FIRST = {
    "ru": ("Борис", "Егор", "Фёдор", "Игорь", "Лев", "Никита", "Павел", "Роман", "Тимур"),
    "en": ("Boris", "Egor", "Fedor", "Igor", "Lev", "Nikita", "Pavel", "Roman", "Timur"),
}
SURNAMES = {
    "ru": (
        ("Белов", "Белова"), ("Волков", "Волкова"), ("Громов", "Громова"),
        ("Денисов", "Денисова"), ("Зорин", "Зорина"), ("Ковалёв", "Ковалёва"),
        ("Лебедев", "Лебедева"), ("Морозов", "Морозова"), ("Орлов", "Орлова"),
        ("Соколов", "Соколова"), ("Титов", "Титова"), ("Фролов", "Фролова"),
    ),
    "en": (
        ("Belov", "Belova"), ("Volkov", "Volkova"), ("Gromov", "Gromova"),
        ("Denisov", "Denisova"), ("Zorin", "Zorina"), ("Kovalev", "Kovaleva"),
        ("Lebedev", "Lebedeva"), ("Morozov", "Morozova"), ("Orlov", "Orlova"),
        ("Sokolov", "Sokolova"), ("Titov", "Titova"), ("Frolov", "Frolova"),
    ),
}  # fmt: skip
SIM_CATEGORY = {"ru": "симуляция", "en": "sim"}


def simulated_name(rng: random.Random, lang: str = "ru") -> str:
    """A first name and a surname of the same gender, in `lang` (`ru` or `en`)."""
    female = rng.random() < 0.5
    first = rng.choice(FEMALE_FIRST[lang] if female else MALE_FIRST[lang])
    male_form, female_form = rng.choice(SURNAMES[lang])
    return f"{first} {female_form if female else male_form}"


LAST_START = timedelta(minutes=20)  # the latest floating start: this long before now
OFFLINE_FOR = timedelta(minutes=50)  # one device has had no connection this long at now
OFFLINE_UNTIL = timedelta(hours=2)  # ... and gets it back this long after now


@dataclass
class History:
    """What `simulate_history` played: the takes stored, and the backlog of offline devices."""

    participants: int
    sent: int  # takes the feed stored (redeliveries not counted)
    backlog: dict[str, int] = field(default_factory=dict)  # external_id -> takes not sent

    @property
    def line(self) -> str:
        """One line for `make run` to print."""
        waiting = sum(self.backlog.values())
        return (
            f"  Simulated history: {counted(self.sent, 'take')} by"
            f" {counted(self.participants, 'participant')} since the opening"
            f" ({waiting} more waiting on {counted(len(self.backlog), 'offline device')})"
        )


def _edge_point(rng: random.Random, simulation: Simulation) -> tuple[float, float]:
    """A point on the edge of the CPs' bounding box: where a participant enters the park."""
    lats = [cp.lat for cp in simulation.public.values()]
    lons = [cp.lon for cp in simulation.public.values()]
    lat = rng.uniform(min(lats), max(lats))
    lon = rng.uniform(min(lons), max(lons))
    side = rng.randrange(4)
    if side == 0:
        return min(lats), lon
    if side == 1:
        return max(lats), lon
    if side == 2:
        return lat, min(lons)
    return lat, max(lons)


def _spread_field(
    simulation: Simulation, opens_at: datetime, closes_at: datetime, now: datetime
) -> None:
    """Floating starts between the opening and `LAST_START` before now, from the park's edge.

    Keeps a start the simulation drew before the opening (an early scan, rejected
    `outside_course_hours`).
    """
    latest = max(opens_at, min(now, closes_at) - LAST_START)
    for agent in simulation.agents:
        if agent.start_at >= opens_at:
            agent.start_at = opens_at + (latest - opens_at) * agent.rng.random()
        if simulation.public:
            agent.position = _edge_point(agent.rng, simulation)


def _cut_one_device(simulation: Simulation, now: datetime) -> Agent | None:
    """Put the device of the earliest starter still walking out of coverage from
    `OFFLINE_FOR` before now until `OFFLINE_UNTIL` after: its takes since then wait on
    it. Earlier offline windows of its plan stay. Returns that agent (None: nobody
    has walked long enough)."""
    cut_from = now - OFFLINE_FOR
    walking = [
        agent
        for agent in simulation.agents
        if agent.start_at <= cut_from - OFFLINE_FOR and agent.finish_at > now
    ]
    if not walking:
        return None
    agent = min(walking, key=lambda a: (a.start_at, a.external_id))
    plan = simulation.devices[agent.external_id].plan
    plan.windows = [(start, end) for start, end in plan.windows if end <= cut_from]
    plan.windows.append((cut_from, now + OFFLINE_UNTIL))
    if plan.dies_at is not None and plan.dies_at > cut_from:
        plan.dies_at = plan.read_out_at = None  # it would die later: not before `now`
    return agent


def _register_simulated(
    api: ApiClient,
    event_id: int,
    people: list[dict[str, Any]],
    count: int,
    seed: int,
    lang: str,
) -> list[dict[str, Any]]:
    """Register the simulated participants № 201… (skipping numbers `people` use), named
    in `lang`, category `SIM_CATEGORY[lang]`, through the API."""
    rng = random.Random(seed)
    taken = {p["external_id"] for p in people}
    added = []
    for index in range(count):
        external_id = str(201 + index)
        if external_id in taken:
            continue
        name = simulated_name(rng, lang)
        created = api.add_participant(
            event_id,
            {"name": name, "external_id": external_id, "category": SIM_CATEGORY[lang]},
        )
        added.append({"external_id": external_id, "name": name, **created})
    return added


def simulate_history(
    settings: Settings,
    event_id: int,
    participants: Iterable[dict[str, Any]],
    *,
    extra_participants: int = 8,
    seed: int = DEMO_SEED,
    now: datetime | None = None,
    lang: str = "ru",
) -> History:
    """Play the event `event_id` from its opening until `now` (default: the clock).

    `participants`: the demo participants (`external_id`, `name`, `save_codes`,
    `access_token`); `extra_participants` more are registered through the API, named
    in `lang` (`simulated_name`), category `SIM_CATEGORY[lang]`.
    Same event, seed and `now`: same history. Request log lines are silenced
    while it runs.
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
            people += _register_simulated(api, event_id, people, extra_participants, seed, lang)
            simulation.attach(event_id, opens_at, closes_at, people)
            _spread_field(simulation, opens_at, closes_at, now)
            _cut_one_device(simulation, now)
            simulation.play(until=now)
    finally:
        access_log.setLevel(level)
        engine.dispose()
    return History(
        participants=len(simulation.agents),
        sent=simulation.deliveries["accepted"],
        backlog={
            external_id: len(device.backlog)
            for external_id, device in sorted(simulation.devices.items())
            if device.backlog
        },
    )
