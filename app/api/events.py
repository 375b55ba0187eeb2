"""Event setup API: events, the deck of checkpoints, participants, QR codes, print sheets.

Organiser endpoints need `Authorization: Bearer <ADMIN_TOKEN>`. Public ones
(event, CP list as JSON/CSV/GPX) never show a card, a CP code or a discard code.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response, status
from fastapi.responses import HTMLResponse

from app.callers import OrganiserDep, OrganiserOrParticipant
from app.core import csvfiles, iof
from app.core.deps import SessionDep, SettingsDep
from app.core.errors import AppError, Unprocessable
from app.core.types import ExternalIdRef, PathId
from app.events import formats, printing, qr
from app.events import service as event_service
from app.events.codes import grouped, normalize_code, typed_form
from app.events.deps import EventDep
from app.events.formats import DeckRow
from app.events.schemas import (
    AccessTokenIssued,
    CheckpointRead,
    CheckpointUpdate,
    DeckPut,
    DeckRead,
    EventCreate,
    EventPublic,
    EventRead,
    EventStatusChange,
    EventUpdate,
    ParticipantCreate,
    ParticipantCreated,
    ParticipantList,
    ParticipantRead,
    ParticipantsCreated,
    ParticipantUpdate,
    PublicCheckpoints,
    ShuffleRequest,
)
from app.flows import course as course_flow
from app.flows import event_setup
from app.flows.schemas import EventChanged

router = APIRouter(prefix="/api/v1", tags=["events"])

MAX_CSV_BYTES = csvfiles.MAX_CSV_BYTES
CSV_BODY = {
    "requestBody": {
        "description": "CSV as the body (`text/csv`) or as the multipart form field `file`.",
        "content": {
            "text/csv": {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            },
        },
    }
}


async def uploaded_file(request: Request) -> bytes:
    """The uploaded file of a request: a multipart field `file`, else the raw body.
    413 `payload_too_large` above MAX_CSV_BYTES; 422 `csv_missing` without the field."""
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise Unprocessable("Send the file as the form field 'file'.", code="csv_missing")
        data = await upload.read()
    else:
        data = await request.body()
    if len(data) > MAX_CSV_BYTES:
        raise AppError("The file is too large.", code="payload_too_large", status=413)
    return data


def csv_text(data: bytes) -> str:
    """The CSV text of an uploaded file (`app.core.csvfiles.decode`): 422 `csv_not_utf8`."""
    return csvfiles.decode(data)


async def uploaded_csv(request: Request) -> str:
    """The CSV text of a request: a multipart field `file`, else the raw body (UTF-8)."""
    return csv_text(await uploaded_file(request))


CsvDep = Annotated[str, Depends(uploaded_csv)]
FileDep = Annotated[bytes, Depends(uploaded_file)]
PARTICIPANTS_IMPORT_BODY = {
    "requestBody": {
        "description": "CSV `name, external_id, category` or an IOF XML 3.0 EntryList, as "
        "the body (`text/csv`, `application/xml`) or as the multipart form field `file`.",
        "content": {
            **CSV_BODY["requestBody"]["content"],
            "application/xml": {"schema": {"type": "string"}},
        },
    }
}


def _deck(event_seed: int | None, checkpoints: list, base_url: str) -> DeckRead:
    return DeckRead(
        deck_seed=event_seed,
        checkpoints=[event_service.checkpoint_read(cp, base_url) for cp in checkpoints],
    )


# --- events ---------------------------------------------------------------------------


@router.post("/events", status_code=status.HTTP_201_CREATED, response_model=EventRead)
def create_event(data: EventCreate, session: SessionDep, _: OrganiserDep) -> EventRead:
    """Create an event (status `draft`). Times need an offset; `timezone` is IANA."""
    event = event_service.create_event(session, data)
    return event_service.event_read(session, event)


@router.get("/events", response_model=list[EventRead])
def list_events(session: SessionDep, _: OrganiserDep) -> list[EventRead]:
    """Every event (organiser)."""
    return [event_service.event_read(session, e) for e in event_service.list_events(session)]


@router.get("/events/{event_id}", response_model=EventRead | EventPublic)
def get_event(
    event: EventDep, session: SessionDep, caller: OrganiserOrParticipant
) -> EventRead | EventPublic:
    """The event; the organiser also sees `deck_seed`."""
    if caller.is_organiser:
        return event_service.event_read(session, event)
    return event_service.event_public(session, event)


DryRun = Annotated[
    bool,
    Query(description="Preview: answer what the change would give (with `replay`); store nothing."),
]


@router.patch("/events/{event_id}", response_model=EventChanged)
def update_event(
    event: EventDep,
    data: EventUpdate,
    session: SessionDep,
    organiser: OrganiserDep,
    dry_run: DryRun = False,
) -> EventChanged:
    """Change name, window, time zone, ranking preset, save codes count or places.

    A new window or ranking preset changes what recorded takes mean, so the field
    feed is replayed for the whole event (RULES.md I-4) and `replay` summarises it
    (participants and takes replayed, `changed_outcomes`, takes that stopped or
    started counting); once the ceremony has begun (an auction opened) such a change
    is refused: 409 `feed_closed`. `?dry_run=true` previews it and stores nothing.
    """
    return course_flow.change_event(session, event, data, dry_run=dry_run, actor=organiser.actor)


@router.post("/events/{event_id}/course/close", response_model=EventChanged)
def close_course(
    event: EventDep, session: SessionDep, organiser: OrganiserDep, dry_run: DryRun = False
) -> EventChanged:
    """Close the course now: `closes_at` becomes the server's clock (only ever earlier),
    the feed is replayed (`replay`), the status moves on to `course_closed`.
    409 `course_already_closed` / `course_not_opened` (times in event time), 409
    `feed_closed`. `?dry_run=true` previews it and stores nothing."""
    return course_flow.close_course(session, event, dry_run=dry_run, actor=organiser.actor)


@router.post("/events/{event_id}/status", response_model=EventChanged)
def change_status(
    event: EventDep,
    data: EventStatusChange,
    session: SessionDep,
    organiser: OrganiserDep,
    dry_run: DryRun = False,
) -> EventChanged:
    """Move the event forward (draft → course_open → course_closed → ceremony → finished).

    `course_closed` or later while the window is open closes the course now (with
    `replay`); before the window opens that is 409 `course_not_opened`.
    `?dry_run=true` previews it and stores nothing."""
    return course_flow.change_status(
        session, event, data.status, dry_run=dry_run, actor=organiser.actor
    )


# --- checkpoints ----------------------------------------------------------------------


@router.put("/events/{event_id}/checkpoints", response_model=DeckRead)
def put_checkpoints(
    event: EventDep, data: DeckPut, session: SessionDep, settings: SettingsDep, _: OrganiserDep
) -> DeckRead:
    """Set the deck explicitly: distinct cards of the 54, unique CP numbers.

    Codes not given are generated (a CP number that existed keeps its codes).
    """
    rows = [DeckRow(**item.model_dump()) for item in data.checkpoints]
    checkpoints = event_setup.set_deck(
        session, event, rows, event_service.json_locator("checkpoints")
    )
    return _deck(event.deck_seed, checkpoints, settings.base_url)


@router.post("/events/{event_id}/checkpoints/shuffle", response_model=DeckRead)
def shuffle_checkpoints(
    event: EventDep,
    data: ShuffleRequest,
    session: SessionDep,
    settings: SettingsDep,
    _: OrganiserDep,
) -> DeckRead:
    """Deal a shuffled deck from `seed` (random when null); the seed is recorded."""
    checkpoints = event_setup.shuffle_deck(session, event, data.seed)
    return _deck(event.deck_seed, checkpoints, settings.base_url)


@router.post(
    "/events/{event_id}/checkpoints/import", response_model=DeckRead, openapi_extra=CSV_BODY
)
def import_checkpoints(
    event: EventDep, _: OrganiserDep, text: CsvDep, session: SessionDep, settings: SettingsDep
) -> DeckRead:
    """Set the deck from CSV `number, card, lat, lon, hint`; 422 `csv_invalid` names
    each bad row (header = row 1) and field, and nothing is stored."""
    checkpoints = event_setup.import_checkpoints_csv(session, event, text)
    return _deck(event.deck_seed, checkpoints, settings.base_url)


@router.get("/events/{event_id}/checkpoints", response_model=DeckRead | PublicCheckpoints)
def get_checkpoints(
    event: EventDep, session: SessionDep, settings: SettingsDep, caller: OrganiserOrParticipant
) -> DeckRead | PublicCheckpoints:
    """The deck for the organiser; for anyone else only `number, lat, lon, hint`."""
    checkpoints = list(event_service.checkpoints(session, event.id))
    if caller.is_organiser:
        return _deck(event.deck_seed, checkpoints, settings.base_url)
    return PublicCheckpoints(
        checkpoints=[event_service.checkpoint_public(cp) for cp in checkpoints]
    )


@router.get(
    "/events/{event_id}/checkpoints.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
def public_checkpoints_csv(event: EventDep, session: SessionDep) -> Response:
    """Public CP list as CSV: `number, lat, lon, hint`."""
    text = formats.checkpoints_csv(
        event_service.public_rows(session, event), formats.PUBLIC_CHECKPOINT_COLUMNS
    )
    return _download(text, "text/csv; charset=utf-8", f"event-{event.id}-checkpoints.csv")


@router.get(
    "/events/{event_id}/checkpoints.gpx",
    response_class=Response,
    responses={200: {"content": {"application/gpx+xml": {}}}},
)
def public_checkpoints_gpx(event: EventDep, session: SessionDep) -> Response:
    """Public CP list as GPX waypoints (name = CP number, desc = hint) for GPS devices."""
    text = formats.checkpoints_gpx(event.name, event_service.public_rows(session, event))
    return _download(text, "application/gpx+xml", f"event-{event.id}-checkpoints.gpx")


@router.get(
    "/events/{event_id}/checkpoints/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
def export_checkpoints_csv(event: EventDep, session: SessionDep, _: OrganiserDep) -> Response:
    """The deck as CSV `number, card, lat, lon, hint, typed_code` (re-importable: the
    import ignores `typed_code`, the form printed under each QR; organiser)."""
    rows: list[dict[str, Any]] = [
        {
            "number": cp.number,
            "card": cp.card,
            "lat": cp.lat,
            "lon": cp.lon,
            "hint": cp.hint,
            "typed_code": grouped(typed_form(normalize_code(cp.code))),
        }
        for cp in event_service.checkpoints(session, event.id)
    ]
    text = formats.checkpoints_csv(rows, (*formats.CHECKPOINT_COLUMNS, "typed_code"))
    return _download(text, "text/csv; charset=utf-8", f"event-{event.id}-deck.csv")


def _download(text: str, media_type: str, filename: str) -> Response:
    return Response(
        text,
        media_type=media_type,
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


@router.patch("/events/{event_id}/checkpoints/{number}", response_model=CheckpointRead)
def update_checkpoint(
    event: EventDep,
    number: PathId,
    data: CheckpointUpdate,
    session: SessionDep,
    settings: SettingsDep,
    _: OrganiserDep,
) -> CheckpointRead:
    """Edit a CP's coordinates or hint."""
    checkpoint = event_service.update_checkpoint(session, event, number, data)
    return event_service.checkpoint_read(checkpoint, settings.base_url)


