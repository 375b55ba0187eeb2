"""Participant pages (mobile first): sign-in by personal link, my game, CP takes, codes.

- `GET /p/{access_token}` signs in (participant cookie) and redirects to `/me`;
- `GET /me` "my game" (hand, deal and round, next step, code form, combinations, takes),
  or how to sign in when there is no cookie;
- `GET /t/{code}` for the participant's own discard or save code shows the same
  confirmation as the code form (nothing recorded); any other code records a take
  through the feed (`app.feed.ingest.scan`, the code path of `POST /api/v1/scan`)
  with a fresh source id, then redirects (303) to the take's result page
  `/me/takes/{take_id}`: reloading the result never records again;
- `POST /me/code` shows what a discard or save code would do (nothing is recorded);
  `POST /me/code/confirm` records it (its source id comes from the confirmation form,
  so a resubmitted form is the same delivery and is stored once);
- `POST /me/signout`.

Cards are shown only as the feed's participant view shows them (`app.feed.views`: cards
of CPs this participant has not taken never appear; RULES.md I-1).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Form, Query, Request, Response
from fastapi.responses import FileResponse
from sqlalchemy.orm import Session

from app.auctions import rules as auction_rules
from app.auctions import service as auction_service
from app.auctions import views as auction_views
from app.auctions.rules import AuctionStatus
from app.auctions.shapes import AuctionView, current_eligible
from app.callers import OrganiserOrPublic, PhoneParticipant, PhoneVisitor
from app.core import guard
from app.core.config import Settings
from app.core.db import utcnow
from app.core.deps import SessionDep, SettingsDep, database_slots
from app.core.errors import AppError
from app.core.principal import Kind, identify
from app.core.types import Code, FormId, Note, PathId
from app.events import rules as event_rules
from app.events import service as event_service
from app.events.codes import looks_like_cp_code
from app.events.deps import participant_of, participant_principal
from app.events.models import Event, Participant
from app.feed import deck as feed_deck
from app.feed import ingest as feed_ingest
from app.feed import views as feed_views
from app.feed.schemas import ParticipantStateRead, StateTake
from app.feed.views import CodePreview
from app.flows import log_chain
from app.live import hub as live_hub
from app.live import snapshots as live_snapshots
from app.poker.evaluator import partial_value
from app.web import sessions
from app.web.common import render, see_other
from app.web.dates import DAY_TIME, event_time
from app.web.forms import done, redirect_on_error
from app.web.i18n import MESSAGES, negotiate, translate
from app.web.phone import live_texts
from app.web.templating import STATIC_DIR

router = APIRouter(include_in_schema=False)

HAND_SIZE = 5
SOURCE_PREFIX = "page-"  # source ids of takes made on these pages: "page-<uuid>"


@dataclass
class HandCard:
    card: str
    discard_code: str | None


@dataclass
class GameView:
    """What the participant pages show of a participant's state."""

    deal: int
    round: int
    hand: list[HandCard]
    discards_left: int
    save_codes_left: int
    combinations: list[Any]
    takes: list[Any]
    next: str  # collect | draw | decide | must_save
    missing: int
    state: ParticipantStateRead = field(repr=False)
    shown: feed_views.ParticipantView = field(repr=False)  # with the request's one deck
    value: tuple[str, str] | None = None  # the hand's value (English, Russian), 1 to 5 cards

    def value_in(self, lang: str) -> str | None:
        """The hand's value in the page language ("three of a kind, queens, …")."""
        if self.value is None:
            return None
        return self.value[1] if lang == "ru" else self.value[0]


PHONE_TIME = DAY_TIME  # a take's time and the course window on the phone


def course_state(event: Event, now: datetime) -> str:
    """`before`, `open` or `closed`: where `now` is in the course window
    (`event_rules.course_phase`, RULES.md §1.1)."""
    return event_rules.course_phase(event.opens_at, event.closes_at, now)


