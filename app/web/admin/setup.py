"""Organiser setup pages: create and edit an event, the deck, the participants.

Plain HTML forms that work without JavaScript; form fields are named as the API's
JSON fields (`name`, `opens_at`, `timezone`, `hand_ranking`, `save_codes_per_participant`,
`seed`, `lat`, `lon`, `hint`, `external_id`, `category`; uploads as `file`). Each route
checks the organiser (`AdminPage`; the CSRF token is checked app-wide, `app.web.csrf`),
then calls the event services that the API calls too; a refused form goes back to its page with the
message through `app.web.forms` (one error handler, nothing stored).

Times on these pages are in the event's IANA time zone (`datetime-local` fields).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, File, Form, Path, Request, Response, UploadFile
from markupsafe import Markup

from app.callers import AdminPage
from app.core import csvfiles, iof
from app.core.deps import SessionDep, SettingsDep
from app.core.errors import AppError, InputProblem, Unprocessable
from app.events import printing
from app.events import service as events_service
from app.events.deps import EventDep
from app.events.models import Event
from app.events.qr import personal_url, qr_svg
from app.events.schemas import (
    CheckpointUpdate,
    EventCreate,
    EventUpdate,
    ParticipantCreate,
    check_timezone,
)
from app.feed import views as feed_views
from app.feed.rules import PlayState
from app.flows import course as course_flow
from app.flows import event_setup
from app.flows.schemas import ReplayRead
from app.web import sessions
from app.web.admin.course import replay_lines
from app.web.common import render
from app.web.dates import INPUT_MINUTES, event_time
from app.web.forms import done, forget_messages, page_messages, redirect_on_error
from app.web.i18n import negotiate, translate

router = APIRouter(prefix="/admin", include_in_schema=False)

LINK_FLASH_COOKIE = "rp_new_link"  # a personal link just issued, shown once
DEFAULT_TIMEZONE = "Europe/Moscow"
LOCAL_INPUT = INPUT_MINUTES  # the value format of <input type="datetime-local">
Text = Annotated[str, Form()]


def page(request: Request, template: str, context: dict[str, Any]) -> Response:
    """Render a setup page with the outcome of the last form (then forgotten)."""
    messages = page_messages(request)
    if "defaults" in context:  # a refused form shows what was sent
        context["v"] = {**context["defaults"], **messages["form"]}
    response = render(request, template, {**context, **messages})
    return forget_messages(request, response)


def event_url(event: Event, suffix: str = "") -> str:
    return f"/admin/events/{event.id}{suffix}"


# --- events --------------------------------------------------------------------------


def local_moment(value: str, timezone: str, field: str) -> datetime:
    """A `datetime-local` value (`2026-06-13T12:00`) in the IANA zone `timezone` as an
    aware datetime; an offset in the value wins. Raises Unprocessable naming `field`."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise Unprocessable(
            f"{field} is not a date and time.",
            errors=[{"field": field, "msg": "not a date and time"}],
        ) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(timezone))
    try:
        moment.astimezone(UTC)
    except OverflowError as exc:  # year 1 or 9999 at the edge of the range
        raise Unprocessable(
            f"{field} is out of range.", errors=[{"field": field, "msg": "out of range"}]
        ) from exc
    return moment


def checked_timezone(value: str) -> str:
    """`value` when it is an IANA time zone; else Unprocessable naming the field."""
    try:
        return check_timezone(value.strip())
    except InputProblem as exc:
        error = {"field": "timezone", "msg": str(exc), "type": exc.code, "values": exc.values}
        raise Unprocessable("Unknown time zone.", errors=[error]) from exc


def event_form_values(event: Event) -> dict[str, Any]:
    """The edit form's values of `event` (window in its own time zone)."""
    return {
        "name": event.name,
        "timezone": event.timezone,
        "opens_at": event_time(event, event.opens_at, LOCAL_INPUT),
        "closes_at": event_time(event, event.closes_at, LOCAL_INPUT),
        "hand_ranking": event.hand_ranking,
        "save_codes_per_participant": event.save_codes_per_participant,
        "award_places": event.award_places,
    }


@router.get("/new-event")
def new_event_form(request: Request, _: AdminPage) -> Response:
    """The form of a new event: name, course window (event time), time zone, ranking
    preset, save codes per participant, places."""
    defaults = {
        "timezone": DEFAULT_TIMEZONE,
        "hand_ranking": "seed",
        "save_codes_per_participant": 10,
        "award_places": 3,
    }
    return page(request, "admin/event_form.html", {"nav": "events", "defaults": defaults})


