"""Group commit of phone scans (`app.feed.batching.ScanBatcher`, issue 24 item 4):
concurrent `POST /api/v1/scan` requests share one transaction, and each still gets its
own answer: its take as its participant may see it, or its own 401, 422 or 429.

The first scan is held inside its transaction until the others have queued, so the
second transaction is known to combine them (nothing depends on timing).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select

from app.core.errors import TooManyRequests
from app.feed import batching
from app.feed.models import Take
from tests.feed.conftest import HeldFirstTransaction, World


@pytest.fixture
def held(app, monkeypatch) -> HeldFirstTransaction:
    app.state.settings.feed_batch_concurrency = 1  # one transaction at a time: a known order
    wrapper = HeldFirstTransaction(batching.store_scans, batch_at=1)
    monkeypatch.setattr(batching, "store_scans", wrapper)
    return wrapper


async def scan_all(app, held: HeldFirstTransaction, first, rest):
    """POST `first` (token, body), wait until it is inside its transaction, POST `rest`,
    wait until they have all queued behind it, release it; the responses in order."""
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:

        def post(token, body):
            headers = {"Authorization": f"Bearer {token}"}
            return asyncio.ensure_future(client.post("/api/v1/scan", json=body, headers=headers))

        tasks = [post(*first)]
        while not held.sizes:
            assert not tasks[0].done(), tasks[0].result().text  # it must reach the store
            await asyncio.sleep(0.01)
        tasks += [post(*scan) for scan in rest]
        batcher = batching.scan_batcher(app)
        while len(batcher.queues.get(0, ())) < len(rest):
            await asyncio.sleep(0.01)
        held.release.set()
        return await asyncio.gather(*tasks)


def test_concurrent_scans_share_a_transaction_and_keep_their_own_answers(
    app, client, open_world: World, held, session
):
    w, alice, bob = open_world, open_world.alice.access_token, open_world.bob.access_token
    first = (alice, {"code": w.cp("QH"), "source_id": "a1"})
    rest = [
        # Bob's first two cards, in the order they came in.
        (bob, {"code": w.cp("QD"), "source_id": "b1"}),
        (bob, {"code": w.cp("KD"), "source_id": "b2"}),
        # A token of nobody: 401 alone (before its body is looked at), nothing stored.
        ("not-a-token", {"code": w.cp("2C"), "source_id": "x1"}),
        # Alice's body without a code: 422 alone.
        (alice, {"source_id": "a9"}),
        # Alice's first scan again (stored by the first transaction): a redelivery.
        (alice, {"code": w.cp("QH"), "source_id": "a1"}),
        # Bob discards Q♦ (he has 2 cards: hand not full, judged by the rules).
        (bob, {"code": w.discard("QD"), "source_id": "b3"}),
    ]
    responses = asyncio.run(scan_all(app, held, first, rest))

    assert held.sizes == [1, 6]  # the six queued scans went in one transaction
    assert [r.status_code for r in responses] == [200, 200, 200, 401, 422, 200, 200]
    bodies = [r.json() for r in responses]
    assert [(b["status"], b["card"], b["discard_code"]) for b in bodies[:3]] == [
        ("accepted", "QH", "DQH"),
        ("accepted", "QD", "DQD"),
        ("accepted", "KD", "DKD"),
    ]
    assert bodies[3]["code"] == "unauthorized"
    assert bodies[4]["errors"][0]["loc"] == ["body", "code"]
    assert (bodies[5]["status"], bodies[5]["source_id"], bodies[5]["card"]) == (
        "duplicate_delivery",
        "a1",
        "QH",
    )
    # a discard of a seen card shows it; with 2 cards in hand it is refused by the rules
    assert (bodies[6]["kind"], bodies[6]["card"], bodies[6]["reason"]) == (
        "discard",
        "QD",
        "hand_not_full",
    )
    stored = dict(session.execute(select(Take.source_id, Take.recorded_by)).all())
    session.commit()
    assert stored == {
        "a1": "participant:201",
        "b1": "participant:202",
        "b2": "participant:202",
        "b3": "participant:202",
    }
    state = client.get("/api/v1/me/state", headers={"Authorization": f"Bearer {bob}"}).json()
    assert sorted(state["hand"]) == ["KD", "QD"]


def test_unknown_codes_earlier_in_the_same_transaction_count(app, client, open_world, session):
    # Limit 2 a minute: of Alice's three unknown codes in one transaction the third is
    # refused (429); her own save code is a known code and goes through all the same.
    alice = open_world.alice
    now = datetime.now(UTC)

    def request(code: str, source_id: str) -> batching.ScanRequest:
        body = json.dumps({"code": code, "source_id": source_id}).encode()
        return batching.ScanRequest(alice.access_token, body, now, None)  # type: ignore[arg-type]

    batch = [request("G1", "g1"), request("G2", "g2"), request("G3", "g3")]
    batch.append(request(alice.save_codes[0], "s1"))
    answers = batching.store_scans(app.state.sessionmaker, batch, 2)

    assert [(a.kind, a.reason) for a in (answers[0], answers[1])] == [
        ("unknown", "unknown_code"),
        ("unknown", "unknown_code"),
    ]
    assert isinstance(answers[2], TooManyRequests)
    assert answers[2].code == "too_many_unknown_codes"
    assert (answers[3].kind, answers[3].reason) == ("save", "hand_not_full")
    assert session.scalar(select(func.count()).select_from(Take)) == 3  # G1, G2, the save
    session.commit()
