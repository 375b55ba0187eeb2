"""Organiser setup pages through TestClient: every form's happy path with the values read
back from the database, and a refusal shown on the page (by row for CSV imports)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.events.models import Checkpoint, Event, Participant
from tests.factories import event_cp_code, make_event, make_participant
from tests.web.test_signin import admin_login, csrf_of


@pytest.fixture
def desk(client: TestClient) -> TestClient:
    """The signed-in organiser."""
    admin_login(client)
    return client


def fresh(session: Session) -> None:
    """End the test session's transaction (on SQLite every transaction holds the write
    lock, BEGIN IMMEDIATE) and forget what it read, so the next read sees the pages' writes."""
    session.rollback()
    session.expire_all()


def token_of(client: TestClient, url: str) -> str:
    return csrf_of(client.get(url).text)


def post(client: TestClient, url: str, page: str, **kwargs):
    """Submit a form of `page` (its CSRF token) and follow the redirect back."""
    data = {"csrf_token": token_of(client, page), **kwargs.pop("data", {})}
    return client.post(url, data=data, **kwargs)


def new_event(client: TestClient, **fields) -> object:
    form = {
        "name": "Ночной рогейн",
        "opens_at": "2026-06-13T12:00",
        "closes_at": "2026-06-14T06:00",
        "timezone": "Europe/Moscow",
        "hand_ranking": "classic",
        "save_codes_per_participant": "7",
        "award_places": "3",
        **fields,
    }
    return post(client, "/admin/new-event", "/admin/new-event", data=form)


def test_create_an_event_in_event_time(desk: TestClient, session: Session):
    page = new_event(desk)
    assert page.status_code == 200
    event = session.scalars(select(Event)).one()
    assert page.url.path == f"/admin/events/{event.id}/checkpoints"
    assert "Событие создано" in page.text
    # 12:00 in Moscow (UTC+3) is 09:00 UTC.
    assert event.opens_at == datetime(2026, 6, 13, 9, 0, tzinfo=UTC)
    assert event.closes_at == datetime(2026, 6, 14, 3, 0, tzinfo=UTC)
    assert (event.name, event.timezone, event.hand_ranking) == (
        "Ночной рогейн",
        "Europe/Moscow",
        "classic",
    )
    assert event.save_codes_per_participant == 7 and event.status == "draft"
    fresh(session)
    # The events list shows the window in the event's own time, not UTC.
    listing = desk.get("/admin").text
    assert "2026-06-13 12:00 — 2026-06-14 06:00" in listing and "UTC" not in listing


def test_a_refused_event_form_keeps_its_values_and_names_the_field(
    desk: TestClient, session: Session
):
    page = new_event(desk, closes_at="2026-06-13T11:00", name="Окно наоборот")
    assert page.url.path == "/admin/new-event"
    assert "Проверьте поля формы." in page.text
    assert "закрытие дистанции" in page.text  # the field, in the page language
    assert 'value="Окно наоборот"' in page.text
    assert session.scalars(select(Event)).all() == []
    fresh(session)
    edge = new_event(desk, opens_at="0001-01-01T00:00")  # before UTC's year 1: refused
    assert edge.url.path == "/admin/new-event" and "открытие дистанции" in edge.text
    unknown_zone = new_event(desk, timezone="Mars/Olympus")
    assert "часовой пояс" in unknown_zone.text
    assert session.scalars(select(Event)).all() == []
    # The problems themselves in the page language, not the API's English messages.
    assert "Конец дистанции должен быть позже её начала." in page.text
    assert "Value error" not in page.text and "must be after" not in page.text
    assert "Неизвестный часовой пояс «Mars/Olympus»" in unknown_zone.text
    fresh(session)
    desk.get("/lang/en")
    english = new_event(desk, closes_at="2026-06-13T11:00")
    assert "The course must close after it opens." in english.text


