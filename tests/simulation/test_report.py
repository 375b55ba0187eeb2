"""The simulation report's wording: counts agree with their nouns."""

from __future__ import annotations

from collections import Counter

from app.simulation.report import render
from app.simulation.runner import SimulationResult


def one_of_each() -> SimulationResult:
    """A tiny night: one participant, one take, one batch; auctions with 0, 1 and 2 bids."""
    take = {"kind": "card", "outcome": "counted", "reason": None}
    return SimulationResult(
        event_id=1,
        participants=[{"external_id": "101", "name": "A", "strategy": "keeper"}],
        states={"101": {"takes": [take], "hand": ["2H"], "combinations": []}},
        auctions=[
            {"place": 3, "bids": [], "winner": None},
            {"place": 2, "bids": [{}], "winner": "101"},
            {"place": 1, "bids": [{}, {}], "winner": None},
        ],
        deliveries=Counter(batches=1, accepted=1, duplicate_delivery=1, late_items=1),
        podium=[{"place": p, "winner": None} for p in (3, 2, 1)],
    )


def test_report_counts_are_singular_for_one() -> None:
    lines = render(one_of_each()).splitlines()
    assert "  place 3: 0 bids, winner none" in lines
    assert "  place 2: 1 bid, winner #101" in lines
    assert "  place 1: 2 bids, winner none" in lines
    assert "Deliveries: 1 batch, 2 items (1 redelivered duplicate), 1 item synced late" in lines
    assert "Hands never saved: 1 participant" in lines
