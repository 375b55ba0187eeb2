"""Organiser pages under `/admin`: sign-in, events, dashboard, checkpoints, participants,
integration keys, ceremony and the projector view.

Every page needs the organiser (session cookie or bearer token); a browser without a
session is sent to `/admin/login`. Every form carries a CSRF token tied to the session.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request, Response
from sqlalchemy.orm import Session

from app.auctions import rules as auction_rules
from app.auctions import service as auction_service
from app.auctions import views as auction_views
from app.callers import AdminPage, OrganiserDep
from app.core import guard
from app.core.db import utcnow
from app.core.deps import SessionDep, SettingsDep
from app.core.principal import ORGANISER, PUBLIC, Principal
from app.core.security import tokens_equal
from app.core.types import ExternalIdRef, FormId, Note, PageNumber, PathId, to_utc
from app.events import printing
from app.events import rules as event_rules
from app.events import service as events_service
from app.events.deps import EventDep
from app.events.models import Event
from app.feed import ingest as feed_ingest
from app.feed import keys as key_service
from app.feed import views as feed_views
from app.feed.schemas import IntegrationKeyCreate
from app.flows import ceremony as ceremony_flow
from app.flows import dashboard as dashboard_flow
from app.flows import device_trust, log_chain
from app.flows.dashboard import dashboard_numbers
from app.live import snapshots as live_snapshots
from app.web import roles, sessions
from app.web.admin import ceremony as admin_ceremony
from app.web.common import local_path, quoted, render, see_other
from app.web.dates import DAY_TIME_SECONDS, INPUT_MINUTES, event_time
from app.web.forms import PageRedirect, done, outcome, redirect_on_error
from app.web.i18n import negotiate

router = APIRouter(prefix="/admin", include_in_schema=False)


@router.get("/login")
def login_form(request: Request, next: str | None = None, error: str | None = None) -> Response:
    """The organiser sign-in form (a token field)."""
    token, new_nonce = sessions.anonymous_csrf(request)
    context = {"next": local_path(next, "/admin"), "error": error, "login_csrf": token}
    response = render(request, "admin/login.html", context, status=401 if error else 200)
    if new_nonce:
        sessions.set_anonymous_nonce(request, response, new_nonce)
    return response


@router.post("/login")
def login(
    request: Request,
    settings: SettingsDep,
    session: SessionDep,
    token: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/admin",
) -> Response:
    """Check the organiser token and start a session (303 to `next`); a wrong token counts
    as a failed sign-in of this address (`app.core.guard`)."""
    target = local_path(next, "/admin")
    if not tokens_equal(token.strip(), settings.admin_token):
        guard.mark_failed(request)
        return see_other("/admin/login?error=1&next=" + quoted(target))
    response = see_other(target)
    sid = guard.start_session(session, max_age=sessions.ORGANISER_MAX_AGE)
    sessions.sign_in_organiser(request, response, sid)
    return response


@router.post("/logout")
def logout(request: Request, session: SessionDep) -> Response:
    """End the organiser session: its row is deleted, so the cookie stops working everywhere."""
    sid = sessions.organiser_session_id(request)
    if sid is not None:
        guard.end_session(session, sid)
    response = see_other("/admin/login")
    sessions.sign_out_organiser(response)
    return response


@router.get("")
def events_page(request: Request, session: SessionDep, caller: AdminPage) -> Response:
    """The events of this service, each linking to its dashboard; an organiser member sees
    its own event and the pages its role opens (`app.web.roles.member_links`)."""
    member = guard.organiser_member(request)
    if member is not None:
        event = session.get(Event, member.event_id)
        events = [event] if event is not None else []
        links = roles.member_links(member, event.award_places) if event is not None else []
    else:
        events, links = events_service.list_events(session), []
    context = {
        "events": events,
        "member": member,
        "member_links": links,
        "local": lambda moment, event: event_time(event, moment),
        **outcome(request),
    }
    return render(request, "admin/events.html", context)


# --- event pages -------------------------------------------------------------------

KEY_FLASH_COOKIE = "rp_new_key"


def participant_url(event: Event, external_id: str) -> str:
    return f"/admin/events/{event.id}/participants/{quote(external_id)}"


def course_phase(event: Event, now: datetime) -> tuple[str, datetime | None]:
    """(`before` | `open` | `closed`, the moment the countdown runs to): where `now` sits
    in the course window (`event_rules.course_phase`, RULES.md §1.1)."""
    phase = event_rules.course_phase(event.opens_at, event.closes_at, now)
    countdown = {
        event_rules.COURSE_BEFORE: event.opens_at,
        event_rules.COURSE_OPEN: event.closes_at,
    }
    return phase, countdown.get(phase)


@router.get("/events/{event_id}")
def dashboard(
    event: EventDep, request: Request, session: SessionDep, settings: SettingsDep, _: AdminPage
) -> Response:
    """Dashboard: course window with countdown, participants, takes per minute, warnings
    (counters, and the first rows of each list: the warnings page has them all, paged),
    the count of phone times to review, BASE_URL warnings. Its cost does not grow with
    the event (issue 24)."""
    now = utcnow()
    phase, countdown_to = course_phase(event, now)
    numbers = dashboard_numbers(session, event, now)
    warnings = dashboard_flow.dashboard_warnings(session, event)
    context = {
        "event": event,
        "section": "dashboard",
        "phase": phase,
        "countdown_to": countdown_to.isoformat() if countdown_to else None,
        "opens": event_time(event, event.opens_at),
        "closes": event_time(event, event.closes_at),
        "n": numbers,
        "live_version": live_snapshots.current_version(session, event.id),
        "warnings": warnings,
        "shown": dashboard_flow.DASHBOARD_ROWS,
        # one indexed count (flat in the number of participants); the list is its own page
        "review_open": device_trust.open_count(session, event.id),
        **printing.base_url_context(settings.base_url),
        "local": lambda moment: event_time(event, moment, DAY_TIME_SECONDS),
        **outcome(request),
    }
    return render(request, "admin/dashboard.html", context)


@router.get("/events/{event_id}/live.json")
def dashboard_live(event: EventDep, session: SessionDep, _: OrganiserDep) -> dict[str, Any]:
    """The dashboard's live counters (polled by the page every few seconds): one query."""
    return dashboard_numbers(session, event, utcnow())