def test_edit_the_events_other_fields(desk: TestClient, session: Session):
    event = make_event(session, name="Старое имя")
    make_participant(session, event, "1")
    session.commit()
    event_id = event.id
    url = f"/admin/events/{event_id}/settings"
    page = post(
        desk,
        url,
        url,
        data={
            "name": "Новое имя",
            "timezone": "Asia/Yekaterinburg",
            "hand_ranking": "seed",
            "save_codes_per_participant": "10",
            "award_places": "2",
        },
    )
    assert "Настройки сохранены." in page.text
    fresh(session)
    stored = session.get(Event, event_id)
    assert (stored.name, stored.timezone, stored.award_places) == (
        "Новое имя",
        "Asia/Yekaterinburg",
        2,
    )
    fresh(session)
    # Participants have their 10 save codes: the number cannot change now (nothing stored).
    refused = post(
        desk,
        url,
        url,
        data={
            "name": "Третье имя",
            "timezone": "Asia/Yekaterinburg",
            "hand_ranking": "seed",
            "save_codes_per_participant": "5",
            "award_places": "2",
        },
    )
    assert "Участники уже получили коды сохранения" in refused.text
    fresh(session)
    assert session.get(Event, event_id).name == "Новое имя"


def test_shuffle_with_a_seed_deals_the_seeded_deck(desk: TestClient, session: Session):
    new_event(desk)
    event_id = session.scalars(select(Event.id)).one()
    fresh(session)
    url = f"/admin/events/{event_id}/checkpoints"
    page = post(desk, f"{url}/shuffle", url, data={"seed": "42"})
    assert "Колода перетасована." in page.text
    fresh(session)
    assert session.get(Event, event_id).deck_seed == 42
    cards = session.scalars(
        select(Checkpoint.card).where(Checkpoint.event_id == event_id).order_by(Checkpoint.number)
    ).all()
    fresh(session)
    from app.events.rules import deal

    dealt = deal(42, list(range(1, 55)))
    assert cards == [dealt[n] for n in range(1, 55)] and len(set(cards)) == 54
    bad = post(desk, f"{url}/shuffle", url, data={"seed": "сорок два"})
    assert "зерно" in bad.text and "not a whole number" in bad.text
    fresh(session)
    assert session.get(Event, event_id).deck_seed == 42


def test_upload_the_deck_csv_and_see_errors_by_row(desk: TestClient, session: Session):
    new_event(desk)
    event_id = session.scalars(select(Event.id)).one()
    fresh(session)
    url = f"/admin/events/{event_id}/checkpoints"
    bad_csv = "number,card,lat,lon,hint\n1,QH,55.8,37.7,Ель\n2,XX,55.8,37.7,\n3,QH,95,37.7,\n"
    page = post(
        desk, f"{url}/import", url, files={"file": ("deck.csv", bad_csv.encode(), "text/csv")}
    )
    assert "В CSV есть ошибки" in page.text
    rows = re.findall(r"<td>строка (\d+)</td><td>([^<]+)</td>", page.text)
    assert ("3", "карта") in rows  # XX is not a card
    assert ("4", "широта") in rows  # 95 is out of range
    assert session.scalars(select(Checkpoint)).all() == []
    fresh(session)

    good_csv = "number;card;lat;lon;hint\n1;QH;55,8;37,7;Большая ель\n2;JK;55.81;37.71;Яма\n"
    page = post(
        desk, f"{url}/import", url, files={"file": ("deck.csv", good_csv.encode(), "text/csv")}
    )
    assert "КП загружены из CSV." in page.text
    stored = session.scalars(
        select(Checkpoint).where(Checkpoint.event_id == event_id).order_by(Checkpoint.number)
    ).all()
    assert [(cp.number, cp.card, cp.lat, cp.hint) for cp in stored] == [
        (1, "QH", 55.8, "Большая ель"),
        (2, "JK1", 55.81, "Яма"),
    ]


