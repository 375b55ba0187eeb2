"""The offline phone end to end in Debian's Chromium (issue 17: Done when, first item).

The participant signs in online (the service worker installs, the bundle is kept on
the device). Then the server is stopped: the participant scans 5 CPs, a 6th into the
full hand ("hand full", no card shown, RULES.md I-1), discards 2 with their codes, scans
2 (the hand_full CP again: it was not consumed, so it counts now), and saves with a
typed save code — each page shows the card and the hand, worked out on the phone; the
server has stored nothing. The server comes back: the queue is sent by itself (the
periodic retry) within 10 s, and the server's state equals what the phone showed.
Screenshots at 360 px (light and dark colour scheme) go to test-artifacts/.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import uvicorn
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.events.models import Event, Participant
from app.feed import ingest as feed_ingest
from app.feed import views as feed_views
from app.feed.models import Take
from app.main import create_app
from tests.conftest import make_settings
from tests.factories import make_event, make_participant
from tests.offline.test_offline_api import random_codes
from tests.web.conftest import WAIT_MS, WAIT_S, axe_violations, free_port, new_context, screenshot

pytestmark = pytest.mark.browser
DISPLAY = {"QH": "Q♥", "QD": "Q♦", "QC": "Q♣", "TS": "10♠", "AC": "A♣"}


class Server:
    """uvicorn on a fixed port that can be stopped and started again (the network "drops")."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        settings = make_settings(
            engine.url.render_as_string(hide_password=False), base_url=self.url
        )
        self.app = create_app(settings, engine)
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + WAIT_S  # bounded wait for the socket
        while time.monotonic() < deadline and self.thread.is_alive():
            if self.server.started:
                return
            time.sleep(0.05)
        raise AssertionError("uvicorn did not start")

    def stop(self) -> None:
        assert self.server is not None and self.thread is not None
        self.server.should_exit = True
        self.thread.join(timeout=WAIT_S)
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{self.url}/healthz", timeout=2)


@pytest.fixture
def flaky_server(engine):
    server = Server(engine)
    server.start()
    yield server
    if server.server is not None and not server.server.should_exit:
        server.stop()


@pytest.fixture
def pwa_phone(browser):
    """A 360 px phone with service workers allowed (the offline mode)."""
    context = new_context(browser, viewport={"width": 360, "height": 780}, device_scale_factor=1)
    yield context
    context.close()


def takes_stored(engine) -> int:
    with Session(engine) as db:
        return db.scalar(select(func.count()).select_from(Take))


def hand_shown(page) -> list[str]:
    return [item.inner_text().split("\n")[0] for item in page.locator("#hand li").all()]


