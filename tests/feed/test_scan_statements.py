"""What one phone scan costs the database (issue 24 item 4: cheaper single takes).

`POST /api/v1/scan` with the participant's access token, a known CP code, once the deck
is in play (its CPs are then read once per process, `app.feed.deck`), must do, in SQL
statements:

1. the sign-in guard's failed-credential count for the address (`app.core.guard`);
2. the participants of the access tokens (by their hashes, one query for the scans of a
   group commit, `app.feed.batching.ScanBatcher`);
3. the event row (with its freeze state, `freeze.load_event_for_feed`);
4. the source clocks (device time corrections; a CP's code is never rate limited, so
   no unknown-code count);
5. the participant, locked (`lock_participants_by_external_id`);
6. the participant's state (the projection);
7. the redelivery check on `(source, source_id)`;
8. INSERT the take (with its chain link), 9. INSERT its outcome,
10. UPDATE the participant's state.

A counted card take shows its own card: the participant's seen cards are not read for it.
Transaction control (`BEGIN`, SQLite's `BEGIN IMMEDIATE`) is not counted.
"""

from __future__ import annotations

from sqlalchemy import Engine, event

from tests.feed.conftest import World

SCAN_STATEMENTS = 10


def test_a_scan_issues_at_most_ten_statements(client, open_world: World, engine: Engine):
    headers = {"Authorization": f"Bearer {open_world.alice.access_token}"}

    def scan(card: str, source_id: str):
        body = {"code": open_world.cp(card), "source_id": source_id}
        return client.post("/api/v1/scan", json=body, headers=headers)

    # Not measured: the first take puts the deck in play, the second keeps its CPs.
    assert scan("QH", "p0").status_code == 200
    assert scan("KH", "p1").status_code == 200
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        response = scan("AS", "p2")
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["status"], body["outcome"], body["card"]) == ("accepted", "counted", "AS")
    assert body["discard_code"] == "DAS"
    assert len(statements) <= SCAN_STATEMENTS, "\n".join(statements)
    assert sum("FROM auth_failure" in s for s in statements) == 1
    assert sum("access_token_hash IN" in s for s in statements) == 1
    assert not any("FROM take_outcome" in s for s in statements)  # no seen-cards read


def test_a_discard_take_reads_the_seen_cards(client, open_world: World):
    # The card of a discard take is shown only when the participant has seen it (I-1):
    # this answer depends on the seen cards, so they are still read for it.
    headers = {"Authorization": f"Bearer {open_world.alice.access_token}"}
    taken = client.post("/api/v1/scan", json={"code": open_world.cp("KH")}, headers=headers)
    assert taken.json()["card"] == "KH"
    discard = client.post("/api/v1/scan", json={"code": "DKH"}, headers=headers).json()
    assert (discard["kind"], discard["card"], discard["discard_code"]) == ("discard", "KH", None)
    unseen = client.post("/api/v1/scan", json={"code": "D2C"}, headers=headers).json()
    assert unseen["kind"] == "discard" and unseen["card"] is None


def test_the_token_is_checked_before_the_body(client, open_world: World):
    # The scan looks its token up in its group commit (`ScanToken`): a wrong token still gets
    # 401 before a bad body is looked at, as with the `ParticipantDep` it replaces.
    wrong = {"Authorization": "Bearer not-a-token"}
    refused = client.post("/api/v1/scan", json={}, headers=wrong)
    assert refused.status_code == 401
    assert refused.json()["code"] == "unauthorized"
    assert refused.json()["detail"] == "The participant access token is missing or wrong."
    assert refused.headers["www-authenticate"] == "Bearer"
    assert client.post("/api/v1/scan", json={"code": "QH"}).status_code == 401
    mine = {"Authorization": f"Bearer {open_world.alice.access_token}"}
    assert client.post("/api/v1/scan", json={}, headers=mine).status_code == 422