@router.post("/new-event")
def create_event(
    request: Request,
    session: SessionDep,
    _: AdminPage,
    name: Text = "",
    opens_at: Text = "",
    closes_at: Text = "",
    timezone: Text = DEFAULT_TIMEZONE,
    hand_ranking: Text = "seed",
    save_codes_per_participant: Text = "10",
    award_places: Text = "3",
) -> Response:
    """Create the event in status `draft` (`events.service.create_event`), then its deck page."""
    values = {
        "name": name,
        "opens_at": opens_at,
        "closes_at": closes_at,
        "timezone": timezone,
        "hand_ranking": hand_ranking,
        "save_codes_per_participant": save_codes_per_participant,
        "award_places": award_places,
    }
    with redirect_on_error("/admin/new-event", values):
        zone = checked_timezone(timezone)
        data = EventCreate(
            name=name.strip(),
            opens_at=local_moment(opens_at, zone, "opens_at"),
            closes_at=local_moment(closes_at, zone, "closes_at"),
            timezone=zone,
            hand_ranking=hand_ranking,  # type: ignore[arg-type]
            save_codes_per_participant=save_codes_per_participant,  # type: ignore[arg-type]
            award_places=award_places,  # type: ignore[arg-type]
        )
        event = events_service.create_event(session, data)
    return done(event_url(event, "/checkpoints"), "event_created")


