"""The auctions' observer (RULES.md I-7, I-10, I-21): what each caller may see of the bids.

This module is the only code that reads the secret columns for output: a bid's
`sealed_cards` and `sealed_nonce` and a round's decision `sealed_result`
(tests/test_architecture_views.py fails when another module names them; the
repository selects them, `app.flows.log_chain` hashes them). Everything that shows a
bid goes through here: the auction and ceremony views of the API and the pages, the
live stream's snapshots, the results (JSON, CSV, IOF), receipt verification and the
archive's export. The commands (open, bid, withdraw, close, reveal, undo, correct)
are `app.auctions.service`'s; at a close or a correction the service asks
`open_envelopes` for the bids it ranks.

What a caller sees (RULES.md I-21, "close, then reveal"):
- an open round: its count of sealed bids; the organiser also who bid (never what),
  a participant also their own live bid (`my_bid`);
- a closed round: the organiser sees its whole decision at once; everybody else sees
  it as far as the organiser has revealed it: the counted bids from the weakest to
  the strongest (`rules.reveal_order`), then the outcome (ranks, winner, tie,
  lots). Until its last step the auction reads, to them, "closed, being revealed"
  (`revealing`) with its bid count, and the rounds after it (a tie-break round its
  close opened) are not shown at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import repository as repo
from app.auctions import rules
from app.auctions.models import Auction, AuctionRound, Bid
from app.auctions.rules import AuctionStatus, RoundStatus
from app.auctions.shapes import (
    AuctionHistory,
    AuctionView,
    CeremonyView,
    CombinationView,
    MyBidView,
    OutcomeView,
    PlaceResult,
    Results,
    RevealedBidView,
    RevealResult,
    RoundResult,
    RoundView,
)
from app.core import csvfiles
from app.core.errors import Conflict, NotFound
from app.core.principal import PUBLIC, Principal
from app.events.models import Event
from app.poker.cards import display
from app.poker.evaluator import evaluate


def check_place(event: Event, place: int) -> None:
    """Raise 404 `auction_not_found` unless `place` is one the event awards."""
    if not 1 <= place <= event.award_places:
        raise NotFound(
            f"Event {event.id} awards places 1 to {event.award_places}; there is no place {place}.",
            code="auction_not_found",
        )


def status_of(auction: Auction | None) -> AuctionStatus:
    return AuctionStatus.PENDING if auction is None else AuctionStatus(auction.status)


def statuses(session: Session, event_id: int) -> dict[int, str]:
    """place -> the auction's status ("open", "closed"; a pending place is missing)."""
    return {place: a.status for place, a in repo.auctions_of_event(session, event_id).items()}


def _category_name(value: Any) -> str:
    return str(getattr(value, "value", value))


def combination_json(combination_id: int, cards: list[str], ranking: str) -> CombinationView:
    """A combination as shown: its cards, their display, category and description."""
    value = evaluate(cards, ranking)
    return {
        "id": combination_id,
        "cards": list(cards),
        "display": [display(card) for card in cards],
        "category": _category_name(value.category),
        "description": value.description,
    }


# --------------------------------------------------------------- the decision


def decision(rnd: AuctionRound) -> RoundResult | None:
    """What the close of `rnd` decided (ranked bids, tie, lots), or None while it is open.
    For the commands (undo, correction) and the views below, never for a response."""
    return rnd.sealed_result  # type: ignore[return-value]


