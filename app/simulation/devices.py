"""Field devices: when they are offline, and how they sync late and out of order.

A device records every take locally with its field time (`taken_at`) and a
sequential `source_id`. While offline it keeps them; when it comes back it
sends them in several batches, in shuffled order, sometimes sending a batch
twice (a lost acknowledgement), which the feed must store once (RULES.md I-4).
A device whose battery dies is read out by the organisers after the close.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any


@dataclass
class DevicePlan:
    """When one participant's device is offline.

    `windows` are (start, end) field times (aware UTC) with no connection;
    `dies_at`, when set, is the moment the battery dies: nothing is sent after it
    until `read_out_at` (after the close), when the organisers sync it.
    """

    source: str
    windows: list[tuple[datetime, datetime]] = field(default_factory=list)
    dies_at: datetime | None = None
    read_out_at: datetime | None = None

    def online(self, at: datetime) -> bool:
        """True when a take made at `at` is sent at once."""
        if self.dies_at is not None and at >= self.dies_at:
            return False
        return not any(start <= at < end for start, end in self.windows)

    def reconnects_at(self, at: datetime) -> datetime:
        """When a take recorded offline at `at` is finally sent."""
        if self.dies_at is not None and at >= self.dies_at:
            assert self.read_out_at is not None
            return self.read_out_at
        for start, end in self.windows:
            if start <= at < end:
                return end
        return at


def plan_device(
    rng: random.Random, source: str, opens_at: datetime, closes_at: datetime
) -> DevicePlan:
    """A device's offline plan: about 30 % of devices lose the connection once or
    twice for 1-4 hours; about 8 % die between 22:00 and 04:00 field time and are
    read out 20-90 minutes after the close; the rest stay online."""
    plan = DevicePlan(source=source)
    hours = (closes_at - opens_at).total_seconds() / 3600
    roll = rng.random()
    if roll < 0.08:
        plan.dies_at = opens_at + timedelta(hours=rng.uniform(10, min(16, hours - 1)))
        plan.read_out_at = closes_at + timedelta(minutes=rng.uniform(20, 90))
    elif roll < 0.38:
        cursor = opens_at + timedelta(hours=rng.uniform(1, 5))
        for _ in range(rng.choice((1, 1, 2))):
            length = timedelta(hours=rng.uniform(1, 4))
            if cursor + length >= closes_at:
                break
            plan.windows.append((cursor, cursor + length))
            cursor += length + timedelta(hours=rng.uniform(1, 4))
    return plan


def sync_batches(
    items: list[dict[str, Any]], rng: random.Random, redelivery: float = 0.3
) -> list[list[dict[str, Any]]]:
    """Split a device's backlog into batches sent out of order.

    The backlog (in field-time order) is cut into 1-4 consecutive chunks; the
    chunks are sent in shuffled order and each chunk's items are shuffled; with
    probability `redelivery` one chunk is sent again at the end (same source ids).
    Every item appears in the result at least once.
    """
    if not items:
        return []
    cuts = sorted(rng.sample(range(1, len(items)), min(len(items) - 1, rng.randint(0, 3))))
    bounds = [0, *cuts, len(items)]
    chunks = [items[a:b] for a, b in pairwise(bounds)]
    rng.shuffle(chunks)
    batches = []
    for chunk in chunks:
        batch = list(chunk)
        rng.shuffle(batch)
        batches.append(batch)
    if rng.random() < redelivery:
        batches.append(list(rng.choice(batches)))
    return batches
