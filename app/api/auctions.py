"""Auction endpoints (API.md "Auctions"): thin — parse, authorise, delegate to the service
(commands) or to the observer `app.auctions.views` (what the caller may see).

The same `bids` and `close` endpoints serve round 1 and the tie-break rounds:
they always act on the auction's current open round (`round` in the views). A close
decides; `reveal` publishes (RULES.md I-21).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Response

from app.auctions import service, views
from app.auctions.schemas import (
    AuctionRead,
    BidCreate,
    BidRead,
    CeremonyRead,
    CloseRead,
    CloseRequest,
    CorrectionRead,
    CorrectionRequest,
    ResultsRead,
    RevealRead,
    RevealRequest,
    VerifyRead,
    WithdrawalRead,
)
from app.callers import EventCaller, OrganiserDep
from app.core.deps import SessionDep
from app.core.errors import Unauthorized
from app.core.principal import Principal
from app.core.types import PathId
from app.events.deps import EventDep
from app.flows import ceremony as ceremony_flow
from app.flows import log_chain

router = APIRouter(prefix="/api/v1/events/{event_id}/auctions", tags=["auctions"])


def _require_bidder(caller: Principal) -> None:
    if not caller.is_organiser and caller.participant_id is None:
        raise Unauthorized("The organiser token or the participant's own access token is needed.")


@router.get("", response_model=CeremonyRead)
def get_ceremony(event: EventDep, session: SessionDep, caller: EventCaller) -> dict:
    """Every auction in ceremony order as the caller may see it (sealed rules as for one)."""
    return views.ceremony_view(session, event, caller)


@router.get("/results", response_model=ResultsRead)
def get_results(event: EventDep, session: SessionDep) -> dict:
    """Final results: places 1..N with winner, combination and category, and every
    closed round's bids as far as revealed (RULES.md I-21): public."""
    return views.results(session, event)


@router.get("/results.csv", response_class=Response)
def get_results_csv(event: EventDep, session: SessionDep) -> Response:
    """The results as CSV (one row per revealed bid, plus unawarded, revealing or pending
    places)."""
    return Response(
        views.results_csv(session, event, log_head=log_chain.shown_head(session, event)["head"]),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="event-{event.id}-results.csv"'},
    )


@router.post("/{place}/open", response_model=AuctionRead)
def open_auction(
    place: PathId, event: EventDep, session: SessionDep, _: OrganiserDep, caller: EventCaller
) -> dict:
    """Open the auction for `place`: only the next one in ceremony order (lowest place
    first, one at a time) and only after the course closed (409 `course_still_open` names
    the closing time in event time). The first opening moves the event to `ceremony`."""
    return ceremony_flow.open_auction(session, event, place, caller)


@router.post("/{place}/bids", response_model=BidRead, status_code=201)
def place_bid(
    place: PathId, body: BidCreate, event: EventDep, session: SessionDep, caller: EventCaller
) -> dict:
    """Seal a bid in the current round (organiser on behalf, or the participant).
    A new bid of the same participant in the same round replaces their previous one."""
    _require_bidder(caller)
    return service.place_bid(
        session,
        event,
        place,
        caller,
        participant=body.participant,
        combination_id=body.combination_id,
        round_number=body.round,
    )


@router.delete("/{place}/bids/{bid_id}", response_model=WithdrawalRead)
def withdraw_bid(
    place: PathId, bid_id: PathId, event: EventDep, session: SessionDep, caller: EventCaller
) -> dict:
    """Withdraw a live bid before its round closes (organiser or the bidder)."""
    _require_bidder(caller)
    return service.withdraw_bid(session, event, place, caller, bid_id)


@router.post("/{place}/close", response_model=CloseRead)
def close_auction(
    place: PathId,
    event: EventDep,
    session: SessionDep,
    _: OrganiserDep,
    caller: EventCaller,
    body: Annotated[CloseRequest | None, Body()] = None,
) -> dict:
    """Close the current round and decide it: the winner, or a tie-break round for the
    tied bidders (`status` stays "open"), or lots when nobody tied can rebid. The answer
    (to the organiser) holds the whole decision; everybody else sees it only as far as
    `…/reveal` publishes it (RULES.md I-21)."""
    return ceremony_flow.close_auction(
        session, event, place, caller, lots_seed=body.lots_seed if body else None
    )


@router.post("/{place}/reveal", response_model=RevealRead)
def reveal(
    place: PathId,
    event: EventDep,
    session: SessionDep,
    _: OrganiserDep,
    caller: EventCaller,
    body: Annotated[RevealRequest | None, Body()] = None,
) -> dict:
    """Reveal the next step of the closed round (its counted bids from the weakest to the
    strongest, then the outcome), or every step left with `{"all": true}`; answers the
    round as everybody now sees it. Once a step is revealed the close cannot be undone.
    409 `nothing_to_reveal` when no closed round is left to reveal."""
    return ceremony_flow.reveal(session, event, place, caller, everything=bool(body and body.all))


@router.post("/{place}/undo", response_model=AuctionRead)
def undo_close(
    place: PathId, event: EventDep, session: SessionDep, _: OrganiserDep, caller: EventCaller
) -> dict:
    """Undo the last close of this auction: only while nothing of the closed round is
    revealed (409 `undo_after_reveal`) and until the next auction opens (409
    `undo_too_late`)."""
    return ceremony_flow.undo_close(session, event, place, caller)


@router.post("/{place}/rounds/{number}/correct", response_model=CorrectionRead)
def correct_round(
    place: PathId,
    number: PathId,
    body: CorrectionRequest,
    event: EventDep,
    session: SessionDep,
    _: OrganiserDep,
    caller: EventCaller,
) -> dict:
    """Correct a decided round (after its reveal, RULES.md I-21): void the counted bids
    `void_bids` with a `reason` (withdrawal rows with reason `correction`, chained; the
    audit entry `auction.correct`) and decide the round again among its other bids,
    which stay frozen. Only the auction's latest decided round, until the next auction
    opens: 404 `round_not_found`, 409 `round_not_closed` / `correction_not_possible` /
    `correction_too_late`, 422 `bid_not_counted`."""
    return ceremony_flow.correct_round(
        session,
        event,
        place,
        number,
        caller,
        reason=body.reason,
        void_bids=body.void_bids,
        lots_seed=body.lots_seed,
    )


@router.get("/{place}/verify", response_model=VerifyRead, response_model_exclude_none=True)
def verify_receipt(
    place: PathId,
    event: EventDep,
    session: SessionDep,
    receipt: Annotated[str, Query(min_length=64, max_length=64, pattern="^[0-9a-fA-F]{64}$")],
) -> dict:
    """Check a bid receipt once the bid is revealed: the revealed data and sha256
    recomputed (409 `round_not_closed`, `bid_not_revealed` before)."""
    return views.verify_receipt(session, event, place, receipt)


@router.get("/{place}", response_model=AuctionRead)
def get_auction(place: PathId, event: EventDep, session: SessionDep, caller: EventCaller) -> dict:
    """The auction as the caller may see it: sealed bids are never shown before the close,
    and to anybody but the organiser only as far as revealed after it."""
    return views.auction_view(session, event, place, caller)