@router.get(
    "/events/{event_id}/checkpoints/{number}/qr.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
)
def checkpoint_qr_svg(
    event: EventDep, number: PathId, session: SessionDep, settings: SettingsDep, _: OrganiserDep
) -> Response:
    """SVG QR code of the CP's take link `{BASE_URL}/t/{code}` (organiser: it holds the code)."""
    checkpoint = event_service.get_checkpoint(session, event, number)
    return Response(
        qr.qr_svg(qr.take_url(settings.base_url, checkpoint.code)), media_type="image/svg+xml"
    )


@router.get(
    "/events/{event_id}/checkpoints/{number}/qr.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def checkpoint_qr_png(
    event: EventDep, number: PathId, session: SessionDep, settings: SettingsDep, _: OrganiserDep
) -> Response:
    """PNG QR code of the CP's take link `{BASE_URL}/t/{code}` (organiser)."""
    checkpoint = event_service.get_checkpoint(session, event, number)
    return Response(
        qr.qr_png(qr.take_url(settings.base_url, checkpoint.code)), media_type="image/png"
    )


@router.get("/events/{event_id}/print/checkpoints", response_class=HTMLResponse)
def print_checkpoints(
    event: EventDep, request: Request, session: SessionDep, settings: SettingsDep, _: OrganiserDep
) -> HTMLResponse:
    """Printable A4 sheet: per CP its QR code (11 cm), number and the event name."""
    checkpoints = list(event_service.checkpoints(session, event.id))
    return printing.checkpoint_sheet(request, event, checkpoints, settings.base_url)