def open_envelopes(
    session: Session, event: Event, rnd: AuctionRound, ext: dict[int, str]
) -> tuple[list[rules.SealedBid], dict[int, RevealedBidView]]:
    """The counted bids of `rnd` as the rules rank them and as they will be revealed
    (for a close or a correction). The combination as it stands now (the feed may have
    replayed); the bid's snapshot if the projection no longer has it."""
    bids = repo.live_bid_rows(session, rnd.id)
    stored = repo.combination_cards(session, (b.combination_id for b in bids))
    snapshots = repo.bid_cards(session, (b.id for b in bids if b.combination_id not in stored))
    sealed: list[rules.SealedBid] = []
    revealed: dict[int, RevealedBidView] = {}
    for bid in bids:
        cards = list(stored.get(bid.combination_id) or snapshots[bid.id])
        value = evaluate(cards, event.hand_ranking)
        bidder = ext[bid.participant_id]
        sealed.append(rules.SealedBid(bid.id, bidder, bid.combination_id, tuple(value.strength)))
        revealed[bid.id] = {
            "bid_id": bid.id,
            "participant": bidder,
            "round": rnd.number,
            "combination": {
                "id": bid.combination_id,
                "cards": cards,
                "display": [display(card) for card in cards],
                "category": _category_name(value.category),
                "description": value.description,
            },
            "receipt": bid.receipt,
            "nonce": bid.sealed_nonce,
        }
    return sealed, revealed


def combination_of_bidder(rounds: Iterable[AuctionRound], bidder: str) -> int | None:
    """The combination `bidder` bid in the latest of `rounds` (closed, newest first) that
    has one: what a place won by lots after an empty tie-break round records."""
    for rnd in rounds:
        for shown in (decision(rnd) or {}).get("bids", []):
            if shown["participant"] == bidder:
                return shown["combination"]["id"]
    return None


# ------------------------------------------------------------------ reveal


@dataclass(frozen=True)
class RevealState:
    """How far a closed round is revealed: `order` (bid ids, weakest first), `revealed`
    steps of `steps`; `complete` once the outcome is shown."""

    order: list[int]
    revealed: int
    steps: int

    @property
    def complete(self) -> bool:
        return self.revealed >= self.steps

    @property
    def shown(self) -> set[int]:
        return rules.revealed_bid_ids(self.order, self.revealed)


def reveal_state(rnd: AuctionRound) -> RevealState:
    """The reveal progress of closed round `rnd` (RULES.md I-21)."""
    bids = (decision(rnd) or {}).get("bids", [])
    order = rules.reveal_order((b["bid_id"], b["participant"], b.get("rank") or 0) for b in bids)
    return RevealState(order, rnd.revealed, rules.reveal_steps(len(bids)))


def fully_revealed(rnd: AuctionRound) -> bool:
    """True for a closed round whose every step is revealed (`revealed_at` is set)."""
    return rnd.status == RoundStatus.CLOSED and rnd.revealed_at is not None


def being_revealed(rnd: AuctionRound) -> bool:
    """True for a closed round not yet fully revealed."""
    return rnd.status == RoundStatus.CLOSED and rnd.revealed_at is None


def _without_rank(bid: RevealedBidView) -> RevealedBidView:
    shown: RevealedBidView = {k: v for k, v in bid.items() if k != "rank"}  # type: ignore[assignment]
    return shown


def _revealed_bids(rnd: AuctionRound, state: RevealState) -> list[RevealedBidView]:
    """The bids of `rnd` shown after its revealed steps: all of them ranked (as the close
    answered) once complete; before, the revealed ones in reveal order, without ranks."""
    bids = (decision(rnd) or {}).get("bids", [])
    if state.complete:
        return list(bids)
    by_id = {b["bid_id"]: b for b in bids}
    return [_without_rank(by_id[bid_id]) for bid_id in state.order if bid_id in state.shown]


def outcome_view(rnd: AuctionRound) -> OutcomeView:
    """The outcome of closed round `rnd` (what its close decided)."""
    result = decision(rnd) or {}
    return {
        "winner": result.get("winner"),
        "tie": bool(result.get("tied")),
        "tied": result.get("tied", []),
        "resolution": result.get("resolution") or rnd.resolution or "",
        "lots": result.get("lots"),
        "tie_break": result.get("tie_break"),
    }


