"""The demo event loaded by `make run` on an empty database."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.cli import build_parser, load_demo_if_empty, main
from app.core.config import get_settings
from app.core.security import hash_token
from app.events.demo import AREA_LAT, AREA_LON, load_demo
from app.events.models import Checkpoint, Participant
from tests.factories import DECK
from tests.iof.test_iof import valid

# Independent statement of each hint's meaning, by card code (rank char, suit char).
HINT_HOLDS = {
    "red suit": lambda c: c[1:] in ("H", "D"),
    "black suit": lambda c: c[1:] in ("S", "C"),
    "a picture card": lambda c: c[0] in "JQK" and c not in ("JK1", "JK2"),
    "not a picture card": lambda c: c in ("JK1", "JK2") or c[0] not in "JQK",
    "not a joker": lambda c: c not in ("JK1", "JK2"),
    "an ace": lambda c: c[0] == "A",
    "a number card, 2 to 10": lambda c: c[0] in "23456789T" and len(c) == 2,
    "higher than 8": lambda c: c[0] in "TJQKA" and len(c) == 2,
    "no suit at all": lambda c: c in ("JK1", "JK2"),
    "wild": lambda c: c in ("JK1", "JK2"),
}
# The same statements as the Russian demo words them.
HINT_HOLDS_RU = {
    "красная масть": HINT_HOLDS["red suit"],
    "чёрная масть": HINT_HOLDS["black suit"],
    "картинка (валет, дама или король)": HINT_HOLDS["a picture card"],
    "не картинка": HINT_HOLDS["not a picture card"],
    "не джокер": HINT_HOLDS["not a joker"],
    "туз": HINT_HOLDS["an ace"],
    "числовая карта, от 2 до 10": HINT_HOLDS["a number card, 2 to 10"],
    "старше восьмёрки": HINT_HOLDS["higher than 8"],
    "без масти": HINT_HOLDS["no suit at all"],
    "дикая карта": HINT_HOLDS["wild"],
}
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_demo_event(session, client: TestClient, admin: dict[str, str], lang: str) -> None:
    now = datetime.now(UTC)
    demo = load_demo(session, "http://demo.test", now=now, lang=lang)
    session.commit()
    event = demo.event
    assert event.status == "course_open"
    assert event.opens_at < now < event.closes_at
    assert event.deck_seed is not None
    checkpoints = session.scalars(
        select(Checkpoint).where(Checkpoint.event_id == event.id).order_by(Checkpoint.number)
    ).all()
    assert [cp.number for cp in checkpoints] == list(range(1, 55))
    assert sorted(cp.card for cp in checkpoints) == sorted(DECK)
    for cp in checkpoints:
        assert AREA_LAT[0] <= cp.lat <= AREA_LAT[1]
        assert AREA_LON[0] <= cp.lon <= AREA_LON[1]
        place, card_hint = cp.hint.split("; ")
        assert place and bool(CYRILLIC.search(place)) == (lang == "ru")
        holds = HINT_HOLDS_RU if lang == "ru" else HINT_HOLDS
        assert holds[card_hint](cp.card), (cp.card, cp.hint)
    assert bool(CYRILLIC.search(event.name)) == (lang == "ru")
    names = [p.name for p in demo.participants]
    expected = ["Анна Петрова", "Борис Иванов", "Команда «Лось»", "Команда «Лиса»"]
    assert names == (
        expected if lang == "ru" else ["Anna Petrova", "Boris Ivanov", "Team Elk", "Team Fox"]
    )
    assert len(demo.participants) == 4
    for runner in demo.participants:
        stored = session.scalar(
            select(Participant).where(
                Participant.event_id == event.id, Participant.external_id == runner.external_id
            )
        )
        assert stored.access_token_hash == hash_token(runner.access_token)
        assert runner.personal_url == f"http://demo.test/p/{runner.access_token}"
        assert len(runner.save_codes) == 10
    event_id = event.id
    session.rollback()  # end the read transaction (SQLite: it holds the write lock)
    # The demo is an ordinary event for the API.
    listed = client.get(f"/api/v1/events/{event_id}/participants", headers=admin).json()
    assert len(listed["participants"]) == 4
    assert len(client.get(f"/api/v1/events/{event_id}/checkpoints").json()["checkpoints"]) == 54


def test_serve_loads_the_demo_only_into_an_empty_database(settings) -> None:
    text = load_demo_if_empty(settings)
    assert text is not None
    assert text.count("http://testserver/p/") == 4
    event_id = re.search(r"Demo event (\d+):", text).group(1)
    # a new team finds its own pages: the members page and the hall screen
    assert f"Team (members, roles): http://testserver/admin/events/{event_id}/members" in text
    assert f"Hall screen:           http://testserver/hall/{event_id}" in text
    assert load_demo_if_empty(settings) is None


def test_cli_has_a_demo_command_in_russian_or_english() -> None:
    args = build_parser().parse_args(["demo"])
    assert args.func.__name__ == "cmd_demo" and args.lang == "ru"
    assert build_parser().parse_args(["demo", "--lang", "en"]).lang == "en"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--lang", "de"])


@pytest.mark.parametrize(
    ("argv", "env", "base"),
    [
        ([], {"PORT": "9000"}, "http://127.0.0.1:9000"),
        ([], {"HOST": "0.0.0.0", "PORT": "9001"}, "http://0.0.0.0:9001"),
        (["--port", "9002"], {"PORT": "9000"}, "http://127.0.0.1:9002"),
        (
            ["--port", "9002"],
            {"BASE_URL": "https://poker.example.org/"},
            "https://poker.example.org",
        ),
    ],
)
def test_demo_links_use_the_served_address(
    monkeypatch, capsys, database_url, argv, env, base
) -> None:
    """Like `make run`: BASE_URL when set, else http://HOST:PORT (`--host`/`--port` first)."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    for name in ("BASE_URL", "HOST", "PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        assert main(["demo", *argv]) == 0
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr().out
    assert out.count(f"{base}/p/") == 4
    assert f"{base}/admin/login?next=/admin/events/" in out  # pages, not the raw API
    assert f"{base}/admin/events/" in out and "/api/v1/" not in out
    assert ":8000" not in out


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_demo_teams_are_teams_and_export_as_team_entries(
    session, client: TestClient, admin: dict[str, str], lang: str
) -> None:
    """The demo's two "Команда …"/"Team …" are kind team, so the IOF EntryList writes
    them as TeamEntry (README "IOF XML 3.0") and the two persons as PersonEntry."""
    demo = load_demo(session, "http://demo.test", lang=lang)
    session.commit()
    event_id = demo.event.id
    kinds = dict(
        session.execute(
            select(Participant.external_id, Participant.kind).where(
                Participant.event_id == event_id
            )
        ).all()
    )
    assert kinds == {"101": "person", "102": "person", "103": "team", "104": "team"}
    session.rollback()
    ns = {"i": "http://www.orienteering.org/datastandard/3.0"}
    exported = client.get(f"/api/v1/events/{event_id}/iof/entry-list.xml", headers=admin)
    document = valid(exported.content)
    teams = [e.findtext("i:Name", namespaces=ns) for e in document.iterfind("i:TeamEntry", ns)]
    persons = [e.findtext("i:Id", namespaces=ns) for e in document.iterfind("i:PersonEntry", ns)]
    expected = ["Команда «Лось»", "Команда «Лиса»"] if lang == "ru" else ["Team Elk", "Team Fox"]
    assert (teams, persons) == (expected, ["101", "102"])
