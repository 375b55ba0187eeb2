"""The typed shapes of the auction service's results (API.md "Auctions").

They are `TypedDict`s: at run time plain dicts, so the JSON the API, the live stream
and the archive write stays exactly what it was (keys absent where a caller may not
see them, e.g. `bidders` for the public), while every reader names its keys against
one declaration. `app.auctions.schemas` holds the pydantic response models that
document the same shapes in the OpenAPI schema.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from app.auctions.rules import AuctionStatus


class CombinationView(TypedDict):
    """A revealed (or one's own) combination: card codes, display text, category."""

    id: int
    cards: list[str]
    display: list[str]
    category: str
    description: str


class RevealedBidView(TypedDict):
    """A revealed bid, with its competition rank (1 = strongest) once its round's outcome
    is revealed (RULES.md I-21: the ranks belong to the outcome step)."""

    bid_id: int
    participant: str
    round: int
    combination: CombinationView
    receipt: str
    nonce: str
    rank: NotRequired[int]


class LotsView(TypedDict):
    seed: int
    candidates: list[str]
    winner: str


class TieBreakView(TypedDict):
    round: int
    eligible: list[str]


class RoundResult(TypedDict):
    """What a close stores on the round (`AuctionRound.result`, JSON)."""

    resolution: str
    winner: str | None
    tied: list[str]
    tie_break: TieBreakView | None
    lots: LotsView | None
    bids: list[RevealedBidView]


class RoundView(TypedDict):
    """One round as a caller may see it: an open round only counts its sealed bids
    (`bidders` for the organiser); a closed round shows its result as far as it is
    revealed (`revealed` of `steps`; the organiser sees all of it)."""

    number: int
    status: str
    eligible: list[str] | None
    bid_count: int
    bidders: NotRequired[list[str]]
    resolution: NotRequired[str | None]
    winner: NotRequired[str | None]
    tied: NotRequired[list[str]]
    lots: NotRequired[LotsView | None]
    bids: NotRequired[list[RevealedBidView]]
    revealed: NotRequired[int]
    steps: NotRequired[int]


class MyBidView(TypedDict):
    bid_id: int
    receipt: str
    round: int
    combination: CombinationView


class AuctionView(TypedDict):
    """One auction as a caller may see it (`app.auctions.schemas.AuctionRead`)."""

    place: int
    status: AuctionStatus
    round: int | None
    bid_count: int
    bidders: NotRequired[list[str] | None]
    winner: NotRequired[str | None]
    tie: NotRequired[bool]
    resolution: NotRequired[str | None]
    rounds: NotRequired[list[RoundView]]
    my_bid: NotRequired[MyBidView]
    bids: NotRequired[list[RevealedBidView]]
    revealing: NotRequired[bool]


class CeremonyView(TypedDict):
    open: int | None
    next: int | None
    auctions: list[AuctionView]


class BidReceipt(TypedDict):
    """`place_bid`'s answer (`schemas.BidRead`)."""

    bid_id: int
    receipt: str
    place: int
    round: int
    replaced_bid_id: int | None


class WithdrawalView(TypedDict):
    bid_id: int
    status: str


class CloseResult(TypedDict):
    """`close_auction`'s answer (`schemas.CloseRead`)."""

    place: int
    status: AuctionStatus
    round: int
    winner: str | None
    tie: bool
    resolution: str
    tied: list[str]
    tie_break: TieBreakView | None
    lots: LotsView | None
    bids: list[RevealedBidView]


class OutcomeView(TypedDict):
    """A round's outcome once revealed: what `close` decided."""

    winner: str | None
    tie: bool
    tied: list[str]
    resolution: str
    lots: LotsView | None
    tie_break: TieBreakView | None


class RevealResult(TypedDict):
    """`reveal`'s answer (`schemas.RevealRead`): the round being revealed as everyone now
    sees it."""

    place: int
    round: int
    revealed: int
    steps: int
    complete: bool
    bid_count: int
    bids: list[RevealedBidView]
    outcome: OutcomeView | None


class CorrectionResult(CloseResult):
    """`correct_round`'s answer (`schemas.CorrectionRead`): the round decided again."""

    reason: str
    voided: list[int]
    revealed: int
    steps: int


class PlaceResult(TypedDict):
    place: int
    status: AuctionStatus
    awarded: bool
    participant: str | None
    name: str | None
    combination: CombinationView | None
    category: str | None
    resolution: str | None


class AuctionHistory(TypedDict):
    place: int
    status: AuctionStatus
    revealing: bool
    rounds: list[RoundView]


class Results(TypedDict):
    """`results`' answer (`schemas.ResultsRead`)."""

    event_id: int
    hand_ranking: str
    places: list[PlaceResult]
    auctions: list[AuctionHistory]


def current_round(view: AuctionView) -> RoundView | None:
    """The round of `view` numbered as its current round (None before the auction opens)."""
    return next((r for r in view.get("rounds", []) if r["number"] == view["round"]), None)


def current_eligible(view: AuctionView) -> list[str] | None:
    """Who may bid in the current round: None for everybody (round 1), else the tied
    bidders of a tie-break round (RULES.md I-9)."""
    current = current_round(view)
    return current["eligible"] if current else None