def test_a_participant_plays_offline_and_the_phone_syncs_when_the_server_is_back(
    flaky_server, pwa_phone
):
    url, engine = flaky_server.url, flaky_server.engine
    with Session(engine) as db:
        event = make_event(db, name="Ночной рогейн")
        codes = random_codes(db, event)  # card -> (CP code, discard code, CP number)
        anna = make_participant(db, event, "11", name="Анна")
        db.commit()

    page = pwa_phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/p/{anna.access_token}")
    assert page.url == f"{url}/me"
    page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
    assert page.locator("#offline-ready").inner_text().startswith("Офлайн-режим готов")
    screenshot(page, "offline-360-me-ready")

    flaky_server.stop()  # no network from here on

    shown = []  # (kind, outcome, reason) of each take, as the phone showed it
    for number, card in enumerate(["QH", "QD", "QC", "TS", "AC"], start=1):
        page.goto(f"{url}/t/{codes[card][0]}")
        page.wait_for_selector("#take-status")
        assert page.locator("h1").inner_text() == "Взятие засчитано"
        assert page.locator("#big-card").inner_text() == DISPLAY[card]
        assert page.locator("#discard-code").inner_text() == codes[card][1]
        assert f"КП {codes[card][2]}" in page.inner_text("main")
        assert page.locator("#hand li").count() == number
        assert page.locator("#queue-count").get_attribute("data-count") == str(number)
        assert page.url.startswith(f"{url}/me/offline?take=pwa-")  # a reload records nothing
        shown.append(("card", "counted", None))
        if number == 1:
            assert "нужно ещё 4" in page.inner_text("main")
            assert page.locator("#hand-value").inner_text() == "Значение руки: старшая карта, дама"
            screenshot(page, "offline-360-card")
        if number == 3:  # the server pages' partial value (no kickers), worked out offline
            assert page.locator("#hand-value").inner_text() == "Значение руки: тройка дам"
    assert "Сдача 1, раунд 1" in page.inner_text("#deal-round")
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣", "10♠", "A♣"]
    assert page.locator("#hand-value").inner_text() == (
        "Значение руки: тройка дам, кикеры туз, десятка"
    )
    page.emulate_media(color_scheme="dark")
    screenshot(page, "offline-360-hand-value-dark")
    page.emulate_media(color_scheme="light")

    page.goto(f"{url}/t/{codes['KD'][0]}")  # a 6th card into the full hand
    page.wait_for_selector("#take-status")
    assert page.locator("h1").inner_text() == "Взятие не засчитано"
    assert page.locator("#reason").get_attribute("data-reason") == "hand_full"
    assert page.locator("#big-card").count() == 0
    assert "K♦" not in page.inner_text("main") and codes["KD"][1] not in page.content()
    screenshot(page, "offline-360-hand-full")
    assert axe_violations(page) == []
    shown.append(("card", "rejected", "hand_full"))

    for step, card in enumerate(["TS", "AC"]):  # discard 2 with their codes (one step)
        page.goto(f"{url}/t/{codes[card][1]}")
        page.wait_for_selector("#confirm-yes")
        assert page.locator("h1").inner_text() == "Подтвердите"
        if step == 0:
            screenshot(page, "offline-360-confirm-discard")
        page.click("#confirm-yes")
        page.wait_for_selector("#take-status")
        assert page.locator("h1").inner_text().startswith("Карта сброшена")
        shown.append(("discard", "counted", None))
    assert "Сдача 1, раунд 2" in page.inner_text("#deal-round")
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣"]

    for card in ["KD", "5C"]:  # the hand_full CP counts now (I-1), then one more
        page.goto(f"{url}/t/{codes[card][0]}")
        page.wait_for_selector("#take-status")
        assert page.locator("h1").inner_text() == "Взятие засчитано"
        assert page.locator("#discard-code").inner_text() == codes[card][1]
        shown.append(("card", "counted", None))
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣", "K♦", "5♣"]

    page.goto(f"{url}/me/offline")  # save with a typed save code, after confirming
    assert page.locator("#takes li.pending").count() == 10  # every take waits to be sent
    screenshot(page, "offline-360-game")
    page.fill("#code", anna.save_codes[0].lower())
    page.get_by_role("button", name="Проверить код").click()
    page.wait_for_selector("#confirm-yes")
    page.click("#confirm-yes")
    page.wait_for_selector("#take-status")
    assert page.locator("h1").inner_text() == "Комбинация сохранена"
    assert page.locator("#category").inner_text() == "сет (тройка)"  # three queens
    assert "(тройка дам, кикеры король, пятёрка)" in page.inner_text("main")
    assert page.locator("#hand-value").count() == 0  # an empty hand has no value
    assert page.locator("#take-status").get_attribute("data-pending") == "true"
    shown.append(("save", "counted", None))
    assert page.locator("#hand li").count() == 0
    assert "Сдача 2, раунд 1" in page.inner_text("#deal-round")
    assert page.locator("#queue-count").get_attribute("data-count") == "11"
    screenshot(page, "offline-360-saved")
    page.emulate_media(color_scheme="dark")
    screenshot(page, "offline-360-saved-dark")
    page.emulate_media(color_scheme="light")
    assert takes_stored(engine) == 0  # the server has stored nothing

    flaky_server.start()  # the network is back: the periodic retry sends the queue
    page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
    assert page.locator("#take-status").get_attribute("data-pending") == "false"
    assert page.locator("#changes").count() == 0  # the server agreed on every outcome
    screenshot(page, "offline-360-synced")
    page.goto(f"{url}/me/offline")  # the saved combination with its description
    page.wait_for_selector(".combo")
    assert "тройка дам, кикеры король, пятёрка" in page.inner_text(".combo")

    with Session(engine) as db:
        participant = db.get(Participant, anna.id)
        state = feed_views.participant_state(db, participant, as_participant=False)
    assert [(t.kind, t.outcome, t.reason) for t in state.takes] == shown
    assert state.hand == [] and (state.deal, state.round) == (2, 1)
    (combination,) = state.combinations
    assert combination.cards == ["QH", "QD", "QC", "KD", "5C"]
    assert combination.category == "three_of_a_kind"
    assert {t.source for t in state.takes} == {state.takes[0].source}
    assert state.takes[0].source.startswith(f"phone-p{anna.id}-")
    assert takes_stored(engine) == 11
    assert errors == []


