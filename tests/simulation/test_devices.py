"""Offline plans and late, out-of-order syncs."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from app.simulation.devices import DevicePlan, plan_device, sync_batches

OPENS = datetime(2026, 6, 13, 9, tzinfo=UTC)
CLOSES = OPENS + timedelta(hours=18)


def test_offline_windows_and_reconnection() -> None:
    plan = DevicePlan("app-1", windows=[(OPENS + timedelta(hours=2), OPENS + timedelta(hours=5))])
    assert plan.online(OPENS + timedelta(hours=1))
    assert not plan.online(OPENS + timedelta(hours=3))
    assert plan.reconnects_at(OPENS + timedelta(hours=3)) == OPENS + timedelta(hours=5)
    assert plan.online(OPENS + timedelta(hours=5))


def test_dead_device_is_read_out_after_the_close() -> None:
    plan = DevicePlan(
        "app-2", dies_at=OPENS + timedelta(hours=12), read_out_at=CLOSES + timedelta(minutes=30)
    )
    assert not plan.online(OPENS + timedelta(hours=13))
    assert plan.reconnects_at(OPENS + timedelta(hours=13)) == CLOSES + timedelta(minutes=30)


def test_plans_mix_online_offline_and_dead_devices() -> None:
    plans = [plan_device(random.Random(i), f"d{i}", OPENS, CLOSES) for i in range(400)]
    dead = sum(1 for p in plans if p.dies_at)
    windows = sum(1 for p in plans if p.windows)
    assert 10 <= dead <= 60 and 70 <= windows <= 180
    for plan in plans:
        for start, end in plan.windows:
            assert OPENS < start < end < CLOSES
        if plan.dies_at:
            assert plan.read_out_at > CLOSES


def test_sync_batches_lose_nothing_and_reorder() -> None:
    items = [{"source_id": str(i)} for i in range(12)]
    reordered = 0
    for seed in range(30):
        batches = sync_batches(items, random.Random(seed))
        sent = Counter(item["source_id"] for batch in batches for item in batch)
        assert set(sent) == {str(i) for i in range(12)}
        assert all(n <= 2 for n in sent.values())  # at most one redelivery
        flat = [item["source_id"] for batch in batches for item in batch]
        reordered += flat[: len(items)] != [str(i) for i in range(12)]
    assert reordered >= 25
    assert sync_batches([], random.Random(0)) == []
    assert sync_batches(items, random.Random(5)) == sync_batches(items, random.Random(5))
