"""What decides a result besides takes and bids is chained too (issue 23, item 5): the
organiser's source clock offsets, the participants' identities (external id, name,
category) and the audit entries that decide (the lots drawn). An edit behind the
service's back is named by `log/verify` and by an archive import; PostgreSQL refuses
the edit; an archive with a time out of range is refused as invalid (app.flows.log_chain,
app.flows.archive, migration 0013_chain_decisions)."""

from __future__ import annotations

import copy
import json
import random
import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app import cli
from app.core import chain
from app.core.audit import AuditEntry
from app.core.config import get_settings
from app.core.db import make_engine
from app.events.models import Event
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.factories import make_event, make_participant
from tests.feed.conftest import CLOSES, OPENS, World, at

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
ALICE = ["AH", "KH", "9H", "5H", "2H"]  # flush A-K-9-5-2 in hearts
BOB = ["AS", "KS", "9S", "5S", "2S"]  # the same flush in spades: a tie, decided by lots
SEED = 20260613


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def verify(client: TestClient, event_id: int) -> dict:
    return ok(client.get(f"/api/v1/events/{event_id}/log/verify", headers=ADMIN))


def _edit(session: Session, statement, **params) -> None:
    """Edit a row behind the service's back (on PostgreSQL with the triggers disabled for
    this transaction, as a superuser could)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL session_replication_role = replica"))
    session.execute(text(statement) if isinstance(statement, str) else statement, params)
    session.commit()


def cli_verify(session: Session, event_id: int, monkeypatch, capsys) -> tuple[int, str]:
    monkeypatch.setenv("DATABASE_URL", session.get_bind().url.render_as_string(False))
    get_settings.cache_clear()
    try:
        status = cli.main(["verify", "--event", str(event_id)])
    finally:
        get_settings.cache_clear()
    return status, capsys.readouterr().out


def take(w: World, who: str, code: str, minute: float, source: str = "gps") -> dict:
    return {"participant": who, "code": code, "taken_at": at(minute).isoformat(),
            "source": source, "source_id": f"{who}-{minute}"}  # fmt: skip


def deliver(client: TestClient, event_id: int, takes: list[dict]) -> list[dict]:
    body = ok(client.post(f"/api/v1/events/{event_id}/takes", json={"takes": takes},
                          headers=ADMIN))  # fmt: skip
    return body["results"]


# -- verify names the edited row --------------------------------------------------------------


def test_an_edited_clock_offset_is_named_by_verify(
    client: TestClient, world: World, session: Session, monkeypatch, capsys
) -> None:
    """Bob's watch stamped 2♠ 3 minutes after the close; the organiser set its offset to
    +60 s (still outside the course hours). Someone sets −300 s in the database and
    rebuilds: 2♠ now counts. `verify` names the clock row."""
    stamp = CLOSES + timedelta(minutes=3)
    [first] = deliver(client, world.id, [{
        "participant": "102", "code": world.cp("2S"), "taken_at": stamp.isoformat(),
        "source": "watch", "source_id": "w-1"}])  # fmt: skip
    assert (first["outcome"], first["reason"]) == ("rejected", "outside_course_hours")
    ok(client.put(f"/api/v1/events/{world.id}/sources/watch/clock", headers=ADMIN,
                  json={"offset_seconds": 60}))  # fmt: skip
    before = verify(client, world.id)
    assert (before["ok"], before["clocks"]) == (True, 1)
    clock_id = session.execute(text("SELECT id FROM source_clock")).scalar_one()
    session.rollback()

    _edit(session, "UPDATE source_clock SET offset_seconds = -300 WHERE id = :id", id=clock_id)
    ok(client.post(f"/api/v1/events/{world.id}/rebuild", headers=ADMIN))
    bob = ok(client.get(f"/api/v1/events/{world.id}/participants/102/state", headers=ADMIN))
    assert bob["hand"] == ["2S"]  # what the edit bought
    report = verify(client, world.id)
    assert report["ok"] is False
    assert report["first_mismatch"] == {
        "chain": "clocks", "row": f"source_clock {clock_id}", "seq": 1, "problem": "hash"
    }  # fmt: skip
    status, out = cli_verify(session, world.id, monkeypatch, capsys)
    assert status == 2 and f"MISMATCH in clocks: source_clock {clock_id} (seq 1): hash" in out
    assert ("(version 2) over 1 take row, 0 bid rows, 1 clock row, 0 decisions and 2 identity "
            "rows in 3 chains") in out  # fmt: skip


def test_a_participant_renamed_in_the_database_is_named_by_verify(
    client: TestClient, world: World, session: Session
) -> None:
    """A rename through the service appends an identity row (verify stays ok, the head
    moves); a rename in the database does not, and verify names the participant row;
    an edit of the identity row itself breaks its hash."""
    head = ok(client.get(f"/api/v1/events/{world.id}/log/head"))
    assert (head["identities"], verify(client, world.id)["ok"]) == (2, True)
    renamed = client.patch(f"/api/v1/events/{world.id}/participants/101", headers=ADMIN,
                           json={"name": "Alice Smith", "category": "W21"})  # fmt: skip
    assert renamed.status_code == 200, renamed.text
    after = verify(client, world.id)
    assert (after["ok"], after["identities"]) == (True, 3)
    assert after["head"] not in (head["head"],)
    rows = session.execute(text(
        "SELECT change, external_id, name, category, log_seq FROM participant_identity "
        "WHERE participant_id = :id ORDER BY log_seq"), {"id": world.alice.id}).all()  # fmt: skip
    session.rollback()
    assert [tuple(r) for r in rows] == [
        ("create", "101", "Alice", None, 1), ("update", "101", "Alice Smith", "W21", 3)
    ]  # fmt: skip

    _edit(session, "UPDATE participant SET name = 'Mallory' WHERE id = :id", id=world.alice.id)
    assert verify(client, world.id)["first_mismatch"] == {
        "chain": "identities", "row": f"participant {world.alice.id}", "seq": 3,
        "problem": "identity",
    }  # fmt: skip
    # Covering it up in the identity log breaks that row's hash instead.
    _edit(session, "UPDATE participant_identity SET name = 'Mallory' WHERE log_seq = 3 "
                   "AND participant_id = :id", id=world.alice.id)  # fmt: skip
    identity_id = session.execute(
        text("SELECT id FROM participant_identity WHERE log_seq = 3")
    ).scalar_one()
    session.rollback()
    assert verify(client, world.id)["first_mismatch"] == {
        "chain": "identities", "row": f"participant_identity {identity_id}", "seq": 3,
        "problem": "hash",
    }  # fmt: skip


def _lots_ceremony(client: TestClient, w: World) -> dict:
    """Alice and Bob save the same flush (hearts, spades); both bid it for place 3 and
    nobody can rebid: lots with seed SEED decide (RULES.md I-9). Revealed. The close's
    answer."""
    deliver(client, w.id, [take(w, "101", w.cp(c), m) for m, c in enumerate(ALICE, start=1)]
            + [take(w, "101", w.alice.save_codes[0], 6)])  # fmt: skip
    deliver(client, w.id, [take(w, "102", w.cp(c), m) for m, c in enumerate(BOB, start=11)]
            + [take(w, "102", w.bob.save_codes[0], 16)])  # fmt: skip
    ok(client.put(f"/api/v1/events/{w.id}/sources/gps/clock", headers=ADMIN,
                  json={"offset_seconds": 1.5}))  # fmt: skip
    base = f"/api/v1/events/{w.id}/auctions/3"
    ok(client.post(f"{base}/open", headers=ADMIN))
    for who in ("101", "102"):
        state = ok(client.get(f"/api/v1/events/{w.id}/participants/{who}/state", headers=ADMIN))
        bid = {"participant": who, "combination_id": state["combinations"][0]["id"]}
        ok(client.post(f"{base}/bids", headers=ADMIN, json=bid), 201)
    closed = ok(client.post(f"{base}/close", headers=ADMIN, json={"lots_seed": SEED}))
    ok(client.post(f"{base}/reveal", headers=ADMIN, json={"all": True}))
    return closed


def test_an_edited_lots_entry_is_named_by_verify(
    client: TestClient, world: World, session: Session
) -> None:
    closed = _lots_ceremony(client, world)
    winner = random.Random(SEED).choice(["101", "102"])  # the documented recipe
    assert closed["lots"] == {"seed": SEED, "candidates": ["101", "102"], "winner": winner}
    report = verify(client, world.id)
    assert (report["ok"], report["decisions"], report["clocks"]) == (True, 1, 1)
    lots = session.execute(
        select(AuditEntry.id, AuditEntry.details, AuditEntry.log_seq).where(
            AuditEntry.event_id == world.id, AuditEntry.action == "auction.lots"
        )
    ).one()
    session.rollback()
    assert lots.log_seq == 1 and lots.details["winner"] == winner
    loser = "101" if winner == "102" else "102"
    table = AuditEntry.__table__
    _edit(session, update(table).where(table.c.id == lots.id)
          .values(details={**lots.details, "winner": loser}))  # fmt: skip
    assert verify(client, world.id)["first_mismatch"] == {
        "chain": "decisions", "row": f"audit_entry {lots.id}", "seq": 1, "problem": "hash"
    }  # fmt: skip


def test_postgresql_refuses_to_edit_or_delete_decision_rows(
    client: TestClient, world: World, session: Session
) -> None:
    if session.get_bind().dialect.name != "postgresql":
        pytest.skip("the append-only trigger is PostgreSQL's")
    _lots_ceremony(client, world)
    for statement in (
        "UPDATE source_clock SET offset_seconds = -300",
        "DELETE FROM source_clock",
        "UPDATE participant_identity SET name = 'Mallory'",
        "DELETE FROM participant_identity",
        "UPDATE audit_entry SET details = '{}' WHERE action = 'auction.lots'",
        "UPDATE audit_entry SET actor = 'x'",
        "DELETE FROM audit_entry",
    ):
        with pytest.raises(DBAPIError, match="append-only"):
            session.execute(text(statement))
        session.rollback()
    # The participant row itself may be edited (by the service, which logs an identity row).
    session.execute(text("UPDATE participant SET name = 'Alice Smith' WHERE id = :id"),
                    {"id": world.alice.id})  # fmt: skip
    session.rollback()
    assert verify(client, world.id)["ok"] is True


# -- an edited archive is refused naming the row ------------------------------------------------


@pytest.fixture
def lots_archive(sqlite_template: Path, tmp_path: Path) -> dict:
    """The archive of a finished lots ceremony, played on its own SQLite database."""
    path = tmp_path / "field.db"
    shutil.copyfile(sqlite_template, path)
    engine = make_engine(make_settings(f"sqlite:///{path}"))
    try:
        with Session(engine) as session:
            event = make_event(session, opens_at=OPENS, closes_at=CLOSES)
            w = World(event.id, make_participant(session, event, "101", "Alice"),
                      make_participant(session, event, "102", "Bob"))  # fmt: skip
            session.commit()
        with TestClient(create_app(make_settings(f"sqlite:///{path}"), engine)) as field:
            _lots_ceremony(field, w)
            ok(field.patch(f"/api/v1/events/{w.id}/participants/102", headers=ADMIN,
                           json={"name": "Bob Jones"}))  # fmt: skip
            return ok(field.get(f"/api/v1/events/{w.id}/archive", headers=ADMIN))
    finally:
        engine.dispose()


def refused(client: TestClient, document: dict, session: Session, code: str) -> dict:
    response = client.post("/api/v1/events/import", json=document, headers=ADMIN)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == code
    assert session.scalar(select(func.count()).select_from(Event)) == 0  # nothing stored
    session.rollback()
    return response.json()


def test_an_archive_edited_in_any_decision_is_refused_naming_the_row(
    client: TestClient, lots_archive: dict, session: Session
) -> None:
    original = lots_archive
    assert original["version"] == 2
    log = original["expected"]["log"]
    assert (log["version"], log["clocks"], log["decisions"], log["identities"]) == (2, 1, 1, 3)
    [clock] = original["source_clocks"]
    [lots] = [a for a in original["audit"] if a["action"] == "auction.lots"]
    alice = next(p for p in original["participants"] if p["external_id"] == "101")
    bob_update = original["participant_identities"][-1]
    assert (bob_update["change"], bob_update["name"], bob_update["log_seq"]) == (
        "update", "Bob Jones", 3)  # fmt: skip

    def forged(edit) -> dict:
        document = copy.deepcopy(original)
        edit(document)
        return document

    def first(document: dict) -> str:
        return refused(client, document, session, "archive_mismatch")["differences"][0]

    clock_edit = forged(lambda d: d["source_clocks"][0].update(offset_seconds=-300))
    assert first(clock_edit) == (
        f"clocks: source_clock {clock['id']} of the archive (seq 1) does not match its chain (hash)"
    )
    loser = next(c for c in lots["details"]["candidates"] if c != lots["details"]["winner"])
    lots_edit = forged(lambda d: next(a for a in d["audit"] if a["id"] == lots["id"])[
        "details"].update(winner=loser))  # fmt: skip
    assert first(lots_edit) == (
        f"decisions: audit_entry {lots['id']} of the archive (seq 1) does not match its chain "
        "(hash)"
    )
    renamed = forged(lambda d: next(p for p in d["participants"] if p["id"] == alice["id"])
                     .update(name="Mallory"))  # fmt: skip
    assert first(renamed) == (
        f"identities: participant {alice['id']} of the archive (seq 1) differs from its "
        "identity log (identity)"
    )
    covered = forged(lambda d: d["participant_identities"][-1].update(name="Bobby"))
    assert first(covered) == (
        f"identities: participant_identity {bob_update['id']} of the archive (seq 3) does not "
        "match its chain (hash)"
    )
    # The untouched archive restores, every chain verified.
    response = client.post("/api/v1/events/import", json=original, headers=ADMIN)
    assert response.status_code == 201, response.text
    assert (response.json()["version"], response.json()["unproven"]) == (2, [])
    assert verify(client, response.json()["event_id"])["head"] == log["head"]


def test_a_version_1_archive_still_imports_and_says_what_it_cannot_prove(
    client: TestClient, lots_archive: dict
) -> None:
    """An archive written before the chains (version 1: no identity rows, no chain columns
    on clocks and audit entries, the version 1 head over takes and bids) restores; its
    clocks, decisions and identities are chained as the file has them."""
    v1 = copy.deepcopy(lots_archive)
    v1["version"] = 1
    del v1["participant_identities"]
    for row in v1["source_clocks"] + v1["audit"]:
        for column in ("log_seq", "log_prev", "log_hash"):
            del row[column]
    log = v1["expected"]["log"]
    v1["expected"]["log"] = {"head": _v1_head(v1), "takes": log["takes"], "bids": log["bids"]}
    assert v1["event"]["final_log_head"] is None  # places 1 and 2 are not awarded yet
    restored = ok(client.post("/api/v1/events/import", json=v1, headers=ADMIN), 201)
    assert restored["version"] == 1 and restored["head"] == v1["expected"]["log"]["head"]
    assert restored["unproven"] == [
        "source clock offsets (source_clocks)",
        "deciding audit entries: lots, corrections (audit)",
        "participants' external ids, names, categories (participants)",
    ]
    report = verify(client, restored["event_id"])
    assert (report["ok"], report["clocks"], report["decisions"], report["identities"]) == (
        True, 1, 1, 2)  # fmt: skip


def _v1_head(archive: dict) -> str:
    """The version 1 head of an archive, from its take and bid rows (`chain.event_head`)."""
    external = {p["id"]: p["external_id"] for p in archive["participants"]}
    take_owner = {t["id"]: t["participant_id"] for t in archive["takes"]}
    chains: dict[str, tuple[int, str]] = {}
    rows = [(take_owner[t["id"]], t["log_seq"], t["log_hash"]) for t in archive["takes"]]
    rows += [(take_owner[v["take_id"]], v["log_seq"], v["log_hash"])
             for v in archive["take_voids"]]  # fmt: skip
    for owner, seq, digest in rows:
        if seq > chains.get(external[owner], (0, ""))[0]:
            chains[external[owner]] = (seq, digest)
    places = {a["id"]: a["place"] for a in archive["auctions"]}
    bid_place = {b["id"]: places[b["auction_id"]] for b in archive["bids"]}
    bids: dict[int, tuple[int, str]] = {}
    rows = [(bid_place[b["id"]], b["log_seq"], b["log_hash"]) for b in archive["bids"]]
    rows += [(bid_place[w["bid_id"]], w["log_seq"], w["log_hash"])
             for w in archive["bid_withdrawals"]]  # fmt: skip
    for place, seq, digest in rows:
        if seq > bids.get(place, (0, ""))[0]:
            bids[place] = (seq, digest)
    return chain.event_head([(e, s, h) for e, (s, h) in chains.items()],
                            [(p, s, h) for p, (s, h) in bids.items()])  # fmt: skip


# -- times out of range -------------------------------------------------------------------------

OUT_OF_RANGE = "0001-01-01T00:30:00+01:00"  # 31 December of year 0 in UTC: no such datetime


def test_an_archive_with_a_time_out_of_range_is_invalid(
    client: TestClient, lots_archive: dict, session: Session
) -> None:
    document = copy.deepcopy(lots_archive)
    document["takes"][0]["taken_at"] = OUT_OF_RANGE
    body = refused(client, document, session, "archive_invalid")
    assert body["detail"].startswith(
        f"Not a valid event archive: take {document['takes'][0]['id']}: taken_at "
        f"'{OUT_OF_RANGE}' is not a time between 0001-01-01 and 9999-12-31 UTC"
    )


def test_the_cli_refuses_a_time_out_of_range_with_exit_code_2(
    lots_archive: dict, sqlite_template: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    document = copy.deepcopy(lots_archive)
    document["takes"][0]["taken_at"] = OUT_OF_RANGE
    archive_file = tmp_path / "event.json"
    archive_file.write_text(json.dumps(document), encoding="utf-8")
    server = tmp_path / "server.db"
    shutil.copyfile(sqlite_template, server)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{server}")
    get_settings.cache_clear()
    try:
        assert cli.main(["import", str(archive_file)]) == 2
        not_json = tmp_path / "broken.json"
        not_json.write_text("{", encoding="utf-8")
        assert cli.main(["import", str(not_json)]) == 2
        assert cli.main(["import", str(tmp_path / "missing.json")]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines[0].startswith(
        f"refused (archive_invalid): Not a valid event archive: take "
        f"{document['takes'][0]['id']}: taken_at '{OUT_OF_RANGE}' is not a time"
    )
    assert lines[1].startswith(f"refused: {not_json} is not JSON")
    assert lines[2].startswith(f"refused: cannot read {tmp_path / 'missing.json'}")
    engine: Engine = make_engine(make_settings(f"sqlite:///{server}"))
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(Event)) == 0
    engine.dispose()


def test_concurrent_edits_of_participants_chain_one_after_another(
    client: TestClient, world: World
) -> None:
    """Ten requests at once: new participants, and renames and recategorisations of the
    same participant (each request changes one field). Every change is one identity row,
    chained one after another, and the participant row matches its last one."""

    def send(i: int):
        if i < 4:
            return client.post(f"/api/v1/events/{world.id}/participants", headers=ADMIN,
                               json={"name": f"Runner {i}"})  # fmt: skip
        change = {"name": f"Alice {i}"} if i % 2 else {"category": f"W{i}"}
        return client.patch(f"/api/v1/events/{world.id}/participants/101", headers=ADMIN,
                            json=change)  # fmt: skip

    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(send, range(10)))
    assert sorted(r.status_code for r in responses) == [200] * 6 + [201] * 4
    report = verify(client, world.id)
    assert (report["ok"], report["identities"], report["first_mismatch"]) == (True, 12, None)
