"""Small helpers for text shown to people (CLI output, reports)."""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`n` and the noun agreeing with it: "1 bid", "2 bids", "0 bids".

    `plural` defaults to `singular + "s"`; the noun may be several words, e.g.
    `counted(n, "participant with takes", "participants with takes")`.
    """
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"
