"""Issue 26 point 8, the smaller items, one test each: Russian CSV errors on the organiser
pages, phone sources in words, one scan hint on /me, the unsaved hand after the close
(RULES.md I-3), an unknown scanned QR, the draft status in words. (The re-print that
keeps links: tests/web/test_printing_safely.py.)"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import livelog
from app.events.models import Event
from app.web.i18n import label, translate
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_participant_pages import signed_in
from tests.web.test_setup_pages import desk, fresh, new_event, post  # noqa: F401 (fixture)


def test_deck_and_participant_csv_errors_are_in_russian(desk: TestClient, session: Session):  # noqa: F811
    new_event(desk)
    event_id = session.scalars(select(Event.id)).one()
    fresh(session)
    url = f"/admin/events/{event_id}/checkpoints"
    bad = "number,card\n1,QH\n2,XX\n1,QD\n4,QH\n5,\n"
    text = post(desk, f"{url}/import", url,
                files={"file": ("deck.csv", bad.encode(), "text/csv")}).text  # fmt: skip
    assert "«XX» — не карта колоды" in text
    assert "КП 1 указан дважды" in text
    assert "Q♥ дважды в колоде" in text
    assert "обязательное поле" in text
    for english in ("not a card of the deck", "appears twice", "is required"):
        assert english not in text
    people = f"/admin/events/{event_id}/participants"
    bad = "name,external_id\nАнна,7\nБорис,7\n,8\n"
    text = post(desk, f"{people}/import", people,
                files={"file": ("people.csv", bad.encode(), "text/csv")}).text  # fmt: skip
    assert "«7» указан дважды" in text and "обязательное поле" in text
    assert "appears twice" not in text and "is required" not in text


def test_a_phone_device_source_is_named_in_words():
    assert label("ru", "source", "phone-p13-d93348ca3f1d73cb") == (
        "телефон без сети, устройство d93348"
    )
    assert label("en", "source", "phone") == "phone"
    assert label("ru", "source", "si-station") == "si-station"  # an integration's own name


def test_my_game_shows_the_scan_hint_once(client: TestClient, session: Session):
    event = make_event(session)
    anna = make_participant(session, event, "95")
    session.commit()
    signed_in(client, anna.access_token)
    hint = translate("ru", "game.scan_hint")
    assert client.get("/me").text.count(hint) == 1


def test_an_unsaved_hand_after_the_close_is_said_not_to_be_a_combination(
    client: TestClient, session: Session
):
    now = datetime.now(UTC)
    event = make_event(session, opens_at=now - timedelta(hours=3))
    anna = make_participant(session, event, "96")
    session.commit()
    signed_in(client, anna.access_token)
    for card in ("2S", "3S"):
        client.get(f"/t/{event_cp_code(event, card)}")
    assert 'id="unsaved-hand"' not in client.get("/me").text  # still open
    event.closes_at = now - timedelta(minutes=1)
    livelog.changed(session, event.id, "event", stage=True)  # as update_event names it
    session.commit()
    page = client.get("/me").text
    notice = re.search(r'id="unsaved-hand">([^<]+)<', page).group(1)
    assert "2 несохранённых карт" in notice and "не комбинация" in notice


def test_an_unknown_scanned_qr_is_not_told_to_check_the_typing(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "97")
    session.commit()
    signed_in(client, anna.access_token)
    scanned = client.get("/t/NOT-A-CP-OF-THIS-EVENT")
    assert "?via=qr" in str(scanned.url)
    assert translate("ru", "reason.unknown_qr") in scanned.text
    assert "Проверьте, что ввели" not in scanned.text


def test_the_draft_status_says_that_takes_count():
    assert translate("ru", "event.status.draft") == (
        "подготовка (взятия в окне дистанции засчитываются)"
    )