def reveal_view(session: Session, event: Event, place: int, rnd: AuctionRound) -> RevealResult:
    """The round `rnd` of auction `place` as everyone sees it now (`reveal`'s answer)."""
    state = reveal_state(rnd)
    return {
        "place": place,
        "round": rnd.number,
        "revealed": state.revealed,
        "steps": state.steps,
        "complete": state.complete,
        "bid_count": len(state.order),
        "bids": _revealed_bids(rnd, state),
        "outcome": outcome_view(rnd) if state.complete else None,
    }


def round_to_reveal(session: Session, auction: Auction | None) -> AuctionRound | None:
    """The auction's first closed round not fully revealed, or None."""
    if auction is None:
        return None
    return next((r for r in repo.rounds_of(session, auction.id) if being_revealed(r)), None)


def unrevealed_places(session: Session, event_id: int) -> list[int]:
    """Places whose auction has a closed round not fully revealed (RULES.md I-21)."""
    return repo.places_being_revealed(session, event_id)


# --------------------------------------------------------------------- views


def _round_json(
    session: Session, rnd: AuctionRound, ext: dict[int, str], caller: Principal
) -> RoundView:
    data: RoundView = {
        "number": rnd.number,
        "status": rnd.status,
        "eligible": None if rnd.eligible is None else [ext[p] for p in rnd.eligible],
        "bid_count": 0,
    }
    if rnd.status == RoundStatus.OPEN:
        bidders = repo.live_bidder_ids(session, rnd.id)
        data["bid_count"] = len(bidders)
        if caller.is_organiser:
            data["bidders"] = sorted(ext[p] for p in bidders)
        return data
    state = reveal_state(rnd)
    data.update(bid_count=len(state.order), revealed=state.revealed, steps=state.steps)
    if caller.is_organiser or state.complete:
        result = decision(rnd) or {}
        data.update(
            resolution=rnd.resolution,
            winner=result.get("winner"),
            tied=result.get("tied", []),
            lots=result.get("lots"),
            bids=result.get("bids", []),
        )
    else:
        data.update(
            resolution=None, winner=None, tied=[], lots=None, bids=_revealed_bids(rnd, state)
        )
    return data


def _visible_rounds(round_rows: list[AuctionRound], caller: Principal) -> list[AuctionRound]:
    """The rounds `caller` may know of: all for the organiser; for anybody else those up
    to the first one being revealed (a tie-break round it opened stays unknown)."""
    if caller.is_organiser:
        return round_rows
    visible = []
    for rnd in round_rows:
        visible.append(rnd)
        if being_revealed(rnd):
            break
    return visible


def _named(
    session: Session, event: Event, auction: Auction, rounds: list[AuctionRound], caller: Principal
) -> dict[int, str]:
    """participant id -> external id of those a view of `auction` names."""
    if caller.is_organiser:  # the open round's bidders are named to the organiser only
        return repo.external_ids(session, event.id)
    # only whom this view names: cost independent of the event's size
    named = [p for r in rounds for p in (r.eligible or [])]
    return repo.external_ids_of(session, [*named, auction.winner_participant_id or 0])


def _my_bid(
    session: Session, event: Event, rnd: AuctionRound, caller: Principal
) -> MyBidView | None:
    """The caller's live bid in the open round `rnd` (a participant sees their own only)."""
    if caller.participant_id is None:
        return None
    mine = repo.live_bid_of(session, rnd.id, caller.participant_id)
    if mine is None:
        return None
    return {
        "bid_id": mine.id,
        "receipt": mine.receipt,
        "round": rnd.number,
        "combination": combination_json(mine.combination_id, mine.sealed_cards, event.hand_ranking),
    }


def _pending_view(place: int, caller: Principal) -> AuctionView:
    """An auction that has not opened: no round, no bid."""
    bidders: list[str] | None = [] if caller.is_organiser else None
    return {
        "place": place,
        "status": AuctionStatus.PENDING,
        "round": None,
        "bid_count": 0,
        "bidders": bidders,
        "revealing": False,
    }


