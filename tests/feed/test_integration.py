"""Integration keys, signed requests and CSV import (issue 5: timing systems)."""

from __future__ import annotations

import json
import time

from sqlalchemy import select

from app.core.security import hash_token
from app.feed.keys import sign
from app.feed.models import IntegrationKey
from tests.feed.conftest import at


def make_key(client, admin, world, **body) -> dict:
    response = client.post(
        f"/api/v1/events/{world.id}/integration-keys",
        json={"name": "FixPoint", **body},
        headers=admin,
    )
    assert response.status_code == 201, response.text
    return response.json()


def batch(world, *takes) -> bytes:
    return json.dumps(
        {
            "takes": [
                {
                    "participant": world.alice.external_id,
                    "code": world.cp(card),
                    "taken_at": at(minute).isoformat(),
                    "source": "fixpoint",
                    "source_id": f"fp-{card}",
                }
                for card, minute in takes
            ]
        }
    ).encode()


def post(client, world, body: bytes, headers: dict[str, str]):
    return client.post(
        f"/api/v1/events/{world.id}/takes",
        content=body,
        headers={"Content-Type": "application/json", **headers},
    )


def test_key_is_shown_once_stored_hashed_and_accepted(client, admin, world, session):
    created = make_key(client, admin, world)
    key = created["key"]
    stored = session.scalar(select(IntegrationKey))
    session.commit()
    assert stored.key_hash == hash_token(key) and key not in stored.key_hash
    listed = client.get(f"/api/v1/events/{world.id}/integration-keys", headers=admin).json()
    assert [k["prefix"] for k in listed] == [key[:10]]
    assert "key" not in listed[0]

    for headers in ({"Authorization": f"Bearer {key}"}, {"X-Integration-Key": key}):
        response = post(client, world, batch(world, ("2S", 1)), headers)
        assert response.status_code == 200, response.text
    log = client.get(f"/api/v1/events/{world.id}/takes", headers=admin).json()
    assert log["items"][0]["recorded_by"] == f"key:{key[:10]}"


def test_revoked_or_foreign_keys_are_refused(client, admin, world, session):
    key = make_key(client, admin, world)
    assert post(client, world, batch(world), {"X-Integration-Key": "rpk_wrong"}).status_code == 401
    revoked = client.post(
        f"/api/v1/events/{world.id}/integration-keys/{key['id']}/revoke", headers=admin
    )
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    response = post(client, world, batch(world), {"X-Integration-Key": key["key"]})
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"
    # A wrong bearer token may be a mistyped organiser token: the answer says both.
    wrong = post(client, world, batch(world), {"Authorization": "Bearer not-the-organiser"})
    assert wrong.status_code == 401
    assert wrong.json()["code"] == "unauthorized"
    assert "organiser token" in wrong.json()["detail"]
    assert "integration key" in wrong.json()["detail"]
    again = client.post(
        f"/api/v1/events/{world.id}/integration-keys/{key['id']}/revoke", headers=admin
    )
    assert again.status_code == 409


def test_signed_requests(client, admin, world):
    key = make_key(client, admin, world, require_signature=True)["key"]
    body = batch(world, ("3S", 1))
    now = str(int(time.time()))

    unsigned = post(client, world, body, {"X-Integration-Key": key})
    assert unsigned.json()["code"] == "signature_required"

    good = {
        "X-Integration-Key": key,
        "X-Signature-Timestamp": now,
        "X-Signature": "sha256=" + sign(key, now, body),
    }
    assert post(client, world, body, good).status_code == 200

    tampered = post(client, world, batch(world, ("4S", 1)), good)
    assert (tampered.status_code, tampered.json()["code"]) == (401, "bad_signature")

    # A device clock 7 minutes fast is not refused (the window is a day; a replayed
    # delivery stores nothing): here a redelivery of the same body.
    fast = str(int(time.time()) + 7 * 60)
    fast_headers = {
        "X-Integration-Key": key,
        "X-Signature-Timestamp": fast,
        "X-Signature": sign(key, fast, body),
    }
    again = post(client, world, body, fast_headers)
    assert again.status_code == 200, again.text
    assert again.json()["results"][0]["status"] == "duplicate_delivery"

    old = str(int(time.time()) - 86401)  # more than FEED_SIGNATURE_MAX_AGE_SECONDS ago
    stale = {
        "X-Integration-Key": key,
        "X-Signature-Timestamp": old,
        "X-Signature": sign(key, old, body),
    }
    response = post(client, world, body, stale)
    assert (response.status_code, response.json()["code"]) == (401, "stale_signature")


CSV = """participant,code,taken_at
101,{c2},2026-06-12T09:01:00+00:00
101,{c3},2026-06-12T12:02:00+03:00
101,{c4},2026-06-12T09:03:00
nobody,{c5},2026-06-12T09:04:00Z
102,NOPE,2026-06-12T09:05:00Z
"""


def test_csv_import_with_row_errors_and_idempotency(client, admin, world):
    text = CSV.format(c2=world.cp("2S"), c3=world.cp("3S"), c4=world.cp("4S"), c5=world.cp("5S"))
    url = f"/api/v1/events/{world.id}/takes/import"
    headers = {**admin, "Content-Type": "text/csv"}
    first = client.post(url, content=text.encode(), headers=headers)
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["stored"], body["duplicates"], body["errors"]) == (3, 0, 2)
    assert [r["row"] for r in body["results"]] == [2, 3, 4, 5, 6]
    assert [r["status"] for r in body["results"]] == [
        "accepted",
        "accepted",
        "error",
        "error",
        "accepted",
    ]
    assert body["results"][2]["error"]["fields"][0]["loc"] == ["taken_at"]  # naive time
    assert body["results"][3]["error"]["code"] == "participant_not_found"
    assert body["results"][4]["reason"] == "unknown_code"

    # The same file as a form upload: nothing new is stored.
    again = client.post(url, files={"file": ("export.csv", text.encode())}, headers=admin)
    assert again.status_code == 200, again.text
    assert (again.json()["stored"], again.json()["duplicates"]) == (0, 3)


def test_csv_without_the_columns(client, admin, world):
    response = client.post(
        f"/api/v1/events/{world.id}/takes/import",
        content=b"who,what\n1,2\n",
        headers={**admin, "Content-Type": "text/csv"},
    )
    assert response.status_code == 422
    assert response.json()["code"] == "csv_missing_columns"


def test_csv_source_ids_identify_the_same_take_whatever_the_spelling():
    from app.feed.csv_import import csv_items

    text = (
        "Participant,Code,Taken_At\n"
        "101,cp-2s,2026-06-12T12:02:00+03:00\n"
        "101,CP2S,2026-06-12T09:02:00Z\n"
        "101,CP2S,2026-06-12T09:03:00Z\n"
    )
    (row2, first), (row3, second), (_, third) = csv_items(text, source="csv")
    assert (row2, row3) == (2, 3)
    assert first["source_id"] == second["source_id"] != third["source_id"]
    assert first["source"] == "csv"
