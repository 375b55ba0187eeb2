"""What one single take costs the database (issue 24: cheaper single takes).

A take delivered alone with the organiser token must do, in SQL statements:

1. the sign-in guard's failed-credential count for the address (`app.core.guard`);
2. the event row (with its freeze state, `freeze.load_event_for_feed`);
3. the participant, locked by external id;
4. the event's checkpoints (the deck);
5. whether the event has any take yet;
6. the source clocks (device time corrections);
7. the participant's state (the projection);
8. the redelivery check on `(source, source_id)`;
9. INSERT the take (with its chain link), 10. INSERT its outcome,
11. UPDATE the participant's state.

Transaction control (`BEGIN`, SQLite's `BEGIN IMMEDIATE`) is not counted.
"""

from __future__ import annotations

from sqlalchemy import Engine, event

from tests.feed.conftest import World, at

SINGLE_TAKE_STATEMENTS = 11


def test_a_single_take_issues_at_most_eleven_statements(
    client, admin, world: World, engine: Engine
):
    url = f"/api/v1/events/{world.id}/takes"

    def body(card: str, minutes: float, source_id: str) -> dict:
        take = {
            "participant": world.alice.external_id,
            "code": world.cp(card),
            "taken_at": at(minutes).isoformat(),
            "source": "app",
            "source_id": source_id,
        }
        return {"takes": [take]}

    # The first take of the event (a cold process) is not the one measured.
    assert client.post(url, json=body("QH", 1, "a0"), headers=admin).status_code == 200
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        response = client.post(url, json=body("AS", 2, "a1"), headers=admin)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert response.status_code == 200, response.text
    [result] = response.json()["results"]
    assert (result["status"], result["card"]) == ("accepted", "AS")
    assert len(statements) <= SINGLE_TAKE_STATEMENTS, "\n".join(statements)
    assert sum("FROM auth_failure" in s for s in statements) == 1
