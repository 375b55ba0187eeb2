"""The hall screen in Chromium (issue 29 item 2): a projector at 1280×800 and a phone of
360 px, anonymous (the owner made the screen public), follow a take and an auction's
close and reveal from the live stream without a reload; axe clean; screenshots under the
test's tmp dir."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session

from app.core import livelog
from app.events import service as events_service
from app.events.models import Event
from tests.factories import cp_code, make_combination, make_event, make_participant
from tests.web.conftest import WAIT_MS, WAIT_S, axe_violations

pytestmark = pytest.mark.browser


def hall_event(engine) -> tuple[int, str, int, int]:
    """An event open now, its hall screen public; Anna holds a saved full house, Boris a
    saved high card. Returns the event id, the code of CP 1 (2S) and both combinations."""
    with Session(engine) as session:
        event = make_event(session, name="Ночной рогейн")
        event.hall_public = True
        anna = make_participant(session, event, "41", name="Анна")
        boris = make_participant(session, event, "42", name="Борис")
        full = make_combination(session, event, anna, ["AH", "AD", "AC", "KS", "KH"])
        high = make_combination(session, event, boris, ["2C", "3D", "4H", "5S", "7C"])
        session.commit()
        return event.id, f"{cp_code('2S')}{event.id}", full.id, high.id


def close_course(engine, event_id: int) -> str:
    """The course closes now (the window's end reached: no replay of the feed, which
    would rebuild the combinations the factory stored without their takes). Returns the
    close as the page writes it (event time)."""
    with Session(engine) as session:
        event = session.get(Event, event_id)
        event.closes_at = datetime.now(UTC)
        event.status = "course_closed"
        livelog.changed(session, event.id, "event", stage=True)  # as change_status names it
        session.commit()
        return events_service.local_time(event, event.closes_at, "%d.%m %H:%M")


def shot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)


def text_of(page, field: str) -> str:
    return page.locator(f"[data-hall='{field}']").inner_text()


def test_the_hall_screen_follows_a_take_and_the_ceremony(
    live_server, browser, admin, tmp_path: Path
) -> None:
    event_id, code, full, high = hall_event(live_server.engine)
    api = httpx.Client(
        base_url=f"{live_server.url}/api/v1/events/{event_id}", headers=admin, timeout=WAIT_S
    )
    pages = []
    for width, height in ((1280, 800), (360, 780)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        page.goto(f"{live_server.url}/hall/{event_id}")
        assert page.locator("h2").first.inner_text() == "Взятия за 10 минут"
        assert text_of(page, "combinations") == "2"
        assert text_of(page, "on_course") == "0"
        page.evaluate("window.__hallMarker = 'still here'")
        pages.append((page, width))
    # the stream is up: the offline note stays hidden
    for page, _ in pages:
        assert page.locator("[data-hall='offline']").is_hidden()

    now = datetime.now(UTC).isoformat()
    take = {"participant": "41", "code": code, "taken_at": now, "source": "desk", "source_id": "t1"}
    assert api.post("/takes", json={"takes": [take]}).is_success
    for page, width in pages:
        # CP 1 (2S in the test deck) taken once: shown by number and hint, no card
        cps = page.locator("[data-hall='checkpoints'] li").first
        cps.get_by_text("взяли: 1").wait_for(timeout=WAIT_MS)
        assert "КП 1" in cps.inner_text() and "hint 1" in cps.inner_text()
        assert text_of(page, "on_course") == "1"
        assert "2S" not in page.content() and code not in page.content()
        assert axe_violations(page) == []
        shot(page, tmp_path, f"hall-course-{width}")

    closes = close_course(live_server.engine, event_id)
    assert api.post("/auctions/3/open").is_success
    for page, _ in pages:
        step = page.locator("[data-hall='ceremony'] li").first
        step.get_by_text("идёт приём заявок").wait_for()
        assert text_of(page, "countdown") == "Дистанция закрыта"
        assert text_of(page, "closes") == f"закрытие {closes}"  # the new close, in place
    for who, combination in (("41", full), ("42", high)):
        bid = {"participant": who, "combination_id": combination}
        assert api.post("/auctions/3/bids", json=bid).is_success
    assert api.post("/auctions/3/close").json()["winner"] == "41"
    for page, _ in pages:  # closed, being revealed: no winner, no card yet
        page.locator("[data-hall='ceremony'] li").first.get_by_text("вскрывается").wait_for()
        assert "Анна" not in text_of(page, "podium")
    assert api.post("/auctions/3/reveal", json={"all": True}).json()["complete"] is True
    for page, width in pages:
        podium = page.locator("[data-hall='podium'] li").first
        podium.get_by_text("Анна").wait_for()
        assert podium.inner_text().split() == ["3", "место", "Анна", "фулл-хаус"]
        assert text_of(page, "ceremony").split()[:3] == ["3", "место", "разыгран"]
        # no reload: the same document all along
        assert page.evaluate("window.__hallMarker") == "still here"
        assert axe_violations(page) == []
        assert "AH" not in page.content() and "A♥" not in page.content()
        shot(page, tmp_path, f"hall-ceremony-{width}")
        page.context.close()


def labels_outside_the_chart(page) -> list[str]:
    """The chart's time labels whose box reaches beyond the chart's (CSS px, ½ px slack)."""
    return page.evaluate(
        """() => {
          const svg = document.querySelector("[data-hall='chart'] svg").getBoundingClientRect();
          return [...document.querySelectorAll("[data-hall='chart'] .hall-bar-label")]
            .filter((label) => {
              const box = label.getBoundingClientRect();
              return box.left < svg.left - 0.5 || box.right > svg.right + 0.5;
            })
            .map((label) => label.textContent);
        }"""
    )


def test_no_time_label_of_the_chart_is_cut_at_its_edges(
    live_server, browser, admin, tmp_path: Path
) -> None:
    """Two hours of play: 12 bars of 10 minutes, each a third of a "13:52" label wide; the
    first label used to start left of the chart (".3:52"). Served and redrawn live."""
    with Session(live_server.engine) as session:
        opened = datetime.now(UTC) - timedelta(hours=3)
        event = make_event(session, name="Ночной рогейн", opens_at=opened)
        event.hall_public = True
        make_participant(session, event, "41", name="Анна")
        session.commit()
        event_id, code = event.id, f"{cp_code('2S')}{event.id}"
    for width, height in ((1280, 800), (360, 780)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        page.goto(f"{live_server.url}/hall/{event_id}")
        assert page.locator("[data-hall='chart'] .hall-bar").count() == 12
        assert labels_outside_the_chart(page) == []  # as the server drew it
        if width == 1280:
            take = {"participant": "41", "code": code, "source": "desk", "source_id": "t1"}
            take["taken_at"] = datetime.now(UTC).isoformat()
            url = f"{live_server.url}/api/v1/events/{event_id}/takes"
            assert httpx.post(url, json={"takes": [take]}, headers=admin).is_success
            page.locator("[data-hall='on_course']").get_by_text("1").wait_for()
            # the script redrew the chart: the take is the last bar's
            assert page.locator("[data-hall='chart'] .hall-bar-value").last.text_content() == "1"
        assert labels_outside_the_chart(page) == []  # as the script redraws it
        shot(page, tmp_path, f"hall-chart-{width}")
        context.close()