def test_edit_a_hint_and_coordinates_in_place_and_preview_the_public_list(
    desk: TestClient, session: Session
):
    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/checkpoints"
    page = post(desk, f"{url}/5", url, data={"lat": "55,75", "lon": "37.61", "hint": "У родника"})
    assert "КП сохранён." in page.text
    fresh(session)
    cp = session.scalars(
        select(Checkpoint).where(Checkpoint.event_id == event.id, Checkpoint.number == 5)
    ).one()
    assert (cp.lat, cp.lon, cp.hint) == (55.75, 37.61, "У родника")
    cp_id, cp_code = cp.id, cp.code
    fresh(session)
    refused = post(desk, f"{url}/5", url, data={"lat": "север", "lon": "", "hint": "x"})
    assert "широта" in refused.text
    fresh(session)
    assert session.get(Checkpoint, cp_id).hint == "У родника"
    fresh(session)

    public = desk.get(f"{url}/public").text
    assert "У родника" in public and "55.75000, 37.61000" in public
    assert cp_code not in public and "6♠" not in public  # no card, no code
    assert desk.get(f"{url.rsplit('/', 1)[0]}/print/checkpoints").status_code == 200


def test_add_a_participant_and_see_the_link_once(desk: TestClient, session: Session):
    event = make_event(session, save_codes_per_participant=4)
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    page = post(desk, url, url, data={"name": "Анна Петрова", "external_id": "", "category": "Ж"})
    assert "Участник добавлен." in page.text
    link = re.search(r'id="new-link" href="([^"]+)"', page.text).group(1)
    person = session.scalars(select(Participant).where(Participant.event_id == event.id)).one()
    assert (person.name, person.external_id, person.category) == ("Анна Петрова", "1", "Ж")
    fresh(session)
    assert 'id="new-link"' not in desk.get(url).text  # shown once
    phone = TestClient(desk.app)
    assert phone.get(link.replace("http://testserver", "")).url.path == "/me"

    taken = post(desk, url, url, data={"name": "Борис", "external_id": "1", "category": ""})
    assert "Этот номер уже занят." in taken.text
    assert len(session.scalars(select(Participant)).all()) == 1


def test_import_participants_with_errors_by_row_then_print_their_cards(
    desk: TestClient, session: Session
):
    event = make_event(session)
    make_participant(session, event, "7")
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    bad = "name,external_id,category\nАнна,101,Ж\n,102,М\nБорис,7,М\n"
    page = post(desk, f"{url}/import", url, files={"file": ("p.csv", bad.encode(), "text/csv")})
    assert "В CSV есть ошибки" in page.text
    rows = re.findall(r"<td>строка (\d+)</td><td>([^<]+)</td>", page.text)
    assert rows == [("3", "имя / название"), ("4", "номер участника")]
    assert len(session.scalars(select(Participant)).all()) == 1
    fresh(session)

    good = "name,external_id,category\nАнна,101,Ж\nБорис,,М\n"
    page = post(desk, f"{url}/import", url, files={"file": ("p.csv", good.encode(), "text/csv")})
    assert "Участники загружены." in page.text
    names = session.execute(
        select(Participant.external_id, Participant.name).order_by(Participant.id)
    ).all()
    assert [tuple(n) for n in names] == [("7", "Participant 7"), ("101", "Анна"), ("102", "Борис")]
    fresh(session)

    cards = post(desk, url.replace("/participants", "/participant-cards"), url)
    assert cards.status_code == 200
    assert "Коды сохранения" in cards.text and "Save codes" not in cards.text
    assert cards.text.count('class="card"') == 3


def test_reissue_a_link_and_remove_a_participant_before_the_start(
    client: TestClient, session: Session
):
    event = make_event(session)
    anna = make_participant(session, event, "31", name="Анна")
    boris = make_participant(session, event, "32", name="Борис")
    session.commit()
    phone = TestClient(client.app)
    phone.get(f"/p/{anna.access_token}")
    phone.get(f"/t/{event_cp_code(event, '2S')}")  # Anna has a take now
    admin_login(client)
    url = f"/admin/events/{event.id}/participants"

    page = post(client, f"{url}/31/access-token", url)
    assert "Выдана новая ссылка" in page.text
    new_link = re.search(r'id="new-link" href="([^"]+)"', page.text).group(1)
    assert anna.access_token not in new_link
    assert TestClient(client.app).get(f"/p/{anna.access_token}").status_code == 404

    refused = post(client, f"{url}/31/delete", url)
    assert "У участника уже есть взятия" in refused.text
    removed = post(client, f"{url}/32/delete", url)
    assert "Участник удалён." in removed.text
    left = session.scalars(select(Participant.external_id)).all()
    assert left == ["31"] and boris.external_id not in removed.text.split("<tbody>")[1]


