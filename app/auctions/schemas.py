"""Request and response bodies of the auction endpoints (API.md "Auctions")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import DbInt, ExternalIdRef, Reason


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


class RevealRequest(BaseModel):
    """`all`: reveal every step left at once (the projector's "show all"); otherwise the
    next step only."""

    model_config = ConfigDict(extra="forbid")

    all: bool = False


class CorrectionRequest(BaseModel):
    """A correction after a reveal (RULES.md I-21): `reason` (kept in the audit trail),
    `void_bids` (the ids of counted bids of the round to void, e.g. a bid recorded for
    the wrong participant), `lots_seed` if the new decision draws lots."""

    model_config = ConfigDict(extra="forbid")

    reason: Reason
    void_bids: list[DbInt] = Field(min_length=1, max_length=100)
    lots_seed: int | None = Field(default=None, ge=0, le=2**63 - 1)


class CombinationRead(BaseModel):
    id: int
    cards: list[str]
    display: list[str]
    category: str
    description: str


class RevealedBid(BaseModel):
    """A revealed bid. `rank` (1 = strongest) is given once its round's outcome is
    revealed (in the close's answer, always)."""

    bid_id: int
    participant: str
    round: int
    combination: CombinationRead
    rank: int | None = None
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
    """The decided round (API.md), to the organiser only: the winner, whether the top
    tied, and every bid ranked. Everybody else sees it as `…/reveal` publishes it
    (RULES.md I-21).

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
    """One round. A closed round has `revealed` of `steps` reveal steps done (its counted
    bids from the weakest to the strongest, then the outcome); until the last, anybody but
    the organiser gets only the revealed `bids` (in reveal order, without ranks) and no
    `resolution`, `winner`, `tied` or `lots`."""

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
    revealed: int | None = None
    steps: int | None = None


class MyBid(BaseModel):
    bid_id: int
    receipt: str
    round: int
    combination: CombinationRead


class AuctionRead(BaseModel):
    """One auction as the caller may see it. Before the close nobody, the organiser
    included, gets a bid's combination: the organiser sees `bid_count` and `bidders`,
    a participant `bid_count` and `my_bid`, anyone else `bid_count` only.

    A close decides, a reveal publishes (RULES.md I-21). To the organiser a closed
    auction reads as the latest close response did: `status`, `round`, `winner`, `tie`
    and `resolution` are those of the last closed round (`tie`: the top of that round
    tied, as `CloseRead.tie`). To anybody else a round not fully revealed reads
    "closed, being revealed": `status` "closed" at that round, `revealing` true, no
    winner, only the revealed bids, and no later (tie-break) round. `bids` holds the
    shown bids of every closed round, round by round (each with its `round`).
    `bid_count`: while a round is open, its sealed bids so far; otherwise the count of
    all counted bids of the closed rounds shown."""

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
    revealing: bool = False


class OutcomeRead(BaseModel):
    """A round's outcome, as its close decided it."""

    winner: str | None
    tie: bool
    tied: list[str]
    resolution: str
    lots: LotsRead | None = None
    tie_break: TieBreakRead | None = None


class RevealRead(BaseModel):
    """The round being revealed as everybody now sees it (RULES.md I-21): `revealed` of
    `steps` done (one per counted bid, weakest first, then the outcome), `complete` after
    the last; `bids` the revealed ones (ranked once complete), `outcome` once complete."""

    place: int
    round: int
    revealed: int
    steps: int
    complete: bool
    bid_count: int
    bids: list[RevealedBid]
    outcome: OutcomeRead | None = None


class CorrectionRead(CloseRead):
    """The corrected round decided again (to the organiser), with the `reason`, the
    `voided` bid ids and the reveal progress kept (`revealed` of `steps`)."""

    reason: str
    voided: list[int]
    revealed: int
    steps: int


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
    """An auction's closed rounds as far as revealed (`revealing` while one is not)."""

    place: int
    status: str
    revealing: bool = False
    rounds: list[RoundRead]


class ResultsRead(BaseModel):
    event_id: int
    hand_ranking: str
    places: list[PlaceResult]
    auctions: list[AuctionResult]
