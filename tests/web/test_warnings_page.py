"""The dashboard lists the first rows of each warning; the paged warnings page has them
all (issue 24: the dashboard's cost does not grow with the event)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.feed.models import ParticipantState
from app.feed.rules import PlayState
from tests.factories import make_event, make_participant
from tests.web.test_signin import admin_login


def unsaved_rows(page: str) -> list[str]:
    """External ids of the unsaved hands' table."""
    table = page.split('id="unsaved"')[1].split("</table>")[0] if 'id="unsaved"' in page else ""
    return re.findall(r'/participants/([0-9]+)"', table)


def test_105_unsaved_hands_20_on_the_dashboard_100_and_5_on_the_pages(
    client: TestClient, session: Session
) -> None:
    event = make_event(session)
    for n in range(1, 106):
        participant = make_participant(session, event, f"{n:03d}")
        state = PlayState(hand=("2S",))
        session.add(
            ParticipantState(
                participant_id=participant.id,
                event_id=event.id,
                state=state.to_json(),
                hand_cards=1,
                takes=1,
            )
        )
    session.commit()
    admin_login(client)
    base = f"/admin/events/{event.id}"
    assert client.get(f"{base}/live.json").json()["unsaved_hands"] == 105
    dashboard = client.get(base).text
    assert unsaved_rows(dashboard) == [f"{n:03d}" for n in range(1, 21)]
    assert f'href="{base}/warnings"' in dashboard
    first = client.get(f"{base}/warnings").text
    assert unsaved_rows(first) == [f"{n:03d}" for n in range(1, 101)]
    assert 'href="?page=2"' in first and "?page=0" not in first
    second = client.get(f"{base}/warnings?page=2").text
    assert unsaved_rows(second) == ["101", "102", "103", "104", "105"]
    assert 'href="?page=1"' in second and 'href="?page=3"' not in second
    bad = client.get(f"{base}/warnings?page=0", follow_redirects=False)  # the first page
    assert (bad.status_code, bad.headers["location"]) == (303, f"{base}/warnings")