@router.get("/events/{event_id}/warnings")
def warnings_page(
    event: EventDep, request: Request, session: SessionDep, _: AdminPage, page: PageNumber = 1
) -> Response:
    """Every warning of the event, paged (`?page=N`, 100 rows of each list a page): the
    unsaved hands, the hand_full refusals, the unknown codes, the device clocks and the
    future-dated takes."""
    numbers = dashboard_numbers(session, event, utcnow())
    per_page = dashboard_flow.WARNINGS_PAGE_ROWS
    longest = max(numbers["unsaved_hands"], numbers["hand_full"], numbers["unknown_codes"], 1)
    context = {
        "event": event,
        "section": "dashboard",
        "n": numbers,
        "warnings": dashboard_flow.warnings_page(session, event, page),
        "page": page,
        "pages": -(-longest // per_page),
        "local": lambda moment: event_time(event, moment, DAY_TIME_SECONDS),
    }
    return render(request, "admin/warnings.html", context)


# The deck and participants pages: app.web.admin.setup.


@router.get("/events/{event_id}/participant-cards")
def participant_cards_button(event: EventDep, _: AdminPage) -> Response:
    """A browser that opens (or reloads) the cards' URL: 303 to the checkpoints page,
    whose button prints them. Printing re-issues the personal links, so a GET never
    prints."""
    return see_other(f"/admin/events/{event.id}/checkpoints")


@router.post("/events/{event_id}/participant-cards")
def participant_cards(
    event: EventDep,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    _: AdminPage,
    participant: Annotated[Note, Form()] = "",
    reissue: Annotated[Note, Form()] = "",
) -> Response:
    """Printable participant cards (one participant, or all). A card printed before keeps
    its link; a first print, or `reissue`, issues a new token (`events_service.card_token`),
    so this is a CSRF-protected POST."""
    if participant:
        targets = [events_service.get_participant(session, event, participant)]
    else:
        targets = list(events_service.participants(session, event.id))
    again = reissue == "1"
    issued, renewed = events_service.card_tokens(
        session, event, targets, settings.cookie_secret, reissue=again
    )
    return printing.participant_cards(request, event, issued, settings.base_url, renewed)


@router.get("/events/{event_id}/participants/{external_id}")
def participant_page(
    event: EventDep, external_id: ExternalIdRef, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """One participant: current state, the take log with outcomes, corrections."""
    participant = events_service.get_participant(session, event, external_id)
    state = feed_views.participant_state(session, participant, as_participant=False)
    log = feed_views.log(session, event, participant=external_id, limit=2000)
    context = {
        "event": event,
        "section": "participants",
        "participant": participant,
        "state": state,
        "log": log.items,
        "local": lambda moment: event_time(event, moment, DAY_TIME_SECONDS),
        "now_local": event_time(event, utcnow(), INPUT_MINUTES),
        **outcome(request),
    }
    return render(request, "admin/participant.html", context)


@router.post("/events/{event_id}/participants/{external_id}/void")
def void_take(
    event: EventDep,
    external_id: ExternalIdRef,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    take_id: Annotated[FormId, Form()],
    reason: Annotated[Note, Form()] = "",
) -> Response:
    """Correction: void one take (the take stays in the log; the participant is replayed)."""
    url = participant_url(event, external_id)
    with redirect_on_error(url):
        feed_ingest.void_take(
            session, event, take_id, reason.strip() or "organiser correction", actor=caller.actor
        )
    return done(url, "correction")


@router.post("/events/{event_id}/participants/{external_id}/takes")
def add_take(
    event: EventDep,
    external_id: ExternalIdRef,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    code: Annotated[Note, Form()] = "",
    taken_at: Annotated[Note, Form()] = "",
    note: Annotated[Note, Form()] = "",
    source_id: Annotated[Note, Form()] = "",
) -> Response:
    """Correction: add a missing take (time in the event's time zone)."""
    url = participant_url(event, external_id)
    try:
        moment = datetime.fromisoformat(taken_at.strip())
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=events_service.event_zone(event))
        moment = to_utc(moment)  # the range of every time the service accepts
    except ValueError:
        raise PageRedirect(url, code="bad_time") from None
    if not code.strip():
        raise PageRedirect(url, code="empty_code")
    with redirect_on_error(url):
        feed_ingest.add_take(
            session,
            event,
            participant=external_id,
            code=code.strip(),
            taken_at=moment,
            note=note.strip(),
            source_id=source_id or None,
            actor=caller.actor,
        )
    return done(url, "correction")


@router.get("/events/{event_id}/keys")
def keys_page(event: EventDep, request: Request, session: SessionDep, _: AdminPage) -> Response:
    """Integration keys of the event; a key just created is shown once."""
    new_key = None
    raw = request.cookies.get(KEY_FLASH_COOKIE)
    if raw:
        new_key = sessions.read_flash(request, raw)
    context = {
        "event": event,
        "section": "keys",
        "keys": key_service.list_keys(session, event),
        "new_key": new_key,
        "local": lambda moment: event_time(event, moment),
        **outcome(request),
    }
    response = render(request, "admin/keys.html", context)
    if raw:
        response.delete_cookie(KEY_FLASH_COOKIE, path="/admin")
    return response


@router.post("/events/{event_id}/keys")
def create_key(
    event: EventDep,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    name: Annotated[Note, Form()] = "",
) -> Response:
    """Create an integration key; the page after the redirect shows it once."""
    url = f"/admin/events/{event.id}/keys"
    with redirect_on_error(url):
        body = IntegrationKeyCreate(name=name.strip() or "key")
        created = key_service.create_key(session, event, body, actor=caller.actor)
    response = see_other(url)
    sessions.set_flash(request, response, KEY_FLASH_COOKIE, created.key, path="/admin")
    return response


@router.post("/events/{event_id}/keys/{key_id}/revoke")
def revoke_key(
    event: EventDep,
    key_id: PathId,
    session: SessionDep,
    caller: AdminPage,
) -> Response:
    """Revoke an integration key (it stops working at once)."""
    url = f"/admin/events/{event.id}/keys"
    with redirect_on_error(url):
        key_service.revoke_key(session, event, key_id, actor=caller.actor, now=utcnow())
    return done(url, "key_revoked")


# --- ceremony ----------------------------------------------------------------------


def ceremony_views(session: Session, event: Event, caller: Principal) -> list[dict[str, Any]]:
    """Each auction in ceremony order (3rd place first) as `caller` may see it."""
    return [
        auction_views.auction_view(session, event, place, caller)
        for place in auction_rules.ceremony_order(event.award_places)
    ]


def ceremony_version(views: list[dict[str, Any]]) -> str:
    """Changes whenever an auction opens, closes, starts a tie-break round or reveals a
    step (`auction_views.stage_of`)."""
    return ";".join(f"{v['place']}:{auction_views.stage_of(v)}" for v in views)


def names_of(session: Session, event: Event) -> dict[str, str]:
    return {p.external_id: p.name for p in events_service.participants(session, event.id)}


@router.get("/events/{event_id}/ceremony")
def ceremony_page(event: EventDep, request: Request, session: SessionDep, _: AdminPage) -> Response:
    """Open and close each auction (a close and an undo ask for a confirmation first);
    live count of sealed bids; the reveal's progress and links to the projector."""
    views = ceremony_views(session, event, ORGANISER)
    context = {
        "event": event,
        "section": "ceremony",
        "auctions": views,
        "version": ceremony_version(views),
        "live_version": live_snapshots.current_version(session, event.id),
        "shape": live_snapshots.shape(session, event),
        "names": names_of(session, event),
        "results": auction_views.results(session, event),
        "progress": admin_ceremony.reveal_progress(views),
        **admin_ceremony.ceremony_context(
            session, event, views, request.query_params.get("participant")
        ),
        "log_head": log_chain.shown_head(session, event),
        **outcome(request),
    }
    return render(request, "admin/ceremony.html", context)


@router.get("/events/{event_id}/ceremony.json")
def ceremony_live(event: EventDep, session: SessionDep, _: OrganiserDep) -> dict[str, Any]:
    """Live ceremony counters: `bids_<place>` (sealed bids in), `version` (status changes)."""
    views = ceremony_views(session, event, ORGANISER)
    data: dict[str, Any] = {
        "version": ceremony_version(views),
        "shape": live_snapshots.shape(session, event),
    }
    for view in views:
        data[f"bids_{view['place']}"] = view["bid_count"]
    return data


def _ceremony_url(event: Event) -> str:
    return f"/admin/events/{event.id}/ceremony"


def _projector_url(event: Event, place: int) -> str:
    return f"/admin/events/{event.id}/projector/{place}"


@router.post("/events/{event_id}/auctions/{place}/open")
def auction_open(
    event: EventDep, place: PathId, session: SessionDep, caller: AdminPage
) -> Response:
    """Open auction `place` for sealed bids; back to the ceremony page."""
    url = _ceremony_url(event)
    with redirect_on_error(url):
        ceremony_flow.open_auction(session, event, place, caller)
    return done(url, "auction_open")


@router.post("/events/{event_id}/auctions/{place}/close")
def auction_close(
    event: EventDep,
    place: PathId,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    lots_seed: Annotated[str, Form()] = "",
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Close auction `place` (optional `lots_seed`, digits, at most 18). Without
    `confirm=1` a confirmation page says what will happen and nothing changes; with it,
    the close is done and the projector follows."""
    url = _ceremony_url(event)
    if confirm != "1":
        with redirect_on_error(url):
            auction_service.verify_close_auction(session, event, place)
        return _confirm_step(request, session, event, place, "close", lots_seed)
    with redirect_on_error(url):
        raw = lots_seed.strip()
        seed = int(raw) if raw.isdigit() and len(raw) <= 18 else None
        ceremony_flow.close_auction(session, event, place, caller, lots_seed=seed)
    return see_other(_projector_url(event, place))


@router.post("/events/{event_id}/auctions/{place}/undo")
def auction_undo(
    event: EventDep,
    place: PathId,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Undo the last close of auction `place`, while nothing of it is revealed. Without
    `confirm=1` a confirmation page says what will happen and nothing changes."""
    url = _ceremony_url(event)
    if confirm != "1":
        with redirect_on_error(url):
            auction_service.verify_undo_close(session, event, place)
        return _confirm_step(request, session, event, place, "undo", "")
    with redirect_on_error(url):
        ceremony_flow.undo_close(session, event, place, caller)
    return done(url, "auction_undo")


@router.post("/events/{event_id}/auctions/{place}/reveal")
def auction_reveal(
    event: EventDep,
    place: PathId,
    session: SessionDep,
    caller: AdminPage,
    all: Annotated[str, Form()] = "",
) -> Response:
    """Reveal the next step of auction `place` (every step left with `all=1`); back to
    the projector (RULES.md I-21)."""
    projector_url = _projector_url(event, place)
    with redirect_on_error(projector_url):
        ceremony_flow.reveal(session, event, place, caller, everything=all == "1")
    return see_other(projector_url)


@router.post("/events/{event_id}/auctions/{place}/bid")
def auction_bid(
    event: EventDep,
    place: PathId,
    session: SessionDep,
    caller: AdminPage,
    participant: Annotated[str, Form()] = "",
    combination_id: Annotated[str, Form()] = "",
) -> Response:
    """A sealed bid in auction `place` on behalf of `participant` with their
    `combination_id` (digits), audited as the organiser's; back to the ceremony page."""
    url = _ceremony_url(event)
    if not combination_id.isdigit():
        return see_other(url)
    with redirect_on_error(url):
        auction_service.place_bid(
            session,
            event,
            place,
            caller,
            participant=participant or None,
            combination_id=int(combination_id),
        )
    return done(url, "bid_placed")


def _confirm_step(
    request: Request, session: Session, event: Event, place: int, action: str, lots_seed: str
) -> Response:
    """The confirmation page of a close or an undo: what will happen, then the same form
    with `confirm=1` (nothing is changed until then)."""
    said = admin_ceremony.confirmation(session, event, place, action, negotiate(request))
    context = {
        "event": event,
        "section": "ceremony",
        "title": said["title"],
        "lines": said["lines"],
        "button": said["button"],
        "action": f"/admin/events/{event.id}/auctions/{place}/{action}",
        "fields": {"lots_seed": lots_seed.strip()}
        if action == "close" and lots_seed.strip()
        else {},
        "cancel_url": _ceremony_url(event),
    }
    return render(request, "admin/ceremony_confirm.html", context)


@router.get("/events/{event_id}/projector/{place}")
def projector(
    event: EventDep, place: PathId, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """The projector view of one auction: exactly what the public sees (RULES.md I-21).
    While open, the count of sealed bids; after the close, "closed, being revealed" and
    the bids as the organiser reveals them with the buttons (forms: the next step, or
    all), from the weakest to the strongest, then the outcome, then the podium. A
    tie-break round shows its own live bid count under the revealed tied round."""
    shown = admin_ceremony.projector_context(session, event, place)
    context = {
        "event": event,
        "place": place,
        **shown,
        # only whom the view names (not every participant: issue 24)
        "names": live_snapshots.names_in_views(session, event.id, [shown["view"]]),
        "version": ceremony_version([shown["view"]]),
        "log_head": log_chain.shown_head(session, event),
        "live_version": live_snapshots.current_version(session, event.id),
        "shape": live_snapshots.shape(session, event),
    }
    return render(request, "admin/projector.html", context)


@router.get("/events/{event_id}/projector/{place}/live.json")
def projector_live(
    event: EventDep, place: PathId, session: SessionDep, _: OrganiserDep
) -> dict[str, Any]:
    view = auction_views.auction_view(session, event, place, PUBLIC)
    return {
        "version": ceremony_version([view]),
        "bids": view["bid_count"],
        f"bids_{place}": view["bid_count"],
        "shape": live_snapshots.shape(session, event),
    }
