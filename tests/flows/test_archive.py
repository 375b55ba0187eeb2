"""The event archive: a simulated event moves SQLite -> PostgreSQL -> SQLite unchanged, and a
changed archive is refused with the difference named and nothing stored (app.flows.archive)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from app.core.db import make_engine
from app.events.models import Event
from app.main import create_app
from app.simulation.client import ApiClient
from app.simulation.runner import Simulation, SimulationConfig
from tests.conftest import ADMIN_TOKEN, make_settings, truncate_all

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def sqlite_engine(template: Path, path: Path) -> Engine:
    shutil.copyfile(template, path)
    return make_engine(make_settings(f"sqlite:///{path}"))


def client_on(engine: Engine) -> TestClient:
    url = engine.url.render_as_string(hide_password=False)
    return TestClient(create_app(make_settings(url), engine))


def export(client: TestClient, event_id: int) -> dict:
    response = client.get(f"/api/v1/events/{event_id}/archive", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"].startswith("attachment")
    return response.json()


def restore(client: TestClient, document: dict, status: int = 201) -> dict:
    response = client.post("/api/v1/events/import", json=document, headers=ADMIN)
    assert response.status_code == status, response.text
    return response.json()


def same_event(a: dict, b: dict) -> None:
    """Two archives describe the same event: deck, participants, heads, states,
    combinations (by participant), auction results."""
    ea, eb = a["expected"], b["expected"]
    assert ea["log"] == eb["log"] and ea["log"]["takes"] > 0 and ea["log"]["bids"] > 0

    def states(x: dict) -> dict:  # a combination's id is its save take's id in that database
        return {who: {**state, "combinations": [{**c, "id": None} for c in state["combinations"]]}
                for who, state in x["states"].items()}  # fmt: skip

    assert states(ea) == states(eb) and len(ea["states"]) == 30
    assert ea["results"] == eb["results"]
    assert [p["place"] for p in ea["results"]["places"] if p["awarded"]]

    def combinations(x: dict) -> list:
        return sorted((c["participant"], c["cards"], c["category"], c["deal"], c["saved_at"])
                      for c in x["expected"]["combinations"])  # fmt: skip

    assert combinations(a) == combinations(b) and combinations(a)
    strip = (
        "id",
        "event_id",
        "participant_id",
        "take_id",
        "bid_id",
        "auction_id",
        "round_id",
        "combination_id",
        "replaced_by_bid_id",
    )

    def rows(x: dict, key: str) -> list:
        return [{k: v for k, v in r.items() if k not in strip} for r in x[key]]

    for key in ("checkpoints", "participants", "save_codes", "takes", "take_voids", "bids",
                "bid_withdrawals"):  # fmt: skip
        assert rows(a, key) == rows(b, key), key


def test_simulated_event_moves_between_sqlite_and_postgresql(
    sqlite_template: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    pg = request.getfixturevalue("pg_engine")  # skipped without TEST_DATABASE_URL
    truncate_all(pg)
    field = sqlite_engine(sqlite_template, tmp_path / "field.db")
    back = sqlite_engine(sqlite_template, tmp_path / "back.db")
    try:
        with client_on(field) as source:
            result = Simulation(
                ApiClient(source, ADMIN_TOKEN), SimulationConfig(participants=30, seed=3)
            ).run()
            original = export(source, result.event_id)
            # The original is in this database: its codes are taken.
            assert restore(source, original, 409)["code"] == "archive_conflict"

        # One take changed in the archive (its code): refused, the take named, nothing stored.
        tampered = copy.deepcopy(original)
        take = tampered["takes"][len(tampered["takes"]) // 2]
        take["code"] = "X" + take["code"]
        owner = next(p["external_id"] for p in original["participants"]
                     if p["id"] == take["participant_id"])  # fmt: skip
        with client_on(pg) as server:
            refused = restore(server, tampered, 422)
            assert refused["code"] == "archive_mismatch"
            assert refused["differences"][0] == (
                f"participant {owner}: take {take['id']} of the archive (seq {take['log_seq']}) "
                "does not match its chain (hash)"
            )
            with Session(pg) as session:
                assert session.scalar(select(func.count()).select_from(Event)) == 0
            # The head fixed at the finish travels with the event row, checked on import.
            fixed = original["event"]["final_log_head"]
            assert fixed["head"] == original["expected"]["log"]["head"]
            forged = copy.deepcopy(original)
            forged["event"]["final_log_head"]["head"] = "0" * 64
            assert restore(server, forged, 422)["differences"] == [
                f"fixed head: recomputed {fixed['head']}, archived {'0' * 64}"
            ]

            moved = restore(server, original)
            assert moved["head"] == original["expected"]["log"]["head"]
            assert (
                server.get(f"/api/v1/events/{moved['event_id']}/log/head").json()["head"]
                == (original["expected"]["log"]["head"])
            )
            on_server = export(server, moved["event_id"])
        same_event(original, on_server)
        assert on_server["event"]["final_log_head"] == fixed

        with client_on(back) as laptop:
            home = restore(laptop, on_server)
            verified = laptop.get(f"/api/v1/events/{home['event_id']}/log/verify", headers=ADMIN)
            assert verified.json()["ok"] is True
            same_event(original, export(laptop, home["event_id"]))
    finally:
        field.dispose()
        back.dispose()
        truncate_all(pg)


def test_not_an_archive_is_refused(client: TestClient, admin: dict) -> None:
    for body in ({"format": "x"}, {"format": "rogaine-poker-event-archive", "version": 3},
                 {"format": "rogaine-poker-event-archive", "version": 1, "event": {}}):  # fmt: skip
        response = client.post("/api/v1/events/import", json=body, headers=admin)
        assert response.status_code == 422 and response.json()["code"] == "archive_invalid"
    assert client.post("/api/v1/events/import", json={}).status_code == 401


def test_cli_export_and_import(
    sqlite_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from app import cli
    from app.core.config import get_settings
    from tests.factories import event_cp_code, make_event, make_participant

    field = sqlite_engine(sqlite_template, tmp_path / "field.db")
    with Session(field) as session:
        event = make_event(session)
        make_participant(session, event, "7")
        session.commit()
        event_id, code = event.id, event_cp_code(event, "QH")
    with client_on(field) as client:
        taken = client.post(f"/api/v1/events/{event_id}/takes", headers=ADMIN, json={"takes": [
            {"participant": "7", "code": code, "taken_at": "2030-01-01T00:00:00Z",
             "source": "gps", "source_id": "1"}]})  # fmt: skip
        assert taken.status_code == 200
        head = client.get(f"/api/v1/events/{event_id}/log/head").json()["head"]
    field.dispose()
    archive_file = tmp_path / "event.json"

    def run(database: Path, *argv: str) -> int:
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{database}")
        get_settings.cache_clear()
        try:
            return cli.main(list(argv))
        finally:
            get_settings.cache_clear()

    assert run(tmp_path / "field.db", "export", "--event", str(event_id), "--out",
               str(archive_file)) == 0  # fmt: skip
    assert f"head {head}" in capsys.readouterr().out
    shutil.copyfile(sqlite_template, tmp_path / "server.db")
    assert run(tmp_path / "server.db", "import", str(archive_file)) == 0
    assert f"head {head} (verified)" in capsys.readouterr().out
    assert run(tmp_path / "server.db", "import", str(archive_file)) == 2  # already there
    assert "refused (archive_conflict)" in capsys.readouterr().err


def test_cli_export_is_refused_while_a_round_is_sealed(
    sqlite_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """An open auction holds sealed bids (RULES.md I-7, I-21): no archive, exit code 2,
    the reason on stderr, no file written."""
    from datetime import UTC, datetime, timedelta

    from app import cli
    from app.core.config import get_settings
    from tests.factories import make_event

    field = sqlite_engine(sqlite_template, tmp_path / "field.db")
    with Session(field) as session:
        past = datetime.now(UTC) - timedelta(minutes=1)
        event = make_event(session, opens_at=past - timedelta(hours=3), closes_at=past)
        session.commit()
        event_id = event.id
    with client_on(field) as client:
        opened = client.post(f"/api/v1/events/{event_id}/auctions/3/open", headers=ADMIN)
        assert opened.status_code == 200, opened.text
    field.dispose()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'field.db'}")
    get_settings.cache_clear()
    out = tmp_path / "event.json"
    try:
        assert cli.main(["export", "--event", str(event_id), "--out", str(out)]) == 2
    finally:
        get_settings.cache_clear()
    assert "refused (ceremony_not_revealed)" in capsys.readouterr().err
    assert not out.exists()


def test_source_clock_offsets_move_with_the_event(sqlite_template: Path, tmp_path: Path) -> None:
    """An organiser's source clock (RULES.md I-4: takes play at device time + offset) is
    part of the archive: QH stamped 30 min ago by a device set 2 h back falls before the
    opening (1 h ago), so the hand is empty here and after the move."""
    from datetime import UTC, datetime, timedelta

    from tests.factories import event_cp_code, make_event, make_participant

    field = sqlite_engine(sqlite_template, tmp_path / "field.db")
    with Session(field) as session:
        event = make_event(session)
        make_participant(session, event, "7")
        session.commit()
        event_id, code = event.id, event_cp_code(event, "QH")
    stamp = (datetime.now(UTC) - timedelta(minutes=30)).isoformat()
    with client_on(field) as client:
        taken = client.post(f"/api/v1/events/{event_id}/takes", headers=ADMIN, json={"takes": [
            {"participant": "7", "code": code, "taken_at": stamp, "source": "gps",
             "source_id": "1"}]})  # fmt: skip
        assert taken.json()["results"][0]["outcome"] == "counted"
        moved = client.put(f"/api/v1/events/{event_id}/sources/gps/clock", headers=ADMIN,
                           json={"offset_seconds": -7200})  # fmt: skip
        assert moved.status_code == 200, moved.text
        state = client.get(f"/api/v1/events/{event_id}/participants/7/state", headers=ADMIN)
        assert state.json()["hand"] == []
        document = export(client, event_id)
    field.dispose()
    assert [row["offset_seconds"] for row in document["source_clocks"]] == [-7200]

    server = sqlite_engine(sqlite_template, tmp_path / "server.db")
    with client_on(server) as client:
        restored = restore(client, document)
        new_id = restored["event_id"]
        state = client.get(f"/api/v1/events/{new_id}/participants/7/state", headers=ADMIN)
        assert state.json()["hand"] == []
        assert state.json()["takes"][0]["reason"] == "outside_course_hours"
    server.dispose()
