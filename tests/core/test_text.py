"""Counts in plain words."""

from __future__ import annotations

from app.core.text import counted


def test_counted_agrees_with_the_number() -> None:
    assert counted(0, "bid") == "0 bids"
    assert counted(1, "bid") == "1 bid"
    assert counted(2, "bid") == "2 bids"
    assert counted(1, "batch", "batches") == "1 batch"
    assert counted(3, "batch", "batches") == "3 batches"
    assert counted(1, "participant with takes", "participants with takes") == (
        "1 participant with takes"
    )
