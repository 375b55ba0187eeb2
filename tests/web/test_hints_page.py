"""The CPs' hints and coordinates on the phone (issue 26 point 6): a page linked from /me,
a GPX download, the same list in the offline bundle; no card and no code."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.codes import grouped, typed_form
from app.events.models import Checkpoint
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.test_participant_pages import signed_in


def test_the_hints_page_lists_numbers_coordinates_and_hints_only(
    client: TestClient, session: Session
):
    event = make_event(session)
    codes = random_codes(session, event)
    cp = session.scalars(
        select(Checkpoint).where(Checkpoint.event_id == event.id, Checkpoint.card == "QH")
    ).one()
    cp.lat, cp.lon, cp.hint = 55.75, 37.61, "red suit, by the old oak"
    anna = make_participant(session, event, "91")
    session.commit()
    signed_in(client, anna.access_token)
    assert 'href="/me/hints"' in client.get("/me").text
    page = client.get("/me/hints")
    assert page.status_code == 200
    text = page.text
    assert "red suit, by the old oak" in text and "55.750000, 37.610000" in text
    assert f'data-number="{cp.number}"' in text and text.count("data-number=") == 54
    gpx_url = f"/api/v1/events/{event.id}/checkpoints.gpx"
    assert f'href="{gpx_url}"' in text
    assert "old oak" in client.get(gpx_url).text
    for code, discard, _ in codes.values():
        assert code not in text and discard not in text and grouped(typed_form(code)) not in text
    assert "Q♥" not in text and "QH" not in text
    bundle = client.get("/me/offline.json").json()
    row = next(r for r in bundle["checkpoints"] if r["number"] == cp.number)
    assert row == {"number": cp.number, "lat": 55.75, "lon": 37.61, "hint": cp.hint}
    assert "QH" not in json.dumps(bundle["checkpoints"])


def test_the_hints_page_needs_the_participant(client: TestClient):
    page = client.get("/me/hints")
    assert "data-number" not in page.text
