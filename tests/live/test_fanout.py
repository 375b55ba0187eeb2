"""The hub reads a change once per process and hands it only to the streams it concerns
(issue 24): a bid (its count alone) never wakes a phone's stream (`counts=false`)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from app.core.principal import ORGANISER
from app.live.hub import Channel, Hub


def auction(status: str, stage: str, bid_count: int) -> dict[str, Any]:
    return {
        "place": 3, "status": status, "round": 1, "bid_count": bid_count, "winner": None,
        "revealing": status == "closed", "shape": stage, "view": {"rounds": []}, "names": {},
    }  # fmt: skip


def test_a_bid_reaches_the_counting_streams_only_and_a_close_reaches_all() -> None:
    async def scenario() -> tuple[list[int], list[int], int]:
        hub = Hub(SimpleNamespace(state=SimpleNamespace()))
        channel = Channel(7)
        hub.channels[7] = channel
        hub._store(channel, [(1, "auction", auction("open", "open:1", 0))])
        channel.version = 1
        counting = [hub.subscribe(channel, counts=True) for _ in range(3)]
        phones = [hub.subscribe(channel, counts=False) for _ in range(100)]
        reads = 0
        changes = {
            2: auction("open", "open:1", 1),  # a bid: the count moved, the stage did not
            3: auction("open", "open:1", 2),
            4: auction("closed", "closed:1:0", 2),  # the close: a new stage
        }

        async def read(_fn: Any, _event_id: int, after: int) -> tuple[int, list]:
            nonlocal reads
            reads += 1
            return after + 1, [(after + 1, "auction", changes[after + 1])]

        hub.read = read  # type: ignore[method-assign]
        for _ in changes:
            await hub.fan_out(channel)
        hub._safety.cancel()
        return [q.qsize() for q in counting], [q.qsize() for q in phones], reads

    counting, phones, reads = asyncio.run(scenario())
    assert reads == 3  # one read per change, however many streams
    assert counting == [3, 3, 3]  # two bids and the close
    assert phones == [1] * 100  # the close only


def test_a_stage_is_sent_at_once_a_bid_count_may_wait(monkeypatch, session) -> None:
    """The commit's wake-up says whether a stage moved: the open, the close and a reveal
    step do (no waiting for the refresh interval), a bid does not."""
    from app.auctions import service
    from app.core import livelog
    from app.events.models import Event
    from tests.auctions.test_api import CEREMONY, build

    woken: list[tuple[int, bool]] = []
    # the waker create_app names (app.live.hub.wake_local), replaced by a recorder
    monkeypatch.setattr(
        livelog, "_wakers", [lambda event_id, version, stage: woken.append((version, stage))]
    )
    w = build(session, {"A": CEREMONY["A"], "B": CEREMONY["B"]})
    organiser = ORGANISER
    event = session.get(Event, w.event_id)
    service.open_auction(session, event, 3, organiser)
    session.commit()
    for who, combo in (("A", "A_pair"), ("B", "B_pair")):
        service.place_bid(
            session, event, 3, organiser, participant=who, combination_id=w.combos[combo]
        )
        session.commit()
    service.close_auction(session, event, 3, organiser)
    session.commit()
    service.reveal(session, event, 3, organiser)
    session.commit()
    assert [stage for _, stage in woken] == [True, False, False, True, True]
    assert [version for version, _ in woken] == [1, 2, 3, 4, 5]