@router.get("/events/{event_id}/settings")
def event_settings(
    event: EventDep, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """Edit the event's fields other than the course window (the course page changes it)."""
    context = {
        "event": event,
        "section": "settings",
        "defaults": event_form_values(event),
        "has_takes": event_setup.has_takes(session, event),
        "opens": event_time(event, event.opens_at),
        "closes": event_time(event, event.closes_at),
    }
    return page(request, "admin/event_form.html", context)


@router.post("/events/{event_id}/settings")
def update_event(
    event: EventDep,
    request: Request,
    session: SessionDep,
    _: AdminPage,
    name: Text = "",
    timezone: Text = "",
    hand_ranking: Text = "",
    save_codes_per_participant: Text = "",
    award_places: Text = "",
    confirm: Text = "",
) -> Response:
    """Change name, time zone, places, save codes per participant (`participants_exist` once
    participants got theirs) and the ranking preset, through `flows.course.change_event`
    (the same as `PATCH`). A preset change that replays recorded takes is first shown as
    a preview ("11 takes of 1 participant …"); `confirm=1` applies it."""
    url = event_url(event, "/settings")
    values = {
        "name": name,
        "timezone": timezone,
        "hand_ranking": hand_ranking,
        "save_codes_per_participant": save_codes_per_participant,
        "award_places": award_places,
    }
    with redirect_on_error(url, values):
        data = EventUpdate(
            name=name.strip(),
            timezone=checked_timezone(timezone),
            hand_ranking=hand_ranking or event.hand_ranking,  # type: ignore[arg-type]
            save_codes_per_participant=save_codes_per_participant,  # type: ignore[arg-type]
            award_places=award_places,  # type: ignore[arg-type]
        )
        if course_flow.replays(session, event, data) and confirm != "1":
            preview = course_flow.change_event(session, event, data, dry_run=True)
            return ranking_confirmation(request, event, values, preview.replay)
        course_flow.change_event(session, event, data)
    return done(url, "event_saved")


def ranking_confirmation(
    request: Request, event: Event, fields: dict[str, str], replay: ReplayRead | None
) -> Response:
    """The confirmation step of a ranking preset change that replays recorded takes."""
    lang = negotiate(request)
    ranking = translate(lang, f"ranking.{fields['hand_ranking']}")
    heading = f"{translate(lang, 'setup.hand_ranking')}: {ranking}"
    context = {
        "event": event,
        "section": "settings",
        "action": event_url(event, "/settings"),
        "title_key": "setup.ranking_confirm",
        "heading": heading,
        "button_key": "setup.ranking_apply",
        "cancel_url": event_url(event, "/settings"),
        "cancel_key": "common.cancel",
        "fields": fields,
        "lines": replay_lines(lang, replay, applied=False),
    }
    return render(request, "admin/confirm.html", context)


# --- the deck ------------------------------------------------------------------------


@router.get("/events/{event_id}/checkpoints")
def checkpoints_page(
    event: EventDep, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """The deck: shuffle, CSV upload, every CP with its card, codes and an in-place edit of
    its coordinates and hint; links to the public preview and the QR sheet."""
    context = {
        "event": event,
        "section": "checkpoints",
        "checkpoints": events_service.checkpoints(session, event.id),
        "deck_locked": event_setup.has_takes(session, event),
    }
    return page(request, "admin/checkpoints.html", context)


@router.post("/events/{event_id}/checkpoints/shuffle")
def shuffle_deck(event: EventDep, session: SessionDep, _: AdminPage, seed: Text = "") -> Response:
    """Deal a shuffled deck (`flows.event_setup.shuffle_deck`); an empty seed draws one."""
    url = event_url(event, "/checkpoints")
    with redirect_on_error(url, {"seed": seed}):
        try:
            number = int(seed) if seed.strip() else None
        except ValueError as exc:
            raise Unprocessable(
                "The seed is not a whole number.",
                errors=[{"field": "seed", "msg": "not a whole number"}],
            ) from exc
        if number is not None and not 0 <= number < 2**63:
            raise Unprocessable(
                "The seed is out of range.", errors=[{"field": "seed", "msg": "0 to 2^63-1"}]
            )
        event_setup.shuffle_deck(session, event, number)
    return done(url, "deck_shuffled")


def read_upload(file: UploadFile | None) -> bytes:
    """The uploaded file (at most the API's limit, 413 `payload_too_large`); Unprocessable
    `csv_missing_file` when none was chosen."""
    if file is None or not file.filename:
        raise Unprocessable("Choose a file.", code="csv_missing_file")
    data = file.file.read(csvfiles.MAX_CSV_BYTES + 1)
    if len(data) > csvfiles.MAX_CSV_BYTES:
        raise AppError("The file is too large.", code="payload_too_large", status=413)
    return data


Upload = Annotated[UploadFile | None, File()]


@router.post("/events/{event_id}/checkpoints/import")
def import_checkpoints(
    event: EventDep, session: SessionDep, _: AdminPage, file: Upload = None
) -> Response:
    """Set the deck from the CSV `number, card, lat, lon, hint` (all rows or nothing;
    errors by row on the page)."""
    url = event_url(event, "/checkpoints")
    with redirect_on_error(url):
        event_setup.import_checkpoints_csv(session, event, csvfiles.decode(read_upload(file)))
    return done(url, "deck_imported")


def optional_float(value: str, field: str) -> float | None:
    """A coordinate typed in a form (`55.8`, `55,8`; empty: none); Unprocessable otherwise."""
    value = value.strip().replace(",", ".")
    if not value:
        return None
    try:
        return float(value)
    except ValueError as exc:
        raise Unprocessable(
            f"{field} is not a number.", errors=[{"field": field, "msg": "not a number"}]
        ) from exc


@router.post("/events/{event_id}/checkpoints/{number}")
def update_checkpoint(
    event: EventDep,
    number: Annotated[int, Path(ge=1, le=9999)],
    session: SessionDep,
    _: AdminPage,
    lat: Text = "",
    lon: Text = "",
    hint: Text = "",
) -> Response:
    """Edit one CP's coordinates and hint in place (`events.service.update_checkpoint`)."""
    url = event_url(event, "/checkpoints")
    with redirect_on_error(f"{url}#cp-{number}"):
        data = CheckpointUpdate(
            lat=optional_float(lat, "lat"), lon=optional_float(lon, "lon"), hint=hint.strip()
        )
        events_service.update_checkpoint(session, event, number, data)
    return done(f"{url}#cp-{number}", "checkpoint_saved")


@router.get("/events/{event_id}/checkpoints/public")
def public_checkpoints(
    event: EventDep, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """Preview of the public CP list: what participants see before the start (number,
    coordinates, hint; never a card or a code: `events.service.public_rows`)."""
    context = {
        "event": event,
        "section": "checkpoints",
        "rows": events_service.public_rows(session, event),
    }
    return page(request, "admin/checkpoints_public.html", context)


@router.get("/events/{event_id}/print/checkpoints")
def print_checkpoints(
    event: EventDep, request: Request, session: SessionDep, settings: SettingsDep, _: AdminPage
) -> Response:
    """The QR sheet for the printer (a page: without a session it leads to the sign-in)."""
    checkpoints = events_service.checkpoints(session, event.id)
    return printing.checkpoint_sheet(request, event, checkpoints, settings.base_url)


# --- participants --------------------------------------------------------------------


@router.get("/events/{event_id}/participants")
def participants_page(
    event: EventDep, request: Request, session: SessionDep, _: AdminPage
) -> Response:
    """Participants with their state; forms to add one, import a CSV, print the cards,
    re-issue a link and remove one who has no take yet."""
    states = {
        participant.id: PlayState.from_json(row.state)
        for row, participant in feed_views.states_of_event(session, event.id)
    }
    with_takes = set(feed_views.participant_ids_with_takes(session, event.id))
    rows = [
        {"participant": p, "state": states.get(p.id), "has_takes": p.id in with_takes}
        for p in events_service.participants(session, event.id)
    ]
    new_link = None
    raw = request.cookies.get(LINK_FLASH_COOKIE)
    if raw:
        value = sessions.read_flash(request, raw, LINK_FLASH_COOKIE)
        if value:
            external_id, _, url = value.partition(" ")
            new_link = {"external_id": external_id, "url": url, "qr": Markup(qr_svg(url))}
    context = {"event": event, "section": "participants", "rows": rows, "new_link": new_link}
    response = page(request, "admin/participants.html", context)
    if raw:
        response.delete_cookie(LINK_FLASH_COOKIE, path="/admin")
    return response


def show_link_once(request: Request, response: Response, external_id: str, url: str) -> Response:
    """The next page shows this personal link once (a signed cookie, 2 minutes)."""
    sessions.set_flash(request, response, LINK_FLASH_COOKIE, f"{external_id} {url}", "/admin")
    return response


@router.post("/events/{event_id}/participants")
def add_participant(
    event: EventDep,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    caller: AdminPage,
    name: Text = "",
    external_id: Text = "",
    category: Text = "",
    kind: Text = "person",
    given_name: Text = "",
    family_name: Text = "",
    club: Text = "",
    control_card: Text = "",
) -> Response:
    """Add one participant, a person (a name, or the given and family name) or a team,
    with club and punching card (`events.service.create_participant`); the page then
    shows their personal link once."""
    url = event_url(event, "/participants")
    values = {
        "name": name,
        "external_id": external_id,
        "category": category,
        "kind": kind,
        "given_name": given_name,
        "family_name": family_name,
        "club": club,
        "control_card": control_card,
    }
    with redirect_on_error(url, values):
        data = ParticipantCreate.model_validate(
            {
                **values,
                "name": name.strip() or None,
                "external_id": external_id.strip() or None,
                "category": category.strip() or None,
            }
        )
        new = events_service.create_participant(
            session, event, events_service.participant_row(data), actor=caller.actor
        )
        events_service.seal_tokens(session, [new], settings.cookie_secret)  # a later print keeps it
    link = personal_url(settings.base_url, new.access_token)
    response = done(url, "participant_added")
    return show_link_once(request, response, new.participant.external_id, link)


@router.post("/events/{event_id}/participants/import")
def import_participants(
    event: EventDep, session: SessionDep, caller: AdminPage, file: Upload = None
) -> Response:
    """Participants from the CSV `name, external_id, category` or an IOF XML 3.0 EntryList,
    as the API's import (all or nothing; the page lists the errors by row or entry).
    Their links come with the printed cards."""
    url = event_url(event, "/participants")
    with redirect_on_error(url):
        data = read_upload(file)
        if iof.looks_like_xml(data):
            events_service.import_participants_iof(session, event, data, actor=caller.actor)
        else:
            events_service.import_participants_csv(
                session, event, csvfiles.decode(data), actor=caller.actor
            )
    return done(url, "participants_imported")


@router.post("/events/{event_id}/participants/{external_id}/access-token")
def reissue_link(
    event: EventDep,
    external_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    caller: AdminPage,
) -> Response:
    """A new personal link for one participant (the old one stops working), shown once."""
    url = event_url(event, "/participants")
    with redirect_on_error(url):
        participant = events_service.get_participant(session, event, external_id)
        new = events_service.reissue_token(session, event, participant, actor=caller.actor)
    link = personal_url(settings.base_url, new.access_token)
    return show_link_once(request, done(url, "link_reissued"), external_id, link)


@router.post("/events/{event_id}/participants/{external_id}/delete")
def remove_participant(
    event: EventDep, external_id: str, session: SessionDep, caller: AdminPage
) -> Response:
    """Remove a participant who has no take (`participant_has_takes` otherwise)."""
    url = event_url(event, "/participants")
    with redirect_on_error(url):
        participant = events_service.get_participant(session, event, external_id)
        event_setup.delete_participant(session, event, participant, actor=caller.actor)
    return done(url, "participant_removed")
