"""Bounded trust in phone times (RULES.md I-22, issue 26 point 4), through the phone's
own endpoints: the bundle fetch (`GET /me/offline.json?device=…&at=…`) and the sync
(`POST /me/offline/sync`).

Forged cases (each listed for the organiser, or refused after the sync deadline) and
honest cases (counted as before). Times are relative to the real clock: the server
stamps `received_at` itself; the phone's clock is `now + skew`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.feed.models import DeviceContact, Take, TakeReview
from app.web.templating import clock_offset
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.test_participant_pages import signed_in
from tests.web.test_signin import admin_login, csrf_of

DEVICE = "phone-0a1b2c3d4e"


def closed_event(session: Session, client: TestClient, *, ago: timedelta = timedelta(hours=1)):
    """An event that closed `ago` before now (opened 5 h before the close), a signed-in
    participant, real random codes (card -> (code, discard code, number))."""
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - ago - timedelta(hours=5), closes_at=now - ago)
    codes = random_codes(session, event)
    anna = make_participant(session, event, "41", name="Анна")
    session.commit()
    signed_in(client, anna.access_token)
    return event, codes, anna


def fetch_bundle(client: TestClient, skew: timedelta) -> None:
    """The phone opens /me online: a contact with its clock (now + skew)."""
    at = (datetime.now(UTC) + skew).isoformat()
    response = client.get("/me/offline.json", params={"device": DEVICE, "at": at})
    assert response.status_code == 200


def sync(client: TestClient, takes: list[tuple[str, datetime]], skew: timedelta, prefix="pwa"):
    """The phone sends its queue; `sent_at` is its clock (now + skew)."""
    body = {
        "source": DEVICE,
        "sent_at": (datetime.now(UTC) + skew).isoformat(),
        "takes": [
            {"code": code, "taken_at": at.isoformat(), "source_id": f"{prefix}-{i}"}
            for i, (code, at) in enumerate(takes)
        ],
    }
    response = client.post("/me/offline/sync", json=body)
    assert response.status_code == 200
    return response.json()["results"]


def reviews(session: Session) -> dict[str, list[str]]:
    """source id -> reasons of every listed take."""
    with session.get_bind().connect() as connection:
        rows = connection.execute(
            select(Take.source_id, TakeReview.reasons).join(Take, Take.id == TakeReview.take_id)
        ).all()
    return {source_id: sorted(reasons) for source_id, reasons in rows}


# -- forged ------------------------------------------------------------------------------------


def test_a_back_dated_take_after_the_close_with_an_honest_sent_at_is_listed(
    client: TestClient, session: Session
):
    """Issue 26 point 4, case 1: an hour after the close, a take dated 10 min before the
    close, `sent_at` honest. It counts (the rules), and the organiser sees it."""
    event, codes, _ = closed_event(session, client)
    fetch_bundle(client, timedelta(0))
    (result,) = sync(client, [(codes["QH"][0], event.closes_at - timedelta(minutes=10))],
                     timedelta(0))  # fmt: skip
    assert (result["outcome"], result["card"]) == ("counted", "QH")
    assert reviews(session) == {"pwa-0": ["late_arrival"]}


def test_a_sent_at_two_hours_ahead_that_moves_a_take_back_is_listed(
    client: TestClient, session: Session
):
    """Case 2: the phone's clock was right at the bundle fetch; after the close its batch
    says `sent_at` = now + 2 h, so a take stamped 30 min after the close is corrected to
    90 min before it. Listed: late arrival and the offset's jump (≈ −7200 s against ≈ 0)."""
    event, codes, _ = closed_event(session, client)
    fetch_bundle(client, timedelta(0))
    stamp = event.closes_at + timedelta(minutes=30)
    (result,) = sync(client, [(codes["QH"][0], stamp)], timedelta(hours=2))
    assert result["outcome"] == "counted"  # the correction made it count...
    assert reviews(session) == {"pwa-0": ["late_arrival", "offset_jump"]}  # ...and it shows
    with session.get_bind().connect() as connection:
        take = connection.execute(select(Take).where(Take.source_id == "pwa-0")).one()
    assert take.device_taken_at == stamp
    assert take.clock_offset_seconds == pytest.approx(-7200, abs=30)


def test_a_sent_at_more_than_seven_days_ahead_with_a_back_dated_take_is_listed(
    client: TestClient, session: Session
):
    """Case 3: `sent_at` 8 days ahead (never corrected: beyond 7 days) and a take dated
    before the close. It counts at its own time; listed on all three counts."""
    event, codes, _ = closed_event(session, client)
    fetch_bundle(client, timedelta(0))
    stamp = event.closes_at - timedelta(minutes=5)
    (result,) = sync(client, [(codes["QH"][0], stamp)], timedelta(days=8))
    assert result["outcome"] == "counted"
    assert reviews(session) == {"pwa-0": ["large_correction", "late_arrival", "offset_jump"]}