def _add_live_part(
    session: Session,
    event: Event,
    view: AuctionView,
    current: dict[str, Any] | None,
    round_rows: list[AuctionRound],
    caller: Principal,
) -> None:
    """The open round's part of `view`: the organiser's `bidders`, a participant's
    `my_bid` (their own live bid)."""
    assert current is not None
    if caller.is_organiser:
        view["bidders"] = current.get("bidders", [])
        return
    rnd = next(r for r in round_rows if r.number == current["number"])
    mine = _my_bid(session, event, rnd, caller)
    if mine is not None:
        view["my_bid"] = mine


def auction_view(session: Session, event: Event, place: int, caller: Principal) -> AuctionView:
    """The auction as `caller` may see it (RULES.md I-7, I-21).

    Open round: everyone gets `bid_count`; the organiser also `bidders` (external
    ids, never combinations); a participant also `my_bid` (their own live bid).
    Closed rounds: the organiser sees every counted bid with its combination and rank
    at once; anybody else as far as revealed (`revealed` of `steps`): the revealed
    bids without ranks, then, at the outcome step, everything. While a round is being
    revealed, anybody but the organiser reads the auction as `closed` at that round
    with `revealing` true, no winner, and no later round. `bids` lists the shown bids
    of every closed round (round by round, each marked with its `round`). `bid_count`
    is the open round's sealed bids, or, with no round open, all counted bids of the
    closed rounds. `tie` and `resolution` are those of the latest revealed close (the
    organiser: the latest close). `revealing`: a closed round is not fully revealed.
    Raises 404 `auction_not_found` (no such place).
    """
    check_place(event, place)
    auction = repo.get_auction(session, event.id, place)
    if auction is None:
        return _pending_view(place, caller)
    all_rounds = repo.rounds_of(session, auction.id)
    round_rows = _visible_rounds(all_rounds, caller)
    revealing = any(being_revealed(r) for r in round_rows)
    hidden = len(round_rows) < len(all_rounds) or (not caller.is_organiser and revealing)
    ext = _named(session, event, auction, round_rows, caller)
    rounds = [_round_json(session, r, ext, caller) for r in round_rows]
    status = AuctionStatus(auction.status)
    number = auction.current_round
    winner = ext.get(auction.winner_participant_id) if auction.winner_participant_id else None
    if hidden:  # closed, being revealed: nothing decided is shown yet
        status, number, winner = AuctionStatus.CLOSED, round_rows[-1].number, None
    current = next((r for r in rounds if r["number"] == number), None)
    closed = [r for r in rounds if r["status"] == RoundStatus.CLOSED]
    last = closed[-1] if closed else None
    live = current is not None and current["status"] == RoundStatus.OPEN
    view: AuctionView = {
        "place": place,
        "status": status,
        "round": number,
        # open round: its sealed bids so far; otherwise every counted bid of every round
        "bid_count": current["bid_count"] if live else sum(r["bid_count"] for r in closed),
        "winner": winner,
        # as the latest close reported it: the top of the last closed round tied
        "tie": bool(last and last.get("tied")),
        "resolution": last.get("resolution") if last else None,
        "rounds": rounds,
        "revealing": revealing,
    }
    if live:
        _add_live_part(session, event, view, current, round_rows, caller)
    view["bids"] = [b for r in closed for b in r.get("bids") or []]
    return view


def stage_of(view: AuctionView) -> str:
    """What changes the layout of a page showing `view`: `status:round`, and while a round
    is being revealed `:revealed steps` (the live pages compare it, `app.live`)."""
    stage = f"{view['status']}:{view['round']}"
    if view.get("revealing"):
        shown = [
            r.get("revealed", 0)
            for r in view.get("rounds", [])
            if r["status"] == RoundStatus.CLOSED
        ]
        stage += f":{sum(shown)}"
    return stage


