"""Schemathesis against the service's own OpenAPI schema, in process (ASGI, no server),
on SQLite and PostgreSQL (the `engine` fixture), as the organiser.

Every operation gets generated requests in three passes: valid input on the real rows of
a seeded event (path parameters pinned to them; `PINNED` examples), invalid input
(schemathesis' negative mode; `NEGATIVE`) and valid input with any path parameters
(`ANYWHERE`). Hypothesis is derandomised
(the same requests every run) and does not shrink. Checks: no server error (500 or an
exception), and every response conforms to the schema (status code documented, content
type, response body schema, documented headers).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a dev dependency")
hypothesis = pytest.importorskip("hypothesis")
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

# Examples per operation: valid input on the seeded rows, invalid input, valid input anywhere.
PINNED, NEGATIVE, ANYWHERE = 10, 6, 4
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EVENT = {
    "name": "Fuzzed rogaine",
    "opens_at": "2026-06-13T09:00:00Z",
    "closes_at": "2026-06-14T03:00:00Z",
    "timezone": "Europe/Moscow",
}


def seed_world(client: TestClient) -> dict[str, Any]:
    """An event with a shuffled deck, two participants, a take, an integration key and a
    game; returns the values of the path parameters that name them."""

    def ok(response) -> Any:
        assert response.status_code < 300, response.text
        return response.json()

    event_id = ok(client.post("/api/v1/events", json=EVENT, headers=ORGANISER))["id"]
    base = f"/api/v1/events/{event_id}"
    deck = ok(client.post(f"{base}/checkpoints/shuffle", json={"seed": 7}, headers=ORGANISER))
    for external_id in ("101", "102"):
        body = {"name": f"Team {external_id}", "external_id": external_id}
        ok(client.post(f"{base}/participants", json=body, headers=ORGANISER))
    take = {
        "participant": "101",
        "code": deck["checkpoints"][0]["code"],
        "taken_at": "2026-06-13T10:00:00Z",
        "source": "fuzz",
        "source_id": "1",
    }
    result = ok(client.post(f"{base}/takes", json={"takes": [take]}, headers=ORGANISER))
    key = ok(client.post(f"{base}/integration-keys", json={"name": "timing"}, headers=ORGANISER))
    game = {"module": "poker-dice", "players": ["Ann", "Boris"]}
    game_id = ok(client.post("/api/v1/games", json=game))["id"]
    return {
        "event_id": event_id,
        "number": 1,
        "external_id": "101",
        "take_id": result["results"][0]["take_id"],
        "key_id": key["id"],
        "game_id": game_id,
        "place": 3,
        "module": "poker-dice",
    }


def run_operation(operation, mode, path_parameters, examples: int, failures: dict[str, int]) -> int:
    """Send `examples` generated requests of one operation; failures are counted by kind
    (operation, pass, exception and the first words of its message)."""
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=path_parameters)
    sent = 0

    @hypothesis.settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(case=strategy)
    def send(case) -> None:
        nonlocal sent
        sent += 1
        try:
            response = case.call(headers=ORGANISER)
            case.validate_response(response, checks=CHECKS)
        except BaseException as exc:  # a check failure, or the server's own exception
            if isinstance(exc, KeyboardInterrupt):
                raise
            text = " ".join(str(exc).split())[:300]
            kind = f"{operation.label} [{mode.value}] {type(exc).__name__}: {text}"
            failures[kind] = failures.get(kind, 0) + 1

    # Unsatisfiable: nothing to make invalid (no parameters, no body) in negative mode.
    with contextlib.suppress(hypothesis.errors.Unsatisfiable):
        send()
    return sent


def test_the_api_conforms_to_its_own_schema(engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    # Many generated requests are refused (401) by design: no throttling here.
    settings = make_settings(url, auth_failures_per_window=10**9)
    app = create_app(settings, engine)
    with TestClient(app) as client:
        world = seed_world(client)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: dict[str, int] = {}
    sent = 0
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 50
    for operation in operations:
        names = {parameter.name for parameter in operation.path_parameters}
        pinned = {name: world[name] for name in names if name in world}
        passes = [
            (GenerationMode.POSITIVE, pinned, PINNED),
            (GenerationMode.NEGATIVE, None, NEGATIVE),
        ]
        if pinned:
            passes.append((GenerationMode.POSITIVE, None, ANYWHERE))
        for mode, parameters, examples in passes:
            sent += run_operation(operation, mode, parameters, examples, failures)
    assert sent > 800
    report = "\n".join(f"{count} x {kind}" for kind, count in sorted(failures.items()))
    assert failures == {}, f"{sum(failures.values())} of {sent} requests failed:\n{report}"
