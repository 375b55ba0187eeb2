"""The head fixed at the finish (issue 19): the reveal that completes the last auction
(issue 23) stores the event head on the event row, the participants' results page shows it
from there; an undo is refused after the reveal, so the head stays
(app.flows.log_chain.fix_head / final_head)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from app.events.models import Event
from app.flows import log_chain
from tests.feed.conftest import World
from tests.flows.test_log_chain import CARDS, deliver, head, verify


def _statements(client: TestClient, phone: TestClient, url: str) -> tuple[str, list[str]]:
    """The page at `url` and the SQL statements serving it."""
    engine = client.app.state.engine
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(statement)

    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        page = phone.get(url).text
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)
    return page, seen


def test_results_page_shows_the_head_fixed_at_the_finish(
    client: TestClient, admin: dict, world: World, session: Session
) -> None:
    # Alice: Q♥ Q♦ Q♣ 10♠ A♣ and a save (one combination), Bob one stray take.
    codes = [world.cp(card) for card in CARDS] + [world.alice.save_codes[0]]
    for minute, code in enumerate(codes, start=1):
        deliver(client, admin, world, "101", code, minute)
    deliver(client, admin, world, "102", world.cp("2S"), 30)
    phone = TestClient(client.app)
    phone.get(f"/p/{world.alice.access_token}")

    base = f"/api/v1/events/{world.id}/auctions"
    state = client.get(f"/api/v1/events/{world.id}/participants/101/state", headers=admin).json()
    assert client.post(f"{base}/3/open", headers=admin).status_code == 200
    bid = {"participant": "101", "combination_id": state["combinations"][0]["id"]}
    assert client.post(f"{base}/3/bids", json=bid, headers=admin).status_code == 201
    assert client.post(f"{base}/3/close", headers=admin).json()["winner"] == "101"
    reveal_all = {"headers": admin, "json": {"all": True}}
    assert client.post(f"{base}/3/reveal", **reveal_all).status_code == 200
    for place in (2, 1):
        assert client.post(f"{base}/{place}/open", headers=admin).status_code == 200
        if place == 2:  # not finished yet: no head on the phone
            page = phone.get("/me/ceremony").text
            assert 'class="log-head"' not in page
        assert client.post(f"{base}/{place}/close", headers=admin).json()["winner"] is None
        # decided but not revealed (RULES.md I-21): not finished, no head yet
        assert 'class="log-head"' not in phone.get("/me/ceremony").text
        assert client.post(f"{base}/{place}/reveal", **reveal_all).status_code == 200

    # Finished: the page shows exactly the head the API answers (7 takes, 1 bid).
    final = head(client, world)
    assert (final["takes"], final["bids"]) == (7, 1)
    page, statements = _statements(client, phone, "/me/ceremony")
    assert f"<code>{final['head']}</code>" in page
    assert "записей отметок: 7, ставок: 1" in page
    # read from the event row, not from every participant's chain head
    assert not [s for s in statements if "participant_state.log_seq >" in s]

    # The stored value equals a recomputation from the rows (verify) and the chain heads.
    row = session.get(Event, world.id)
    assert row is not None and row.status == "finished"
    stored = row.final_log_head
    assert stored is not None
    assert (stored["head"], stored["takes"], stored["bids"]) == (final["head"], 7, 1)
    assert stored["head"] == log_chain.stored_heads(session, world.id).head
    session.rollback()  # SQLite: release the read transaction before the next request
    assert verify(client, admin, world)["head"] == stored["head"]
    csv = client.get(f"/api/v1/events/{world.id}/auctions/results.csv").text
    assert csv.splitlines()[1].endswith(stored["head"])

    # After the reveal the last close cannot be undone: the head stays fixed.
    undo = client.post(f"{base}/1/undo", headers=admin)
    assert (undo.status_code, undo.json()["code"]) == (409, "undo_after_reveal")
    session.expire_all()
    row = session.get(Event, world.id)
    assert row is not None and (row.status, row.final_log_head) == ("finished", stored)
    session.rollback()
    assert f"<code>{final['head']}</code>" in phone.get("/me/ceremony").text