def public_stages(session: Session, event: Event) -> dict[int, str]:
    """place -> `stage_of` the public view of each auction of the event, in two small
    queries on the auction and round rows (no bid is read): the live pages' shape."""
    rows = repo.round_stages(session, event.id)
    auctions = repo.auctions_of_event(session, event.id)
    stages: dict[int, str] = {}
    for place in rules.ceremony_order(event.award_places):
        auction = auctions.get(place)
        if auction is None:
            stages[place] = "pending:None"
            continue
        rounds = rows.get(auction.id, [])
        revealing = next((r for r in rounds if r[1] == RoundStatus.CLOSED and r[3] is None), None)
        if revealing is None:
            stages[place] = f"{auction.status}:{auction.current_round}"
            continue
        number = revealing[0]
        shown = sum(r[2] for r in rounds if r[1] == RoundStatus.CLOSED and r[0] <= number)
        stages[place] = f"closed:{number}:{shown}"
    return stages


def ceremony_view(session: Session, event: Event, caller: Principal) -> CeremonyView:
    """Every auction in ceremony order (lowest place first) as `caller` may see it, with
    `open` (the place open now as the caller sees it, or None) and `next` (the place that
    may open next, or None while an auction is open or being revealed, or at the end)."""
    order = rules.ceremony_order(event.award_places)
    views = [auction_view(session, event, place, caller) for place in order]
    open_place = next((v["place"] for v in views if v["status"] == AuctionStatus.OPEN), None)
    next_place = None
    if open_place is None and not any(v.get("revealing") for v in views):
        next_place = next((v["place"] for v in views if v["status"] == AuctionStatus.PENDING), None)
    return {"open": open_place, "next": next_place, "auctions": views}


# ------------------------------------------------------------------ receipts


def verify_receipt(session: Session, event: Event, place: int, receipt: str) -> dict[str, Any]:
    """Check a receipt against the revealed bid (RULES.md I-10); open to anyone.

    Recomputes sha256 of `rules.commitment_string` with the revealed nonce.
    Raises 404 `receipt_not_found`, 409 `round_not_closed` (the nonce is still secret),
    409 `bid_not_revealed` (closed, but the organiser has not revealed that bid yet).
    Replaced, withdrawn and corrected bids are confirmed as not counted, without their
    content.
    """
    check_place(event, place)
    auction = repo.get_auction(session, event.id, place)
    bid = repo.bid_by_receipt(session, auction.id, receipt.strip().lower()) if auction else None
    if auction is None or bid is None:
        raise NotFound("No bid with that receipt in this auction.", code="receipt_not_found")
    rnd = repo.round_by_id(session, bid.round_id)
    assert rnd is not None
    base = {"receipt": bid.receipt, "event_id": event.id, "place": place, "round": rnd.number}
    if rnd.status != RoundStatus.CLOSED:
        raise Conflict(
            "The round of this bid is not closed yet; its nonce is still secret.",
            code="round_not_closed",
        )
    withdrawal = repo.withdrawal_of(session, bid.id)
    if withdrawal is not None:
        return {**base, "counted": False, "status": withdrawal.reason}
    state = reveal_state(rnd)
    if bid.id not in state.shown:
        raise Conflict(
            "This bid is not revealed yet; its nonce stays secret until the organiser reveals it.",
            code="bid_not_revealed",
        )
    ext = repo.external_ids_of(session, [bid.participant_id])
    parts = {
        "event_id": event.id,
        "place": place,
        "round_number": rnd.number,
        "bidder": ext[bid.participant_id],
        "combination_id": bid.combination_id,
        "nonce": bid.sealed_nonce,
    }
    text = rules.commitment_string(**parts)
    digest = rules.commitment(**parts)
    shown = next((b for b in _revealed_bids(rnd, state) if b["bid_id"] == bid.id), None)
    return {
        **base,
        "counted": True,
        "status": "revealed",
        "valid": digest == bid.receipt,
        "bidder": parts["bidder"],
        "combination_id": bid.combination_id,
        "nonce": bid.sealed_nonce,
        "commitment_string": text,
        "sha256": digest,
        "combination": shown["combination"] if shown else None,
        "rank": shown.get("rank") if shown else None,
    }