def game_view(session: SessionDep, participant: Participant) -> GameView:
    """The participant's state from the feed (`feed_views.participant_view`: what they may
    see, RULES.md I-1, with the discard codes of their cards) plus the next step."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    shown = feed_views.participant_view(session, participant)
    state = shown.state
    missing = HAND_SIZE - len(state.hand)
    if missing > 0:
        # RULES.md §1.2 rule 4: discard codes in a row form one step, then draw again.
        drawing = "discarding" if state.discarding else "draw"
        next_step = "collect" if state.round == 1 else drawing
    else:
        next_step = "decide" if state.discards_left > 0 else "must_save"
    takes = [
        {
            **take.model_dump(),
            "local_time": event_time(event, take.taken_at, PHONE_TIME),
        }
        for take in reversed(state.takes)
    ]
    return GameView(
        deal=state.deal,
        round=state.round,
        hand=[HandCard(card, code) for card, code in shown.hand],
        discards_left=state.discards_left,
        save_codes_left=state.save_codes_left,
        combinations=feed_deck.by_strength(state.combinations, event.hand_ranking),
        takes=takes,
        next=next_step,
        missing=missing,
        state=state,
        shown=shown,
        value=hand_value(state.hand, event.hand_ranking),
    )


def hand_value(hand: list[str], ranking: str) -> tuple[str, str] | None:
    """(English, Russian) value of the hand: a full hand's evaluation (RULES.md §1.3), or
    for 1 to 4 cards the best category they already make (`partial_value`, jokers per
    I-6); None for an empty hand."""
    if len(hand) == HAND_SIZE:
        return feed_deck.describe(hand, ranking)
    if not hand:
        return None
    partial = partial_value(hand)
    return partial.description, partial.description_ru


def sign_in_help(request: Request, *, status: int = 200, **context: object) -> Response:
    return render(request, "phone/signin.html", dict(context), status=status)


def message_for(request: Request, error: AppError) -> str:
    """A page message for a refused request (429 rate limit and the like)."""
    lang = negotiate(request)
    key = f"error.{error.code}"
    text = translate(lang, key)
    return error.detail if text == key else text


@router.get("/")
def landing(request: Request, participant: PhoneVisitor, caller: OrganiserOrPublic) -> Response:
    """The site root: a signed-in participant goes to `/me`, the organiser to `/admin`;
    anyone else gets a short page (scan your personal QR code / organiser sign-in)."""
    if participant is not None:
        return see_other("/me")
    if caller.is_organiser:
        return see_other("/admin")
    return render(request, "phone/landing.html")


@router.get("/favicon.ico")
def favicon() -> Response:
    """The site icon (an SVG spade on a card), so browsers stop asking in vain."""
    return FileResponse(
        STATIC_DIR / "favicon.svg",
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )


@router.get("/p/{access_token}")
def personal_link(access_token: str, request: Request, session: SessionDep) -> Response:
    """Sign in with the personal link: set the cookie, then show my game (PRG)."""
    principal = identify(request, session, access_token, (Kind.PARTICIPANT,))
    participant = participant_of(session, principal) if principal else None
    if participant is None:
        guard.mark_failed(request)
        return sign_in_help(request, status=404, bad_link=True)
    response = see_other("/me")
    sessions.sign_in_participant(request, response, participant.id, participant.access_token_hash)
    return response


@router.get("/me")
def my_game(request: Request, session: SessionDep, participant: PhoneParticipant) -> Response:
    """My game: hand, deal and round, the next step, the code form, takes, combinations."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    context = {
        "participant": participant,
        "event": event,
        "course": course_state(event, utcnow()),
        "opens": event_time(event, event.opens_at, PHONE_TIME),
        "closes": event_time(event, event.closes_at, PHONE_TIME),
        "view": game_view(session, participant),
        "message": request.query_params.get("m")
        and translate(negotiate(request), f"game.msg.{request.query_params['m']}"),
        "message_kind": "info",
        "scanner_strings": scanner_strings(negotiate(request)),
    }
    return render(request, "phone/game.html", context)