@pytest.mark.parametrize(
    "path",
    [
        "/admin/new-event",
        "/admin/events/{id}/settings",
        "/admin/events/{id}/checkpoints/shuffle",
        "/admin/events/{id}/checkpoints/3",
        "/admin/events/{id}/participants",
        "/admin/events/{id}/participants/31/access-token",
        "/admin/events/{id}/participants/31/delete",
    ],
)
def test_every_setup_form_needs_the_csrf_token(desk: TestClient, session: Session, path: str):
    event = make_event(session, name="Без изменений")
    make_participant(session, event, "31")
    session.commit()
    response = desk.post(
        path.format(id=event.id), data={"csrf_token": "forged", "name": "X", "seed": "1"}
    )
    assert response.status_code == 403
    assert "Форма устарела" in response.text
    fresh(session)
    assert session.get(Event, event.id).name == "Без изменений"
    assert len(session.scalars(select(Participant)).all()) == 1


def test_import_an_iof_entry_list_on_the_participants_page(desk: TestClient, session: Session):
    from tests.iof.test_iof import ENTRY_LIST

    event = make_event(session)
    session.commit()
    url = f"/admin/events/{event.id}/participants"
    page = post(
        desk, f"{url}/import", url, files={"file": ("entries.xml", ENTRY_LIST, "application/xml")}
    )
    assert "Участники загружены." in page.text
    stored = session.execute(select(Participant.external_id, Participant.name)).all()
    assert sorted(tuple(row) for row in stored) == [
        ("301", "Анна Петрова"),
        ("302", "Егор Орлов"),
        ("303", "Номера Без"),
        ("T17", "Лоси"),
    ]
    fresh(session)
    again = post(
        desk, f"{url}/import", url, files={"file": ("entries.xml", ENTRY_LIST, "application/xml")}
    )
    assert "В файле IOF XML есть ошибки" in again.text
    # by entry (and the file's line), not "строка": the ids of all three are taken
    assert re.findall(
        r"<td>запись (\d+) \(строка файла (\d+)\)</td><td>([^<]+)</td>", again.text
    ) == [
        ("1", "4", "номер участника"),
        ("2", "9", "номер участника"),
        ("3", "15", "номер участника"),
    ]


def test_a_ranking_change_that_replays_takes_is_previewed_then_confirmed(
    client: TestClient, session: Session
):
    event = make_event(session, hand_ranking="seed")
    anna = make_participant(session, event, "31", name="Анна")
    session.commit()
    event_id = event.id
    phone = TestClient(client.app)
    phone.get(f"/p/{anna.access_token}")
    for card in ("2S", "3S"):
        phone.get(f"/t/{event_cp_code(event, card)}")
    admin_login(client)
    url = f"/admin/events/{event_id}/settings"
    fields = {
        "name": "Test rogaine",
        "timezone": "Europe/Moscow",
        "hand_ranking": "classic",
        "save_codes_per_participant": "10",
        "award_places": "3",
    }
    preview = post(client, url, url, data=fields)
    assert preview.url.path == url and "Сменить порядок комбинаций?" in preview.text
    assert "2 взятия" in preview.text  # the replay summary of the preview
    fresh(session)
    assert session.get(Event, event_id).hand_ranking == "seed"  # nothing stored yet
    fresh(session)
    applied = post(client, url, url, data={**fields, "confirm": "1"})
    assert "Настройки сохранены." in applied.text
    fresh(session)
    assert session.get(Event, event_id).hand_ranking == "classic"