def test_a_forged_bundle_fetch_does_not_move_the_baseline(client: TestClient, session: Session):
    """During the course the phone fetched its bundle with its true clock; later it sends
    a bundle fetch claiming a clock 2 h fast, then a batch with the same 2 h: the batch is
    measured against every earlier contact, so the jump shows."""
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - timedelta(hours=3))
    codes = random_codes(session, event)
    anna = make_participant(session, event, "43")
    session.commit()
    signed_in(client, anna.access_token)
    fetch_bundle(client, timedelta(0))
    fetch_bundle(client, timedelta(hours=2))
    (result,) = sync(client, [(codes["QH"][0], now + timedelta(hours=2))], timedelta(hours=2))
    assert result["outcome"] == "counted"
    assert reviews(session) == {"pwa-0": ["offset_jump"]}


def test_a_new_device_without_earlier_contacts_is_still_listed_after_the_close(
    client: TestClient, session: Session
):
    """A forger who sends from a fresh device id has no jump to show, but a take that
    arrives after the close dated before it is listed all the same."""
    event, codes, _ = closed_event(session, client)
    (result,) = sync(client, [(codes["QH"][0], event.closes_at + timedelta(minutes=30))],
                     timedelta(hours=1, minutes=50))  # fmt: skip
    assert result["outcome"] == "counted"
    assert reviews(session) == {"pwa-0": ["late_arrival"]}


def test_after_the_sync_deadline_a_batch_stores_nothing_new(client: TestClient, session: Session):
    """The organiser set a deadline 30 min after the close; it is now 1 h after the close:
    a new take is refused (409 `sync_deadline_passed`), a take stored before the deadline
    still answers as a redelivery."""
    event, codes, _ = closed_event(session, client)
    stamp = event.closes_at - timedelta(minutes=20)
    (first,) = sync(client, [(codes["QH"][0], stamp)], timedelta(0))
    assert first["outcome"] == "counted"
    organiser = TestClient(client.app)
    admin_login(organiser)
    page = organiser.get(f"/admin/events/{event.id}/review")
    deadline = (event.closes_at + timedelta(minutes=30)).astimezone(_zone(event))
    response = organiser.post(
        f"/admin/events/{event.id}/review/deadline",
        data={"csrf_token": csrf_of(page.text), "deadline": deadline.strftime("%Y-%m-%dT%H:%M:%S")},
        follow_redirects=False,
    )
    assert response.status_code == 303 and "done=sync_deadline" in response.headers["location"]
    again, late = sync(client, [(codes["QH"][0], stamp), (codes["QD"][0], stamp)], timedelta(0))
    assert (again["status"], again["outcome"]) == ("duplicate_delivery", "counted")
    assert late["status"] == "error" and late["error"]["code"] == "sync_deadline_passed"
    with session.get_bind().connect() as connection:
        assert connection.scalar(select(Take.id).where(Take.source_id == "pwa-1")) is None


def test_a_sync_deadline_before_the_close_is_refused(client: TestClient, session: Session):
    event, _, _ = closed_event(session, client)
    organiser = TestClient(client.app)
    admin_login(organiser)
    page = organiser.get(f"/admin/events/{event.id}/review")
    before = (event.closes_at - timedelta(minutes=1)).astimezone(_zone(event))
    response = organiser.post(
        f"/admin/events/{event.id}/review/deadline",
        data={"csrf_token": csrf_of(page.text), "deadline": before.strftime("%Y-%m-%dT%H:%M:%S")},
        follow_redirects=False,
    )
    assert "error=deadline_before_close" in response.headers["location"]


def _zone(event):
    from zoneinfo import ZoneInfo

    return ZoneInfo(event.timezone)


# -- honest ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("skew", "listed"),
    [
        (timedelta(minutes=7), []),  # 7 min fast
        (timedelta(hours=1), []),  # a clock left an hour off after a DST change
        (-timedelta(days=1), ["large_correction"]),  # a day slow: counts, and is shown
    ],
)
def test_honest_clock_errors_during_the_course_count(
    client: TestClient, session: Session, skew: timedelta, listed: list[str]
):
    """During the course, a phone whose clock is off by `skew` (the same at the bundle
    fetch and at the sync): the take made 5 min ago counts, at its corrected time."""
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - timedelta(hours=2))
    codes = random_codes(session, event)
    anna = make_participant(session, event, "42")
    session.commit()
    signed_in(client, anna.access_token)
    fetch_bundle(client, skew)
    (result,) = sync(client, [(codes["QH"][0], now + skew - timedelta(minutes=5))], skew)
    assert (result["outcome"], result["card"]) == ("counted", "QH")
    assert reviews(session) == ({"pwa-0": listed} if listed else {})
    with session.get_bind().connect() as connection:
        taken_at = connection.scalar(select(Take.taken_at).where(Take.source_id == "pwa-0"))
    assert abs(taken_at - (now - timedelta(minutes=5))) < timedelta(seconds=30)


