"""The tamper-evident logs: the head moves with every logged row, `verify` names an edited
row, and PostgreSQL refuses to edit or delete log rows (app.flows.log_chain)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app import cli
from app.core import chain
from app.core.config import get_settings
from app.events.models import Participant
from app.feed.models import Take
from tests.feed.conftest import World, at
from tests.web.test_signin import admin_login

CARDS = ["QH", "QD", "QC", "TS", "AC"]
EMPTY_HEAD = "6356b3e0a7ceec156b7c1b96557addea6d4e4dee32df58475a36d2cdd6ad1eb5"


def deliver(client: TestClient, admin: dict, world: World, who: str, code: str, minute: float):
    response = client.post(
        f"/api/v1/events/{world.id}/takes",
        json={"takes": [{"participant": who, "code": code, "taken_at": at(minute).isoformat(),
                         "source": "gps", "source_id": f"{who}-{minute}"}]},
        headers=admin,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    return response.json()["results"][0]


def head(client: TestClient, world: World) -> dict:
    response = client.get(f"/api/v1/events/{world.id}/log/head")  # public: no token
    assert response.status_code == 200, response.text
    return response.json()


def verify(client: TestClient, admin: dict, world: World) -> dict:
    response = client.get(f"/api/v1/events/{world.id}/log/verify", headers=admin)
    assert response.status_code == 200, response.text
    return response.json()


def test_head_moves_with_every_take_void_and_bid(
    client: TestClient, admin: dict, world: World, session: Session
) -> None:
    assert client.get(f"/api/v1/events/{world.id}/log/verify").status_code == 401
    empty = head(client, world)
    # No take or bid yet: the version 2 head covers the two participants' identity rows.
    identities = session.execute(
        text("SELECT log_seq, log_hash FROM participant_identity ORDER BY log_seq")
    ).all()
    session.rollback()
    assert [seq for seq, _ in identities] == [1, 2]
    assert empty == {
        "head": chain.event_head([], [], [("identities", 2, identities[-1][1])]),
        "version": 2, "takes": 0, "bids": 0, "clocks": 0, "decisions": 0, "identities": 2,
        "at": empty["at"],
    }  # fmt: skip
    assert empty["head"] != EMPTY_HEAD  # the version 1 head of an event without a take

    heads = [empty["head"]]
    codes = [world.cp(card) for card in CARDS] + [world.alice.save_codes[0]]
    for minute, code in enumerate(codes, start=1):
        deliver(client, admin, world, "101", code, minute)
        now = head(client, world)
        assert now["takes"] == minute and now["head"] not in heads
        heads.append(now["head"])
    stray = deliver(client, admin, world, "102", world.cp("2S"), 30)
    void = client.post(
        f"/api/v1/events/{world.id}/takes/{stray['take_id']}/void",
        json={"reason": "wrong bib"},
        headers=admin,
    )
    assert void.status_code == 200, void.text
    after_void = head(client, world)
    assert after_void["takes"] == 8 and after_void["head"] not in heads  # 7 takes + 1 void

    # The head is the hash over the chain heads, recomputable from the stored rows.
    rows = session.execute(
        select(Participant.external_id, Take.log_seq, Take.log_hash)
        .join(Participant, Participant.id == Take.participant_id)
        .where(Take.event_id == world.id)
        .order_by(Take.log_seq)
    ).all()
    alice_last = [r for r in rows if r.external_id == "101"][-1]
    bob_void = session.execute(text("SELECT log_hash FROM take_void")).scalar_one()
    session.rollback()  # SQLite: release the write lock before the next request
    assert after_void["head"] == chain.event_head(
        [("101", 6, alice_last.log_hash), ("102", 2, bob_void)], [],
        [("identities", 2, identities[-1][1])],
    )  # fmt: skip
    assert verify(client, admin, world) == {
        "ok": True, "head": after_void["head"], "version": 2, "takes": 8, "bids": 0,
        "clocks": 0, "decisions": 0, "identities": 2, "chains": 3, "first_mismatch": None,
    }  # fmt: skip

    base = f"/api/v1/events/{world.id}/auctions/3"
    assert client.post(f"{base}/open", headers=admin).status_code == 200
    state = client.get(f"/api/v1/events/{world.id}/participants/101/state", headers=admin).json()
    save_take = state["combinations"][0]["id"]
    for expected_bids in (1, 3):  # a bid; then a new bid replaces it: bid + withdrawal
        response = client.post(
            f"{base}/bids", json={"participant": "101", "combination_id": save_take},
            headers=admin,
        )  # fmt: skip
        assert response.status_code == 201, response.text
        now = head(client, world)
        assert (now["takes"], now["bids"]) == (8, expected_bids)
        assert now["head"] not in heads
        heads.append(now["head"])
    checked = verify(client, admin, world)
    assert checked["ok"] and checked["head"] == heads[-1] and checked["chains"] == 4

    # The podium on the projector and the ceremony (results) page print the head.
    assert client.post(f"{base}/close", headers=admin).json()["winner"] == "101"
    reveal = client.post(f"{base}/reveal", headers=admin, json={"all": True})
    assert reveal.status_code == 200
    final = head(client, world)["head"]
    admin_login(client)
    for page in ("projector/3", "ceremony"):
        html = client.get(f"/admin/events/{world.id}/{page}").text
        assert f"<code>{final}</code>" in html and "записей отметок: 8, ставок: 3" in html


def _edit(session: Session, statement: str, **params) -> None:
    """Edit a log row behind the service's back (on PostgreSQL, with triggers disabled
    for this transaction, as a superuser could)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL session_replication_role = replica"))
    session.execute(text(statement), params)
    session.commit()