def test_the_phone_says_what_the_server_changed(flaky_server, pwa_phone):
    """While the phone is offline the organiser adds a take it did not know (a paper
    backup, earlier in field time): the server's replay (RULES.md I-4) makes the phone's
    5th card a hand_full take; after the sync the phone shows the server's hand and says
    which result changed."""
    url, engine = flaky_server.url, flaky_server.engine
    with Session(engine) as db:  # names that would end the shell's data block if not escaped
        event = make_event(db, name="Ночь </script><script>window.pwned=1</script>")
        codes = random_codes(db, event)
        anna = make_participant(db, event, "11", name="Анна <!-- </script>")
        db.commit()
        event_id = event.id
    page = pwa_phone.new_page()
    page.goto(f"{url}/p/{anna.access_token}")
    page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
    flaky_server.stop()
    start = datetime.now(UTC)
    for card in ["QH", "QD", "QC", "TS", "AC"]:
        page.goto(f"{url}/t/{codes[card][0]}")
        page.wait_for_selector("#take-status")
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣", "10♠", "A♣"]
    with Session(engine) as db:  # the organiser's correction, dated before the phone's takes
        feed_ingest.add_take(
            db, db.get(Event, event_id), participant="11", code=codes["2S"][0],
            taken_at=start - timedelta(minutes=5), note="paper card", source_id=None,
            actor="organiser",
        )  # fmt: skip
        db.commit()

    flaky_server.start()
    page.click("#send-now")
    page.wait_for_selector("#queue-count[data-count='0']", timeout=WAIT_MS)
    assert hand_shown(page) == ["2♠", "Q♥", "Q♦", "Q♣", "10♠"]
    (change,) = page.locator("#changes li").all_inner_texts()
    # the CP by its number, never its code (issue 26 point 3)
    assert change.startswith(f"КП {codes['AC'][2]} (A♣): засчитано → не засчитано")
    assert codes["AC"][0] not in change
    assert "В руке уже 5 карт" in change
    assert page.locator("h1").inner_text() == "Взятие не засчитано"  # the AC take's page now
    screenshot(page, "offline-360-changed")
    page.goto(f"{url}/me/offline")  # the names are text, not markup
    assert "Участник: Анна <!-- </script>" in page.inner_text("main")
    assert page.evaluate("window.pwned") is None
    page.set_viewport_size({"width": 1280, "height": 800})
    screenshot(page, "offline-1280-changed")

    page.goto(f"{url}/me")  # signing out turns the offline CP page off
    page.get_by_role("button", name="Выйти").click()
    page.wait_for_selector("html[data-offline=off]")
    page.goto(f"{url}/t/{codes['9H'][0]}")
    assert "ещё раз" in page.inner_text("main")  # the server's sign-in help: scan again
    assert takes_stored(engine) == 6


def test_after_the_close_the_shell_offers_no_take_as_the_server_page(flaky_server, pwa_phone):
    """The course closed with 5 unsaved cards in Anna's hand: nothing counts any more
    (RULES.md I-3). The server's /me and the offline shell both say the course is closed
    and the hand is not a combination, and neither asks her to discard or save nor offers
    the scanner or the code form; a CP the camera app opens offline afterwards is not
    counted, and its page offers no scanner either."""
    url, engine = flaky_server.url, flaky_server.engine
    now = datetime.now(UTC)
    with Session(engine) as db:
        event = make_event(
            db, opens_at=now - timedelta(hours=3), closes_at=now - timedelta(hours=1)
        )
        codes = random_codes(db, event)
        anna = make_participant(db, event, "11", name="Анна")
        for minute, card in enumerate(["QH", "QD", "QC", "TS", "AC"]):
            feed_ingest.add_take(
                db, event, participant="11", code=codes[card][0],
                taken_at=now - timedelta(hours=2, minutes=-minute), note="card",
                source_id=None, actor="organiser",
            )  # fmt: skip
        db.commit()
    page = pwa_phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/p/{anna.access_token}")
    page.wait_for_selector("html[data-offline=ready]", timeout=WAIT_MS)
    pages = {"server": page.inner_text("main")}
    assert page.locator("#scan-button, #code").count() == 0  # the server's rule
    page.goto(f"{url}/me/offline")
    page.wait_for_selector("#hand")
    pages["shell"] = page.inner_text("main")
    for where, text in pages.items():
        assert "Дистанция закрыта." in text, where
        assert "в руке 5 несохранённых карт" in text, where
        assert "Коды больше не принимаются" in text, where
        assert "Решите" not in text and "сохраните" not in text, where
    assert hand_shown(page) == ["Q♥", "Q♦", "Q♣", "10♠", "A♣"]
    assert page.locator("#scan-button, #code, #code-form, .next-step").count() == 0
    screenshot(page, "offline-360-closed")

    flaky_server.stop()  # the camera app opens a CP's link after the close, offline
    page.goto(f"{url}/t/{codes['2S'][0]}")
    page.wait_for_selector("#take-status")
    assert page.locator("h1").inner_text() == "Взятие не засчитано"
    assert page.locator("#scan-button, .next-step").count() == 0
    screenshot(page, "offline-360-closed-take")
    assert errors == []