def scanner_strings(lang: str) -> dict[str, str]:
    """The texts of the in-app QR scanner (`offline/scanner.js`, keys `scan.*`)."""
    return {key: translate(lang, key) for key in MESSAGES if key.startswith("scan.")}


@router.get("/me/hints")
def hints(request: Request, session: SessionDep, participant: PhoneParticipant) -> Response:
    """The CPs' numbers, coordinates and hints (public before the start, RULES.md §1.1) and
    a GPX download: no card, no code. Offline, the shell shows the same from the bundle."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    context = {
        "participant": participant,
        "event": event,
        "rows": event_service.public_rows(session, event),
        "gpx": f"/api/v1/events/{event.id}/checkpoints.gpx",
        "nav": "hints",
    }
    return render(request, "phone/hints.html", context)


@router.get("/t/{code}")
def take_checkpoint(
    code: Code,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    participant: PhoneVisitor,
) -> Response:
    """The page a CP's QR code opens: record the take, then show its result (303).

    Without a participant cookie nothing is recorded; the page explains how to sign in.
    """
    if participant is None:
        return sign_in_help(request, pending_code=True)
    view = game_view(session, participant)
    preview = view.shown.preview(session, code, utcnow())
    if preview.kind != "other":
        # Discards and saves are irreversible: the same confirmation step as the code form
        # (nothing recorded until `POST /me/code/confirm`). Other codes are recorded at once
        # (CP takes; unknown codes count towards the guessing limit in `scan`).
        return confirmation(request, participant, code, view, preview)
    return record_take(
        request, session, settings, participant, code, SOURCE_PREFIX + uuid.uuid4().hex,
        scanned=True,
    )  # fmt: skip


def record_take(
    request: Request,
    session: Session,
    settings: Settings,
    participant: Participant,
    code: str,
    source_id: str,
    *,
    scanned: bool = False,
) -> Response:
    """Record `code` through the feed (`feed_ingest.scan`, as the API's scan) and go to
    the take's page (`?via=qr` for an unknown code from a QR: "not a CP's QR", not
    "check what you typed"); a refusal (409 feed closed, 429 too many unknown
    codes, …) is shown on the refusal page with its status."""
    try:
        result = feed_ingest.scan(
            session,
            participant,
            code,
            source_id=source_id,
            unknown_per_minute=settings.scan_unknown_codes_per_minute,
        )
    except AppError as error:
        return render(
            request,
            "phone/refused.html",
            {"participant": participant, "message": message_for(request, error)},
            status=error.status,
        )
    unknown_qr = scanned and result.reason == "unknown_code"
    return see_other(f"/me/takes/{result.take_id}" + ("?via=qr" if unknown_qr else ""))


def find_take(view: GameView, take_id: int) -> StateTake | None:
    for take in view.state.takes:
        if take.take_id == take_id:
            return take
    return None


@router.get("/me/takes/{take_id}")
def take_result(
    take_id: PathId, request: Request, session: SessionDep, participant: PhoneParticipant
) -> Response:
    """The result of one of my takes: the card large with its discard code, or why it did
    not count (in plain words), then my hand and what to do next."""
    view = game_view(session, participant)
    take = find_take(view, take_id)
    if take is None:
        return render(
            request,
            "phone/refused.html",
            {
                "participant": participant,
                "message": translate(negotiate(request), "take.unknown_take"),
            },
            status=404,
        )
    event = session.get(Event, participant.event_id)
    assert event is not None
    result = {**take.model_dump(), "discard_code": view.shown.take_discard_code(take)}
    combination = next((c for c in view.combinations if c.id == take_id), None)
    context = {
        "participant": participant,
        "view": view,
        "result": result,
        "combination": combination,
        "course": course_state(event, utcnow()),
        "scanned": request.query_params.get("via") == "qr",
        "scanner_strings": scanner_strings(negotiate(request)),
    }
    return render(request, "phone/take.html", context)


@router.post("/me/code")
def check_code(
    request: Request,
    session: SessionDep,
    participant: PhoneParticipant,
    code: Annotated[Note, Form()] = "",
) -> Response:
    """Step 1 of entering a discard or save code: show what it will do, ask to confirm."""
    code = code.strip()
    if not code:
        return see_other("/me?m=empty")
    view = game_view(session, participant)
    preview = view.shown.preview(session, code, utcnow())
    return confirmation(request, participant, code, view, preview)


def confirmation(
    request: Request, participant: Participant, code: str, view: GameView, preview: CodePreview
) -> Response:
    """The confirmation page of a code (nothing is recorded here).

    Only this participant's own codes are named (`ParticipantView.preview`: the discard
    code of a card in the hand, one of the participant's save codes); every other code is
    "not one of your codes" (RULES.md I-1, secrecy). An own code the rules would refuse
    now says why, with no button to record it.
    """
    context = {
        "refusal": preview.refusal,
        "participant": participant,
        "view": view,
        "code": code,
        "normalised": preview.normalised or code,
        "kind": preview.kind,
        "cp_shaped": looks_like_cp_code(preview.normalised or code),
        "target_card": preview.card,
        "source_id": SOURCE_PREFIX + uuid.uuid4().hex,
    }
    return render(request, "phone/confirm.html", context)


@router.post("/me/code/confirm")
def confirm_code(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    participant: PhoneParticipant,
    code: Annotated[Note, Form()] = "",
    source_id: Annotated[Note, Form()] = "",
) -> Response:
    """Step 2: record the code through the feed (same path as a scan), then show the result.

    The source id comes from the confirmation form: submitting it twice is one delivery.
    """
    if not code.strip():
        return see_other("/me")
    if not source_id.startswith(SOURCE_PREFIX) or len(source_id) > 64:
        source_id = SOURCE_PREFIX + uuid.uuid4().hex
    return record_take(request, session, settings, participant, code.strip(), source_id)


@router.post("/me/signout")
def sign_out() -> Response:
    """Forget the participant cookie on this phone (a stale form only goes back to `/me`)."""
    response = see_other("/me")
    sessions.sign_out_participant(response)
    return response


# --- ceremony ----------------------------------------------------------------------


def _tie_break_only(view: AuctionView, participant: Participant) -> bool:
    """Whether the round taking bids in `view` is a tie-break `participant` is not in."""
    eligible = current_eligible(view)
    return eligible is not None and participant.external_id not in eligible


def phone_ceremony_context(session: SessionDep, participant: Participant) -> dict[str, Any]:
    """The auctions as this participant may see them (copies with `tie_break_only` and
    the allowed bid steps added; the service's views are not changed), the combinations
    they may bid, the names, log head, live version and shape for the phone page."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    caller = participant_principal(participant)
    views = [
        auction_views.auction_view(session, event, place, caller)
        for place in auction_rules.ceremony_order(event.award_places)
    ]
    # a place won, as far as revealed (RULES.md I-8, I-21): from the views themselves
    won = any(
        v["status"] == AuctionStatus.CLOSED
        and not v.get("revealing")
        and v.get("winner") == participant.external_id
        for v in views
    )
    state = feed_views.participant_state(session, participant, as_participant=True)
    usable_ids = auction_service.usable_combination_ids(session, event, participant.id)
    usable = feed_deck.by_strength(
        feed_views.usable_combinations(state, usable_ids), event.hand_ranking
    )
    # only the participants these views name, not the whole event (issue 18: a phone's
    # data is a small query set of its own)
    names = live_snapshots.names_in_views(session, event.id, views)
    # the page's copies of the views (the service's own are not changed): a tie-break round
    # is open to the tied bidders only (RULES.md I-9), and the bid and withdraw buttons
    # the page may show
    shown = [
        {
            **view,
            "tie_break_only": _tie_break_only(view, participant),
            **auction_service.allowed_bid_steps(session, event, view, caller),
        }
        for view in views
    ]
    return {
        "event": event,
        "auctions": shown,
        "usable": usable,
        "won": won,
        "names": names,
        # the head fixed at the finish, read from the event row (no per-participant query)
        "log_head": log_chain.final_head(event),
        "version": live_snapshots.current_version(session, event.id),
        # the public stage of each auction (`auction_views.stage_of`), as the live stream's
        # `shape` and the fallback poll's (`live_snapshots.shape`) give it
        "shape": ";".join(f"{v['place']}:{auction_views.stage_of(v)}" for v in views),
    }


@router.get("/me/ceremony")
def ceremony(request: Request, session: SessionDep, participant: PhoneParticipant) -> Response:
    """The award ceremony on the phone: the open auction with a bid form, my sealed bid and
    its receipt, then each auction's revealed results."""
    lang = negotiate(request)
    done, error = request.query_params.get("done"), request.query_params.get("error")
    context = {
        "participant": participant,
        "notice": translate(lang, f"ceremony.{done}") if done else None,
        "error": translate(lang, f"error.{error}") if error else None,
        "live_text": live_texts.closed_auction_texts(lang),
        **phone_ceremony_context(session, participant),
    }
    return render(request, "phone/ceremony.html", context)


@router.get("/me/ceremony.json")
async def ceremony_live(
    request: Request,
    since: Annotated[int | None, Query(ge=0)] = None,
    event: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> dict[str, Any]:
    """The fallback poll of the ceremony page (when the live stream is unavailable).

    `version`: the event's live version. With `event` and `since` (the page sends both) it
    comes from this process's live hub, kept current by the database's notifications (no
    query: cheaper than `/healthz`, whatever the event's size); when it equals `since` that
    is the whole answer. Otherwise the participant's row and the version are read in one
    query, plus `shape` (`"place:stage;…"`, two small queries on the auction and round
    rows, `live_snapshots.shape`): the page
    re-fetches itself when the shape changed. The version is public (the live stream)."""
    cookie = sessions.participant_cookie(request)
    if cookie is None:
        return {"version": 0, "signed_out": True}
    if since is not None and event is not None:  # the page's poll: no query while unchanged
        cached = await live_hub.cached_version(request.app, event)
        if cached == since:
            return {"version": since}
    async with database_slots(request.app):
        return await anyio.to_thread.run_sync(ceremony_poll, request, cookie, since)


def ceremony_poll(request: Request, cookie: tuple[int, str], since: int | None) -> dict[str, Any]:
    """The fallback poll from the database (see `ceremony_live`)."""
    with request.app.state.engine.connect() as connection:
        found = live_snapshots.participant_version(connection, cookie[0])
    if not found or not found[1].startswith(cookie[1] or "-"):
        return {"version": 0, "signed_out": True}
    event_id, _, version = found
    if since is not None and since == version:
        return {"version": version}
    with request.app.state.sessionmaker() as session:
        event = session.get(Event, event_id)
        assert event is not None
        return {"version": version, "shape": live_snapshots.shape(session, event)}


@router.post("/me/ceremony/{place}/bid")
def bid(
    place: PathId,
    request: Request,
    session: SessionDep,
    participant: PhoneParticipant,
    combination_id: Annotated[FormId | None, Form()] = None,
) -> Response:
    """Put one of my combinations into the open auction (replaces my earlier bid)."""
    if combination_id is None:
        return see_other("/me/ceremony")
    event = session.get(Event, participant.event_id)
    assert event is not None
    caller = participant_principal(participant)
    with redirect_on_error("/me/ceremony"):
        auction_service.place_bid(
            session, event, place, caller, participant=None, combination_id=combination_id
        )
    return done("/me/ceremony", "bid_placed")


@router.post("/me/ceremony/{place}/withdraw")
def withdraw(
    place: PathId,
    request: Request,
    session: SessionDep,
    participant: PhoneParticipant,
    bid_id: Annotated[FormId, Form()],
) -> Response:
    """Withdraw my sealed bid before the close (RULES.md I-7)."""
    event = session.get(Event, participant.event_id)
    assert event is not None
    caller = participant_principal(participant)
    with redirect_on_error("/me/ceremony"):
        auction_service.withdraw_bid(session, event, place, caller, bid_id)
    return done("/me/ceremony", "bid_withdrawn")