def test_editing_a_take_row_makes_verify_name_it(
    client: TestClient, admin: dict, world: World, session: Session, monkeypatch, capsys
) -> None:
    ids = [deliver(client, admin, world, "101", world.cp(c), m)["take_id"]
           for m, c in enumerate(CARDS[:3], start=1)]  # fmt: skip
    deliver(client, admin, world, "102", world.cp("2S"), 1)
    # The second take of 101 is moved 10 minutes earlier in the database.
    _edit(session, "UPDATE take SET taken_at = :t WHERE id = :id", t=at(0.5), id=ids[1])
    report = verify(client, admin, world)
    assert report["ok"] is False
    assert report["first_mismatch"] == {
        "chain": "participant 101", "row": f"take {ids[1]}", "seq": 2, "problem": "hash"
    }  # fmt: skip

    monkeypatch.setenv("DATABASE_URL", session.get_bind().url.render_as_string(False))
    get_settings.cache_clear()
    try:
        assert cli.main(["verify", "--event", str(world.id)]) == 2
    finally:
        get_settings.cache_clear()
    assert f"MISMATCH in participant 101: take {ids[1]} (seq 2): hash" in capsys.readouterr().out


def test_removing_the_last_row_of_a_chain_is_found(
    client: TestClient, admin: dict, world: World, session: Session
) -> None:
    ids = [deliver(client, admin, world, "101", world.cp(c), m)["take_id"]
           for m, c in enumerate(CARDS[:2], start=1)]  # fmt: skip
    _edit(session, "DELETE FROM take_outcome WHERE take_id = :id", id=ids[1])
    _edit(session, "DELETE FROM take WHERE id = :id", id=ids[1])
    assert verify(client, admin, world)["first_mismatch"] == {
        "chain": "participant 101", "row": f"take {ids[0]}", "seq": 1, "problem": "head"
    }  # fmt: skip


def test_postgresql_refuses_to_edit_or_delete_log_rows(
    client: TestClient, admin: dict, world: World, session: Session
) -> None:
    if session.get_bind().dialect.name != "postgresql":
        pytest.skip("the append-only trigger is PostgreSQL's")
    take_id = deliver(client, admin, world, "101", world.cp("QH"), 1)["take_id"]
    for statement in (
        "UPDATE take SET code = 'X' WHERE id = :id",
        "UPDATE take SET log_hash = NULL WHERE id = :id",
        "DELETE FROM take WHERE id = :id",
    ):
        with pytest.raises(DBAPIError, match="append-only"):
            session.execute(text(statement), {"id": take_id})
        session.rollback()
    # The projection is not the log: a replay may rewrite an outcome.
    session.execute(text("UPDATE take_outcome SET reason = 'x' WHERE take_id = :id"),
                    {"id": take_id})  # fmt: skip
    session.rollback()
    assert verify(client, admin, world)["ok"] is True
    session.rollback()