def test_an_honest_late_sync_counts_and_is_listed_as_a_late_arrival(
    client: TestClient, session: Session
):
    """A phone out of coverage until an hour after the close sends takes it made before
    the close (clock right): they count as before; I-22 lists them (late arrival)."""
    event, codes, _ = closed_event(session, client)
    fetch_bundle(client, timedelta(0))
    results = sync(
        client,
        [(codes["QH"][0], event.closes_at - timedelta(minutes=40)),
         (codes["QD"][0], event.closes_at - timedelta(minutes=20))],
        timedelta(seconds=3),
    )  # fmt: skip
    assert [r["outcome"] for r in results] == ["counted", "counted"]
    assert reviews(session) == {"pwa-0": ["late_arrival"], "pwa-1": ["late_arrival"]}


def test_the_bundle_fetch_and_the_sync_are_contacts_of_the_device(
    client: TestClient, session: Session
):
    event, codes, anna = closed_event(session, client)
    fetch_bundle(client, timedelta(minutes=-3))
    assert client.get("/me/offline.json", params={"device": "bad id"}).status_code == 422
    sync(client, [(codes["QH"][0], event.closes_at - timedelta(minutes=10))], timedelta(0))
    with session.get_bind().connect() as connection:
        rows = connection.execute(
            select(
                DeviceContact.source,
                DeviceContact.kind,
                DeviceContact.offset_seconds,
                DeviceContact.takes,
            ).order_by(DeviceContact.id)
        ).all()
    source = f"phone-p{anna.id}-0a1b2c3d4e"
    assert [(r.source, r.kind, r.takes) for r in rows] == [
        (source, "bundle", 0),
        (source, "sync", 1),
    ]
    assert rows[0].offset_seconds == pytest.approx(180, abs=30)
    assert rows[1].offset_seconds == pytest.approx(0, abs=30)


# -- the organiser's review --------------------------------------------------------------------


def test_the_organiser_accepts_or_voids_each_listed_take(client: TestClient, session: Session):
    """Two late takes listed; the dashboard links to the list with the count; accepting
    one keeps it counted, voiding the other voids the take (a logged correction)."""
    event, codes, _ = closed_event(session, client)
    sync(
        client,
        [(codes["QH"][0], event.closes_at - timedelta(minutes=40)),
         (codes["QD"][0], event.closes_at - timedelta(minutes=20))],
        timedelta(0),
    )  # fmt: skip
    organiser = TestClient(client.app)
    admin_login(organiser)
    dashboard = organiser.get(f"/admin/events/{event.id}").text
    assert re.search(r'id="review-link"[^>]*data-open="2"', dashboard)
    url = f"/admin/events/{event.id}/review"
    page = organiser.get(url).text
    ids = re.findall(r'data-review="(\d+)"', page)
    assert len(ids) == 2 and "КП " in page
    token = csrf_of(page)
    assert organiser.post(f"{url}/{ids[0]}/accepted", data={}).status_code == 403  # no CSRF
    accepted = organiser.post(f"{url}/{ids[0]}/accepted", data={"csrf_token": token},
                              follow_redirects=False)  # fmt: skip
    assert "done=review_accepted" in accepted.headers["location"]
    voided = organiser.post(f"{url}/{ids[1]}/voided", data={"csrf_token": token},
                            follow_redirects=False)  # fmt: skip
    assert "done=review_voided" in voided.headers["location"]
    twice = organiser.post(f"{url}/{ids[1]}/voided", data={"csrf_token": token},
                           follow_redirects=False)  # fmt: skip
    assert "error=review_decided" in twice.headers["location"]
    state = client.get("/me/offline.json").json()["state"]
    assert state["hand"] == ["QH"]  # QD's take was voided
    assert re.search(r'id="review-link"[^>]*data-open="0"',
                     organiser.get(f"/admin/events/{event.id}").text)  # fmt: skip
    bad = organiser.get(f"{url}?page=0", follow_redirects=False)  # the page without it
    assert (bad.status_code, bad.headers["location"]) == (303, url)


def test_the_review_page_says_a_clock_offset_in_hours_and_minutes(
    client: TestClient, session: Session
):
    """A phone 3 h slow (its batch says so) is listed as a large correction, in the page
    language's units: "−3 ч", not "−10800 с"."""
    event, codes, _ = closed_event(session, client)
    fetch_bundle(client, timedelta(0))
    sync(client, [(codes["QH"][0], event.closes_at - timedelta(hours=4))], timedelta(hours=-3))
    organiser = TestClient(client.app)
    admin_login(organiser)
    page = organiser.get(f"/admin/events/{event.id}/review").text
    assert "часы телефона сильно расходятся с сервером: +3 ч" in page
    assert "10800" not in page


def test_clock_offsets_in_the_page_language():
    assert [clock_offset(s, "ru") for s in (10800, -432, 45, 0)] == [
        "+3 ч",
        "−7 мин",
        "+45 с",
        "0 с",
    ]
    assert clock_offset(-7200, "en") == "−2 hr"
    assert clock_offset(None, "en") == ""