# --- participants ---------------------------------------------------------------------


@router.post(
    "/events/{event_id}/participants",
    status_code=status.HTTP_201_CREATED,
    response_model=ParticipantCreated,
)
def create_participant(
    event: EventDep,
    data: ParticipantCreate,
    session: SessionDep,
    settings: SettingsDep,
    organiser: OrganiserDep,
) -> ParticipantCreated:
    """A participant with a secret `access_token` (shown only now) and their save codes."""
    new = event_service.create_participant(
        session, event, event_service.participant_row(data), actor=organiser.actor
    )
    event_service.seal_tokens(session, [new], settings.cookie_secret)  # a print keeps the link
    return event_service.participant_created(new, settings.base_url)


@router.post(
    "/events/{event_id}/participants/import",
    status_code=status.HTTP_201_CREATED,
    response_model=ParticipantsCreated,
    openapi_extra=PARTICIPANTS_IMPORT_BODY,
)
def import_participants(
    event: EventDep,
    organiser: OrganiserDep,
    data: FileDep,
    session: SessionDep,
    settings: SettingsDep,
) -> ParticipantsCreated:
    """Participants from CSV `name, external_id, category` (and `kind, given_name,
    family_name, club, control_card`) or from an IOF XML 3.0 EntryList (a file whose
    first non-blank character after any byte order mark is `<`; UTF-8, or UTF-16 with
    a BOM); 422 `csv_invalid` / `iof_invalid` names each bad row (entry) and field, or
    why the whole file was refused (its encoding, another document), and nothing is
    stored."""
    if iof.looks_like_xml(data):
        created = event_service.import_participants_iof(session, event, data, actor=organiser.actor)
    else:
        created = event_service.import_participants_csv(
            session, event, csv_text(data), actor=organiser.actor
        )
    event_service.seal_tokens(session, created, settings.cookie_secret)  # prints keep links
    return ParticipantsCreated(
        participants=[event_service.participant_created(n, settings.base_url) for n in created]
    )