# ------------------------------------------------------------------- results


def results(session: Session, event: Event) -> Results:
    """Final results as everyone may see them: each place (podium order 1, 2, 3), awarded
    once its deciding round is fully revealed, and every auction's closed rounds as far as
    revealed (`revealing` while one is not fully revealed). Reads the names of the bidders
    and winners only (not every participant: issue 24)."""
    ext, names = repo.named_in_auctions(session, event.id)
    auctions = repo.auctions_of_event(session, event.id)
    history: dict[int, AuctionHistory] = {}
    for place in rules.ceremony_order(event.award_places):
        auction = auctions.get(place)
        if auction is None:
            history[place] = {
                "place": place,
                "status": AuctionStatus.PENDING,
                "revealing": False,
                "rounds": [],
            }
            continue
        all_rounds = repo.rounds_of(session, auction.id)
        visible = _visible_rounds(all_rounds, PUBLIC)
        rounds = [_round_json(session, r, ext, PUBLIC) for r in visible]
        revealing = any(being_revealed(r) for r in visible)
        history[place] = {
            "place": place,
            "status": AuctionStatus.CLOSED if revealing else status_of(auction),
            "revealing": revealing,
            "rounds": [r for r in rounds if r["status"] == RoundStatus.CLOSED],
        }
    places = [
        _place_result(session, place, auctions.get(place), history[place], ext, names)
        for place in range(1, event.award_places + 1)
    ]
    return {
        "event_id": event.id,
        "hand_ranking": event.hand_ranking,
        "places": places,
        "auctions": [history[p] for p in rules.ceremony_order(event.award_places)],
    }


def _place_result(
    session: Session,
    place: int,
    auction: Auction | None,
    history: AuctionHistory,
    ext: dict[int, str],
    names: dict[int, str],
) -> PlaceResult:
    """One place of `results`: its winner, name, winning combination and resolution, once
    the auction is decided and revealed."""
    entry: PlaceResult = {
        "place": place,
        "status": history["status"],
        "awarded": False,
        "participant": None,
        "name": None,
        "combination": None,
        "category": None,
        "resolution": None,
    }
    if auction is None or auction.status != AuctionStatus.CLOSED or history["revealing"]:
        return entry
    last = history["rounds"][-1] if history["rounds"] else None
    entry["resolution"] = last.get("resolution") if last else None
    if auction.winner_participant_id is not None:
        entry.update(
            awarded=True,
            participant=ext.get(auction.winner_participant_id),
            name=names.get(auction.winner_participant_id),
        )
        winning = _winning_combination(history, auction.winner_combination_id)
        if winning is not None:
            entry["combination"] = winning
            entry["category"] = winning["category"]
    return entry


def _winning_combination(
    history: AuctionHistory, combination_id: int | None
) -> CombinationView | None:
    """The combination that won the place: the winner's bid in the deciding round."""
    for rnd in reversed(history["rounds"]):
        for bid in rnd.get("bids") or []:
            if bid["combination"]["id"] == combination_id:
                return bid["combination"]
    return None


CSV_COLUMNS = [
    "place",
    "round",
    "participant",
    "name",
    "combination_id",
    "cards",
    "category",
    "description",
    "rank",
    "result",
    "log_head",
]


