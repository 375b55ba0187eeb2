"""Request and response bodies of the auction endpoints (API.md "Auctions")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import DbInt, ExternalIdRef


class BidCreate(BaseModel):
    """A sealed bid. `participant` is required for the organiser; a participant bidding
    with their own token may omit it (if given, it must be their own external id).
    `round`, when given, must be the auction's current round (guards a stale screen)."""

    model_config = ConfigDict(extra="forbid")

    participant: ExternalIdRef | None = None
    combination_id: DbInt
    round: DbInt | None = None


class BidRead(BaseModel):
    """The receipt of a bid: keep it to check the revealed bid after the close (RULES.md I-10)."""

    bid_id: int
    receipt: str
    place: int
    round: int
    replaced_bid_id: int | None = None


class WithdrawalRead(BaseModel):
    bid_id: int
    status: str = "withdrawn"


class CloseRequest(BaseModel):
    """Optional: the seed of the lot draw, used only if lots have to be drawn (RULES.md I-9)."""

    model_config = ConfigDict(extra="forbid")

    lots_seed: int | None = Field(default=None, ge=0, le=2**63 - 1)


class CombinationRead(BaseModel):
    id: int
    cards: list[str]
    display: list[str]
    category: str
    description: str


class RevealedBid(BaseModel):
    bid_id: int
    participant: str
    round: int
    combination: CombinationRead
    rank: int
    receipt: str
    nonce: str


class LotsRead(BaseModel):
    """A recorded draw: `random.Random(seed).choice(sorted(candidates))` gives `winner`."""

    seed: int
    candidates: list[str]
    winner: str


class TieBreakRead(BaseModel):
    round: int
    eligible: list[str]


class CloseRead(BaseModel):
    """The revealed round (API.md): the winner, whether the top tied, and every bid ranked.

    `status` is the auction's: "closed", or "open" when a tie-break round follows.
    `tie` is true when the top of THIS round tied (`tied` names them): a tie-break
    round follows, or the tie was settled by `only_bidder_left` or `lots`. A
    tie-break round whose strongest bid is alone closes with `tie` false.
    `resolution`: strongest | no_bids | tie_break | only_bidder_left | lots.
    """

    place: int
    status: str
    round: int
    winner: str | None
    tie: bool
    resolution: str
    tied: list[str]
    tie_break: TieBreakRead | None = None
    lots: LotsRead | None = None
    bids: list[RevealedBid]


class RoundRead(BaseModel):
    number: int
    status: str
    eligible: list[str] | None
    bid_count: int
    bidders: list[str] | None = None
    resolution: str | None = None
    winner: str | None = None
    tied: list[str] = []
    lots: LotsRead | None = None
    bids: list[RevealedBid] | None = None


class MyBid(BaseModel):
    bid_id: int
    receipt: str
    round: int
    combination: CombinationRead


class AuctionRead(BaseModel):
    """One auction as the caller may see it. Before the close nobody, the organiser
    included, gets a bid's combination: the organiser sees `bid_count` and `bidders`,
    a participant `bid_count` and `my_bid`, anyone else `bid_count` only.

    After a close the auction reads as the latest close response did: `status`,
    `round`, `winner`, `tie` and `resolution` are those of the last closed round
    (`tie`: the top of that round tied, as `CloseRead.tie`). `bids` holds the
    revealed bids of every closed round, round by round (each with its `round`).
    `bid_count`: while a round is open, its sealed bids so far; otherwise the
    count of all revealed bids of all rounds."""

    place: int
    status: str
    round: int | None
    bid_count: int
    bidders: list[str] | None = None
    my_bid: MyBid | None = None
    winner: str | None = None
    tie: bool = False
    resolution: str | None = None
    bids: list[RevealedBid] = []
    rounds: list[RoundRead] = []


class CeremonyRead(BaseModel):
    """All auctions of the event, lowest place first; `open` is the place open now,
    `next` the place the organiser may open next (None during an auction or at the end)."""

    open: int | None
    next: int | None
    auctions: list[AuctionRead]


class VerifyRead(BaseModel):
    """A receipt checked after the close. `valid` is True when sha256(`commitment_string`)
    equals the receipt. Replaced or withdrawn bids are not revealed (`counted` false)."""

    receipt: str
    counted: bool
    status: str
    valid: bool | None = None
    event_id: int
    place: int
    round: int
    bidder: str | None = None
    combination_id: int | None = None
    nonce: str | None = None
    commitment_string: str | None = None
    sha256: str | None = None
    combination: CombinationRead | None = None
    rank: int | None = None


class PlaceResult(BaseModel):
    place: int
    status: str
    awarded: bool
    participant: str | None
    name: str | None
    combination: CombinationRead | None
    category: str | None
    resolution: str | None


class AuctionResult(BaseModel):
    place: int
    status: str
    rounds: list[RoundRead]


class ResultsRead(BaseModel):
    event_id: int
    hand_ranking: str
    places: list[PlaceResult]
    auctions: list[AuctionResult]
