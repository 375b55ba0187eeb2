"""The organiser's course page without JavaScript (issue 16): the window edit and "close
the course now" show what would stop counting, store nothing, and apply only after the
confirmation (RULES.md §1.1: only takes inside the window count)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of

CARDS = ["2S", "3S", "4S", "5S", "6S", "2H", "3H", "4H", "5H", "6H"]


def test_a_window_change_is_previewed_then_confirmed(client: TestClient, session: Session, admin):
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=2), closes_at=now + timedelta(hours=3)
    )
    anna = make_participant(session, event, "7", name="Anna")
    session.commit()
    event_id = event.id
    # 11 takes (5 cards, a save, 5 cards) from 60 to 50 s ago: the lost participant.
    codes = [event_cp_code(event, c) for c in CARDS[:5]] + [anna.save_codes[0]]
    codes += [event_cp_code(event, c) for c in CARDS[5:]]
    takes = [
        {
            "participant": "7",
            "code": code,
            "taken_at": (now - timedelta(seconds=60 - i)).isoformat(),
            "source": "app",
            "source_id": f"a{i}",
        }
        for i, code in enumerate(codes)
    ]
    stored = client.post(f"/api/v1/events/{event_id}/takes", json={"takes": takes}, headers=admin)
    assert [r["outcome"] for r in stored.json()["results"]] == ["counted"] * 11
    session.rollback()

    admin_login(client)
    client.cookies.set("lang", "en")
    page = client.get(f"/admin/events/{event_id}/course")
    assert page.status_code == 200
    token = csrf_of(page.text)
    zone = ZoneInfo("Europe/Moscow")
    # Closing 3 minutes ago (minute precision, event time): all 11 takes fall outside.
    closes = (now - timedelta(minutes=3)).astimezone(zone).strftime("%Y-%m-%dT%H:%M")
    opens = (now - timedelta(hours=2)).astimezone(zone).strftime("%Y-%m-%dT%H:%M")
    form = {"csrf_token": token, "opens_at": opens, "closes_at": closes}
    preview = client.post(f"/admin/events/{event_id}/course/window", data=form)
    assert preview.status_code == 200
    assert "11 takes of 1 participant would stop counting." in preview.text
    assert f'name="closes_at" value="{closes}"' in preview.text
    state = client.get(f"/api/v1/events/{event_id}/participants/7/state", headers=admin).json()
    assert [t["outcome"] for t in state["takes"]] == ["counted"] * 11  # nothing stored

    assert (
        client.post(
            f"/admin/events/{event_id}/course/window",
            data={**form, "csrf_token": "x", "confirm": "1"},
        ).status_code
        == 403
    )
    done = client.post(f"/admin/events/{event_id}/course/window", data={**form, "confirm": "1"})
    assert done.status_code == 200  # followed the 303 to the course page
    assert "The course window was changed." in done.text
    assert "11 takes of 1 participant stopped counting." in done.text
    state = client.get(f"/api/v1/events/{event_id}/participants/7/state", headers=admin).json()
    assert [t["reason"] for t in state["takes"]] == ["outside_course_hours"] * 11

    # The course is closed now: no "close now" button; closing again is refused in words.
    assert "Close the course now…" not in done.text
    refused = client.post(f"/admin/events/{event_id}/course/close", data={"csrf_token": token})
    assert "The course is already closed." in refused.text
    backwards = client.post(
        f"/admin/events/{event_id}/course/window", data={**form, "closes_at": opens}
    )
    assert "The course must close after it opens." in backwards.text


def test_close_now_preview_in_russian_then_the_ceremony_freezes_the_window(
    client: TestClient, session: Session, admin
):
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=2), closes_at=now + timedelta(hours=3)
    )
    session.commit()
    event_id = event.id
    session.rollback()
    admin_login(client)
    token = csrf_of(client.get(f"/admin/events/{event_id}/course").text)
    preview = client.post(f"/admin/events/{event_id}/course/close", data={"csrf_token": token})
    assert "Закрыть дистанцию сейчас?" in preview.text
    assert "Ни одно взятие не изменится (проверено: 0 взятий 0 участников)." in preview.text
    assert client.get(f"/api/v1/events/{event_id}", headers=admin).json()["status"] == "course_open"
    closed = client.post(
        f"/admin/events/{event_id}/course/close", data={"csrf_token": token, "confirm": "1"}
    )
    assert "Дистанция закрыта." in closed.text
    assert (
        client.post(f"/api/v1/events/{event_id}/auctions/3/open", headers=admin).status_code == 200
    )
    page = client.get(f"/admin/events/{event_id}/course")
    assert "Церемония началась: окно дистанции больше не меняется." in page.text
    assert f'action="/admin/events/{event_id}/course/window"' not in page.text


def test_a_status_move_that_closes_the_course_is_confirmed_first(
    client: TestClient, session: Session, admin
):
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=2), closes_at=now + timedelta(hours=3)
    )
    session.commit()
    event_id = event.id
    session.rollback()
    admin_login(client)
    client.cookies.set("lang", "en")
    page = client.get(f"/admin/events/{event_id}/course")
    assert '<option value="course_closed">course closed</option>' in page.text
    form = {"csrf_token": csrf_of(page.text), "status": "course_closed"}
    preview = client.post(f"/admin/events/{event_id}/course/status", data=form)
    assert "Change the status and close the course now?" in preview.text
    assert client.get(f"/api/v1/events/{event_id}", headers=admin).json()["status"] == "course_open"
    done = client.post(f"/admin/events/{event_id}/course/status", data={**form, "confirm": "1"})
    assert "The status was changed." in done.text
    event_now = client.get(f"/api/v1/events/{event_id}", headers=admin).json()
    assert event_now["status"] == "course_closed"
    assert datetime.fromisoformat(event_now["closes_at"]) <= datetime.now(UTC)
    # Back is refused in words (the form offers only later statuses).
    refused = client.post(
        f"/admin/events/{event_id}/course/status", data={**form, "status": "draft"}
    )
    assert "The status only moves forward." in refused.text


def test_the_window_form_keeps_the_seconds_so_an_unchanged_resubmit_changes_nothing(
    client: TestClient, session: Session, admin
):
    """Takes are timed to the second: a window shown at minute precision and sent back
    unchanged would move `closes_at` up to 59 s earlier (the takes in between would stop
    counting). The form shows and accepts seconds (step="1")."""
    now = datetime.now(UTC).replace(microsecond=0)
    opens = now - timedelta(hours=2, seconds=17)
    closes = now + timedelta(hours=3, seconds=42)
    event = make_event(session, opens_at=opens, closes_at=closes)
    session.commit()
    event_id = event.id
    session.rollback()
    admin_login(client)
    page = client.get(f"/admin/events/{event_id}/course").text
    zone = ZoneInfo("Europe/Moscow")
    opens_input = f"{opens.astimezone(zone):%Y-%m-%dT%H:%M:%S}"
    closes_input = f"{closes.astimezone(zone):%Y-%m-%dT%H:%M:%S}"
    assert f'step="1" value="{opens_input}"' in page
    assert f'step="1" value="{closes_input}"' in page
    form = {"csrf_token": csrf_of(page), "opens_at": opens_input, "closes_at": closes_input}
    form["closes_at"] = f"{(closes + timedelta(seconds=5)).astimezone(zone):%Y-%m-%dT%H:%M:%S}"
    done = client.post(f"/admin/events/{event_id}/course/window", data={**form, "confirm": "1"})
    assert done.status_code == 200
    stored = client.get(f"/api/v1/events/{event_id}", headers=admin).json()
    assert datetime.fromisoformat(stored["opens_at"]) == opens
    assert datetime.fromisoformat(stored["closes_at"]) == closes + timedelta(seconds=5)


def test_pages_say_closed_once_the_window_has_passed(client: TestClient, session: Session, admin):
    """Stored `course_open`, `closes_at` a minute ago, nobody pressed "close now": the
    events list and the course page say the course is closed, and the status form no
    longer offers `course_closed` (RULES.md §1.1)."""
    now = datetime.now(UTC)
    event = make_event(
        session, opens_at=now - timedelta(hours=5), closes_at=now - timedelta(minutes=1)
    )
    session.commit()
    event_id = event.id
    session.rollback()
    admin_login(client)
    client.cookies.set("lang", "en")
    listed = client.get("/admin").text
    assert "<td>course closed</td>" in listed and "course open" not in listed
    page = client.get(f"/admin/events/{event_id}/course").text
    assert "Status: <strong>course closed</strong>" in page
    assert '<option value="course_closed">' not in page
    assert '<option value="ceremony">ceremony</option>' in page
