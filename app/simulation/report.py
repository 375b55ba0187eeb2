"""The text report of a simulated event: the podium and the night's statistics.

Only things that follow from the seed are printed (no ids, codes or timings),
so two runs with the same seed print the same report.
"""

from __future__ import annotations

from collections import Counter
from statistics import mean, median

from app.core.text import counted
from app.simulation.cards import CATEGORIES
from app.simulation.runner import SimulationResult

REASONS = (
    "outside_course_hours",
    "hand_full",
    "duplicate",
    "hand_not_full",
    "no_discards_left",
    "card_not_in_hand",
    "code_already_used",
    "unknown_code",
)
PLACE_NAMES = {1: "1st", 2: "2nd", 3: "3rd"}


def _pretty(category: str | None) -> str:
    return (category or "-").replace("_", " ")


def render(result: SimulationResult) -> str:
    """The report as text lines: podium, auctions, the feed, combinations, categories and
    strategies, a blank line between sections."""
    sections = (_podium, _auctions, _feed, _rejected, _combinations, _categories, _strategies)
    lines: list[str] = []
    for section in sections:
        if lines:
            lines.append("")
        lines.extend(section(result))
    return "\n".join(lines)


def _podium(result: SimulationResult) -> list[str]:
    lines = ["Podium"]
    for row in sorted(result.podium, key=lambda r: r["place"]):
        place = PLACE_NAMES.get(row["place"], f"{row['place']}th")
        if row["winner"] is None:
            lines.append(f"  {place:4} not awarded (no bids)")
            continue
        cards = " ".join(row["cards"] or [])
        lines.append(
            f"  {place:4} #{row['winner']} {row['name']:<18} {cards:<20} {_pretty(row['category'])}"
        )
    return lines


def _auctions(result: SimulationResult) -> list[str]:
    lines = ["Auctions"]
    for closed in result.auctions:
        winner = f"#{closed['winner']}" if closed.get("winner") else "none"
        tie = ", after a tie" if closed.get("tie") else ""
        bids = counted(len(closed.get("bids", [])), "bid")
        lines.append(f"  place {closed['place']}: {bids}, winner {winner}{tie}")
    return lines


def _feed(result: SimulationResult) -> list[str]:
    takes = [take for state in result.states.values() for take in state["takes"]]
    kinds = Counter(take["kind"] for take in takes)
    outcomes = Counter(take["outcome"] for take in takes)
    d = result.deliveries
    return [
        f"Participants: {len(result.states)}",
        f"Takes in the log: {len(takes)} ({outcomes['counted']} counted, "
        f"{outcomes['rejected']} rejected); by kind: "
        + ", ".join(f"{kind} {kinds[kind]}" for kind in sorted(kinds)),
        f"Deliveries: {counted(d['batches'], 'batch', 'batches')}, "
        f"{counted(d['accepted'] + d['duplicate_delivery'], 'item')} "
        f"({counted(d['duplicate_delivery'], 'redelivered duplicate')}), "
        f"{counted(d['late_items'], 'item')} synced late",
    ]


def _rejected(result: SimulationResult) -> list[str]:
    rejected = result.rejected_by_reason
    return ["Takes rejected, by reason"] + [
        f"  {reason:<22} {rejected[reason]:>6}" for reason in REASONS
    ]


def _combinations(result: SimulationResult) -> list[str]:
    counts = sorted(result.combinations_per_participant.values())
    lines = ["Combinations per participant"]
    if counts:
        lines.append(
            f"  total {sum(counts)}, mean {mean(counts):.2f}, median {median(counts):g}, "
            f"min {counts[0]}, max {counts[-1]}"
        )
        histogram = Counter(counts)
        lines.append("  " + ", ".join(f"{n}: {histogram[n]}" for n in sorted(histogram)))
    return lines


def _categories(result: SimulationResult) -> list[str]:
    distribution = result.category_distribution
    total = sum(distribution.values()) or 1
    lines = ["Category distribution (seed order)"]
    for category in CATEGORIES:
        n = distribution[category]
        lines.append(f"  {_pretty(category):<16} {n:>6}  {100 * n / total:5.1f}%")
    return lines


def _strategies(result: SimulationResult) -> list[str]:
    per = result.combinations_per_participant
    by_strategy: dict[str, list[int]] = {}
    for participant in result.participants:
        by_strategy.setdefault(participant["strategy"], []).append(
            per.get(participant["external_id"], 0)
        )
    lines = [f"Hands never saved: {counted(len(result.unsaved_hands), 'participant')}", ""]
    lines.append("By strategy (participants, mean combinations)")
    for name in sorted(by_strategy):
        values = by_strategy[name]
        lines.append(f"  {name:<14} {len(values):>4}  {mean(values):.2f}")
    return lines