def results_csv(session: Session, event: Event, *, log_head: str = "") -> str:
    """The results as CSV: one row per revealed bid (`result` winner/lost; while its
    round's outcome is not revealed yet, no rank and `result` "revealed"), plus one row
    per place without a revealed winning bid (`result` unawarded, revealing or pending).
    Every row ends with `log_head`, the event head over the take and bid logs when the
    file was made (app.flows.log_chain), so a kept file can be checked against an archive
    later. Text cells are neutralised against formula injection (`app.core.csvfiles`)."""
    data = results(session, event)
    names = repo.participant_names(session, event.id)
    by_external = {v: k for k, v in repo.external_ids(session, event.id).items()}
    winners = {p["place"]: p["participant"] for p in data["places"]}
    winning = {p["place"]: (p["combination"] or {}).get("id") for p in data["places"]}
    rows: list[list[object]] = []
    for auction in data["auctions"]:
        place = auction["place"]
        for rnd in auction["rounds"]:
            complete = rnd.get("revealed", 0) >= rnd.get("steps", 0)
            for bid in rnd.get("bids") or []:
                won = (
                    winners.get(place) == bid["participant"]
                    and winning.get(place) == bid["combination"]["id"]
                )
                result = ("winner" if won else "lost") if complete else "revealed"
                rows.append(
                    [
                        place,
                        rnd["number"],
                        bid["participant"],
                        names.get(by_external.get(bid["participant"], -1), ""),
                        bid["combination"]["id"],
                        " ".join(bid["combination"]["cards"]),
                        bid["combination"]["category"],
                        bid["combination"]["description"],
                        bid.get("rank", ""),
                        result,
                        log_head,
                    ]
                )
        if (
            auction["status"] != AuctionStatus.CLOSED
            or auction["revealing"]
            or winners.get(place) is None
        ):
            if auction["revealing"]:
                status = "revealing"
            else:
                status = (
                    "unawarded" if auction["status"] == AuctionStatus.CLOSED else auction["status"]
                )
            rows.append([place, "", "", "", "", "", "", "", "", status, log_head])
    return csvfiles.write(CSV_COLUMNS, rows)


# ------------------------------------------------------------------- archive


def check_archivable(session: Session, event: Event) -> None:
    """Raise 409 `ceremony_not_revealed` while a round of the event's auctions is open or
    closed but not fully revealed: an archive would carry its sealed bids (RULES.md I-7,
    I-21). Export after the reveal, or before the first auction opens."""
    open_places = sorted(
        p for p, s in statuses(session, event.id).items() if s == AuctionStatus.OPEN
    )
    unrevealed = unrevealed_places(session, event.id)
    if open_places or unrevealed:
        parts = []
        if open_places:
            parts.append("open: place " + ", ".join(map(str, open_places)))
        if unrevealed:
            parts.append("closed but not fully revealed: place " + ", ".join(map(str, unrevealed)))
        raise Conflict(
            "The archive holds every bid with its cards and nonce, so it is made only when "
            f"no round is sealed ({'; '.join(parts)}). Close and reveal the round first.",
            code="ceremony_not_revealed",
            open_places=open_places,
            unrevealed_places=unrevealed,
        )


RowReader = Callable[..., list[dict[str, Any]]]


def archived_ceremony(session: Session, event: Event, read_rows: RowReader) -> dict[str, Any]:
    """The ceremony's secret rows for the archive (`app.flows.archive.export_event`):
    every column of the event's `auction_rounds` and `bids` rows, read by
    `read_rows(session, table, *where)` (the archive's JSON-ready reader) here, because
    they hold the decisions and the bids' cards and nonces. Raises what
    `check_archivable` raises: sealed bids never leave in an archive."""
    check_archivable(session, event)
    of_rounds, of_bids = repo.ceremony_rows_of(event.id)
    return {
        "auction_rounds": read_rows(session, AuctionRound.__table__, of_rounds),
        "bids": read_rows(session, Bid.__table__, of_bids),
    }


def winner_external_ids(session: Session, event_id: int) -> set[str]:
    """External ids of the event's auction winners so far (RULES.md I-8: a winner does
    not bid again)."""
    return set(repo.external_ids_of(session, repo.winner_ids(session, event_id)).values())
