"""Group commit of the field feed (app.feed.batching): concurrent deliveries to an
event share one transaction, and each still gets exactly its own results.

The first delivery is held inside its transaction until the others have queued,
so the second transaction is known to combine them (nothing depends on timing).
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import select

from app.feed import batching
from app.feed import ingest as feed_ingest
from app.feed.models import Take
from tests.feed.conftest import HeldFirstTransaction, World, at


def take(world: World, participant: str, card: str, minutes: float, source_id: str) -> dict:
    return {
        "participant": participant,
        "code": world.cp(card),
        "taken_at": at(minutes).isoformat(),
        "source": "app",
        "source_id": source_id,
    }


async def deliver_all(app, world: World, held: HeldFirstTransaction, first, rest):
    """POST `first`, wait until it is inside its transaction, POST `rest`, wait until
    they have all queued behind it, release it; the responses in order."""
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:

        def post(headers, body):
            return asyncio.ensure_future(
                client.post(f"/api/v1/events/{world.id}/takes", json=body, headers=headers)
            )

        tasks = [post(*first)]
        while not held.sizes:
            await asyncio.sleep(0.01)
        tasks += [post(*delivery) for delivery in rest]
        batcher = batching.feed_batcher(app)
        while len(batcher.queues.get(world.id, ())) < len(rest):
            await asyncio.sleep(0.01)
        held.release.set()
        return await asyncio.gather(*tasks)


@pytest.fixture
def held(app, monkeypatch) -> HeldFirstTransaction:
    app.state.settings.feed_batch_concurrency = 1  # one transaction at a time: a known order
    wrapper = HeldFirstTransaction(batching.store, batch_at=2)
    monkeypatch.setattr(batching, "store", wrapper)
    return wrapper


def test_concurrent_deliveries_share_a_transaction_and_keep_their_own_results(
    app, client, admin, world, held, session
):
    key = client.post(
        f"/api/v1/events/{world.id}/integration-keys", json={"name": "FixPoint"}, headers=admin
    ).json()["key"]
    alice, bob = world.alice.external_id, world.bob.external_id
    first = (admin, {"takes": [take(world, alice, "QH", 1, "a1")]})
    rest = [
        # Bob's first two cards, one delivery each, the second through the key.
        (admin, {"takes": [take(world, bob, "QD", 2, "b1")]}),
        ({"X-Integration-Key": key}, {"takes": [take(world, bob, "KD", 3, "b2")]}),
        # A wrong key: refused alone (401), its take not stored.
        ({"X-Integration-Key": "not-a-key"}, {"takes": [take(world, alice, "2C", 4, "x1")]}),
        # Alice's first take again (stored by the first transaction): a redelivery.
        (admin, {"takes": [take(world, alice, "QH", 1, "a1"), take(world, alice, "AS", 5, "a2")]}),
    ]
    responses = asyncio.run(deliver_all(app, world, held, first, rest))

    assert held.sizes == [1, 4]  # the four queued deliveries went in one transaction
    statuses = [r.status_code for r in responses]
    assert statuses == [200, 200, 200, 401, 200]
    bodies = [r.json() for r in responses]
    cards = [[(x["status"], x["card"]) for x in body["results"]] for body in bodies[:3]]
    assert cards == [[("accepted", "QH")], [("accepted", "QD")], [("accepted", "KD")]]
    assert bodies[3]["code"] == "unauthorized"
    # The redelivery answers with the original take's outcome; A♠ is Alice's 2nd card.
    assert [(x["status"], x["source_id"], x["card"]) for x in bodies[4]["results"]] == [
        ("duplicate_delivery", "a1", "QH"),
        ("accepted", "a2", "AS"),
    ]
    senders = dict(session.execute(select(Take.source_id, Take.recorded_by)).all())
    session.commit()
    assert senders == {
        "a1": "organiser",
        "b1": "organiser",
        "b2": f"key:{key[:10]}",
        "a2": "organiser",
    }
    state = client.get(f"/api/v1/events/{world.id}/participants/{bob}/state", headers=admin).json()
    assert sorted(state["hand"]) == ["KD", "QD"]


def test_a_failing_delivery_does_not_take_the_others_down(
    app, client, admin, world, held, session, monkeypatch
):
    real_ingest = feed_ingest.ingest

    def ingest(session, event, items, **kwargs):
        if any(item.get("source_id") == "boom" for item in items):
            raise RuntimeError("a bug tripped by one delivery")
        return real_ingest(session, event, items, **kwargs)

    monkeypatch.setattr(feed_ingest, "ingest", ingest)
    alice, bob = world.alice.external_id, world.bob.external_id
    first = (admin, {"takes": [take(world, alice, "2H", 1, "a1")]})
    rest = [
        (admin, {"takes": [take(world, alice, "3H", 2, "a2")]}),
        (admin, {"takes": [take(world, bob, "4H", 3, "boom")]}),
        (admin, {"takes": [take(world, bob, "5H", 4, "b2")]}),
    ]
    responses = asyncio.run(deliver_all(app, world, held, first, rest))

    # The combined transaction failed and was rolled back; each delivery was then
    # stored on its own, and only the culprit failed.
    assert held.sizes == [1, 3, 1, 1, 1]
    assert [r.status_code for r in responses] == [200, 200, 500, 200]
    assert responses[2].headers["content-type"].startswith("application/problem+json")
    stored = sorted(session.scalars(select(Take.source_id)))
    session.commit()
    assert stored == ["a1", "a2", "b2"]


def test_deliveries_to_a_missing_event_get_404(client, admin):
    response = client.post(
        "/api/v1/events/987654/takes",
        json={"takes": [{"participant": "1", "code": "X", "taken_at": at(1).isoformat()}]},
        headers=admin,
    )
    assert response.status_code == 404
    assert response.json()["code"] == "event_not_found"