@router.get("/events/{event_id}/participants", response_model=ParticipantList)
def list_participants(event: EventDep, session: SessionDep, _: OrganiserDep) -> ParticipantList:
    """Every participant with their save codes (organiser only; never the tokens)."""
    return ParticipantList(participants=event_service.participant_reads(session, event))


@router.get("/events/{event_id}/participants/{external_id}", response_model=ParticipantRead)
def get_participant(
    event: EventDep, external_id: ExternalIdRef, session: SessionDep, _: OrganiserDep
) -> ParticipantRead:
    participant = event_service.get_participant(session, event, external_id)
    return event_service.participant_read(session, participant)


@router.patch("/events/{event_id}/participants/{external_id}", response_model=ParticipantRead)
def update_participant(
    event: EventDep,
    external_id: ExternalIdRef,
    data: ParticipantUpdate,
    session: SessionDep,
    organiser: OrganiserDep,
) -> ParticipantRead:
    """Change name, category or external id."""
    participant = event_service.get_participant(session, event, external_id)
    event_service.update_participant(session, event, participant, data, actor=organiser.actor)
    return event_service.participant_read(session, participant)


@router.delete(
    "/events/{event_id}/participants/{external_id}", status_code=status.HTTP_204_NO_CONTENT
)
def delete_participant(
    event: EventDep, external_id: ExternalIdRef, session: SessionDep, organiser: OrganiserDep
) -> Response:
    """Delete a participant who has no takes (409 `participant_has_takes` otherwise)."""
    participant = event_service.get_participant(session, event, external_id)
    event_setup.delete_participant(session, event, participant, actor=organiser.actor)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/events/{event_id}/participants/{external_id}/access-token", response_model=AccessTokenIssued
)
def reissue_access_token(
    event: EventDep,
    external_id: ExternalIdRef,
    session: SessionDep,
    settings: SettingsDep,
    organiser: OrganiserDep,
) -> AccessTokenIssued:
    """A new personal link for a lost one; the old token stops working."""
    participant = event_service.get_participant(session, event, external_id)
    new = event_service.reissue_token(session, event, participant, actor=organiser.actor)
    return event_service.token_issued(new, settings.base_url)


@router.post("/events/{event_id}/print/participant-cards", response_class=HTMLResponse)
def print_participant_cards(
    event: EventDep,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    _: OrganiserDep,
    participant: Annotated[list[ExternalIdRef] | None, Query()] = None,
    reissue: Annotated[bool, Query()] = False,
) -> HTMLResponse:
    """Printable cards (QR of the personal link + save codes) for the participants named
    by `?participant=<external_id>` (repeatable; all when absent).

    A card printed before shows the same link again (the token is kept sealed with
    SECRET_KEY, `event_service.card_token`); a participant never printed, or all with
    `?reissue=true`, gets a NEW token: links printed or sent earlier stop working.
    """
    if participant:
        targets = [event_service.get_participant(session, event, x) for x in participant]
    else:
        targets = list(event_service.participants(session, event.id))
    issued, renewed = event_service.card_tokens(
        session, event, targets, settings.cookie_secret, reissue=reissue
    )
    return printing.participant_cards(request, event, issued, settings.base_url, renewed)
