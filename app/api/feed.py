"""HTTP routes of the field feed (API.md: feed, scan, state). Thin: parse, authorise, delegate."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.callers import (
    OrganiserDep,
    ParticipantDep,
    ScanToken,
    StateReader,
)
from app.core import csvfiles
from app.core.db import utcnow
from app.core.deps import SessionDep
from app.core.errors import Forbidden, NotFound, Unprocessable
from app.core.principal import organiser_of, presented_secret
from app.core.types import INT4_MAX, ExternalIdRef, PathId, Source, UTCTime
from app.events.deps import EventDep, participant_of
from app.feed import csv_import, projection, views
from app.feed import ingest as feed_ingest
from app.feed import keys as key_service
from app.feed.batching import feed_batcher, scan_batcher
from app.feed.schemas import (
    CorrectionRead,
    ImportRead,
    IntegrationKeyCreate,
    IntegrationKeyCreated,
    IntegrationKeyRead,
    LogItem,
    LogRead,
    ManualTakeCreate,
    ParticipantStateRead,
    RebuildRead,
    ScanCreate,
    SourceClockRead,
    SourceClockUpdate,
    TakeResult,
    TakesBatchCreate,
    TakesBatchRead,
    VoidCreate,
    WarningsRead,
)

router = APIRouter(prefix="/api/v1", tags=["feed"])


async def raw_body(request: Request) -> bytes:
    """The request body as sent (for the HMAC signature of integration keys)."""
    return await request.body()


RawBody = Annotated[bytes, Depends(raw_body)]


async def csv_upload(request: Request) -> tuple[bytes, bytes]:
    """(the raw body, the CSV text): the body itself, or the `file` of a multipart form."""
    body = await request.body()
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        return body, body
    form = await request.form()
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise Unprocessable("The form has no `file` field.", code="csv_missing_file")
    return body, await upload.read()


def feed_credentials(request: Request) -> key_service.FeedCredentials:
    """What a feed delivery presented (the organiser's credential, `X-Integration-Key` or
    bearer key, `X-Signature`, `X-Signature-Timestamp`); `key_service.feed_principal`
    checks it against the event in the delivery's transaction."""
    settings = getattr(request.app.state, "settings", None)
    return key_service.FeedCredentials(
        organiser=organiser_of(request),
        secret=presented_secret(request, ("key", "bearer")),
        signature=request.headers.get(key_service.SIGNATURE_HEADER),
        timestamp=request.headers.get(key_service.TIMESTAMP_HEADER, ""),
        max_age=(
            settings.feed_signature_max_age_seconds if settings else key_service.SIGNATURE_MAX_AGE
        ),
    )


@router.post(
    "/events/{event_id}/takes",
    response_model=TakesBatchRead,
    summary="Deliver takes (the field feed)",
)
async def deliver_takes(
    event_id: PathId, batch: TakesBatchCreate, request: Request, body: RawBody
) -> TakesBatchRead:
    """Store and apply up to 1000 takes; one result per item, in input order.

    Authorised by the organiser token or an integration key of this event
    (`Authorization: Bearer <key>` or `X-Integration-Key`), optionally signed
    (`X-Signature-Timestamp`, `X-Signature`: HMAC-SHA256 over `timestamp + "." + body`).
    A bad item gets `status` `error` and never rejects the others; a
    redelivered `(source, source_id)` stores nothing (`duplicate_delivery`).
    `sent_at` (optional): the device's clock when it sent the batch; when it is off
    by more than FEED_CLOCK_TOLERANCE_SECONDS the takes' times are corrected by
    `received_at − sent_at` (the device time and the offset are kept with each take).
    404 `event_not_found`. Concurrent deliveries to an event share a transaction
    (`app.feed.batching`); each gets its own results once they are committed.
    """
    results = await feed_batcher(request.app).deliver(
        event_id, feed_credentials(request), body, batch.takes, sent_at=batch.sent_at
    )
    return TakesBatchRead(results=results)


@router.post(
    "/events/{event_id}/takes/import",
    response_model=ImportRead,
    summary="Import takes from a CSV export",
    openapi_extra={
        "requestBody": {
            "content": {
                "text/csv": {"schema": {"type": "string"}},
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {"file": {"type": "string", "format": "binary"}},
                    }
                },
            }
        }
    },
)
def import_takes(
    event: EventDep,
    request: Request,
    session: SessionDep,
    upload: Annotated[tuple[bytes, bytes], Depends(csv_upload)],
    source: Annotated[Source, Query()] = "csv",
) -> ImportRead:
    """CSV with columns `participant, code, taken_at` (optional `source_id`, `source`),
    as the body (`text/csv`) or as the `file` of a form. Results carry the row number
    (the header is row 1). Importing the same file again stores nothing new."""
    body, content = upload
    actor = key_service.feed_principal(session, event, feed_credentials(request), body).actor
    rows = csv_import.csv_items(csvfiles.decode(content), source=source)
    results = feed_ingest.ingest(session, event, [item for _, item in rows], recorded_by=actor)
    for (row, _), result in zip(rows, results, strict=True):
        result.row = row
    return ImportRead(
        stored=sum(r.status == "accepted" for r in results),
        duplicates=sum(r.status == "duplicate_delivery" for r in results),
        errors=sum(r.status == "error" for r in results),
        results=results,
    )


SCAN_OPERATION = {  # the body is read in the group commit, once the token is known
    "summary": "A take from the participant's phone",
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": ScanCreate.model_json_schema()}},
    },
}


@router.post("/scan", response_model=TakeResult, openapi_extra=SCAN_OPERATION)
async def scan(request: Request, token: ScanToken, body: RawBody) -> TakeResult:
    """One take (`ScanCreate`) at the server's clock when the request came in, source
    `phone`. A `hand_full` take is `rejected`/`hand_full` with no card and no discard code
    (RULES.md I-1: the CP is not consumed); 429 `too_many_unknown_codes` when unknown
    codes are typed too often. 401 for a wrong token comes before 422 for a bad body.
    Concurrent scans share a transaction (`app.feed.batching.ScanBatcher`, issue 24)."""
    try:
        return await scan_batcher(request.app).scan(token, body, utcnow())
    except ValidationError as exc:
        errors = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None


@router.get("/me/state", response_model=ParticipantStateRead, summary="My state")
def my_state(participant: ParticipantDep, session: SessionDep) -> ParticipantStateRead:
    return views.participant_state(session, participant, as_participant=True)


@router.get(
    "/events/{event_id}/participants/{external_id}/state",
    response_model=ParticipantStateRead,
    summary="A participant's state",
)
def participant_state(
    event: EventDep, external_id: ExternalIdRef, session: SessionDep, principal: StateReader
) -> ParticipantStateRead:
    """The organiser, or the participant with their own access token."""
    organiser = principal.is_organiser
    caller = participant_of(session, principal)
    participant = views.participants_by_external_id(session, event.id, [external_id]).get(
        external_id
    )
    if caller is not None and (participant is None or caller.id != participant.id):
        raise Forbidden("A participant may read only their own state.", code="not_your_state")
    if participant is None:
        raise NotFound(
            f"No participant {external_id!r} in this event.", code="participant_not_found"
        )
    return views.participant_state(session, participant, as_participant=not organiser)


@router.get("/events/{event_id}/takes", response_model=LogRead, summary="The take log")
def take_log(
    event: EventDep,
    session: SessionDep,
    _: OrganiserDep,
    participant: Annotated[ExternalIdRef | None, Query()] = None,
    checkpoint: Annotated[int | None, Query(ge=1, le=INT4_MAX, description="CP number")] = None,
    kind: Literal["card", "discard", "save", "unknown"] | None = None,
    outcome: Literal["counted", "rejected"] | None = None,
    reason: Annotated[Source | None, Query()] = None,
    source: Annotated[Source | None, Query()] = None,
    taken_from: Annotated[UTCTime | None, Query()] = None,
    taken_to: Annotated[UTCTime | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    offset: Annotated[int, Query(ge=0, le=INT4_MAX)] = 0,
) -> LogRead:
    """Takes with their current outcomes, field-time order; `taken_to` is exclusive."""
    return views.log(
        session,
        event,
        participant=participant,
        checkpoint=checkpoint,
        kind=kind,
        outcome=outcome,
        reason=reason,
        source=source,
        taken_from=taken_from,
        taken_to=taken_to,
        limit=limit,
        offset=offset,
    )


@router.get("/events/{event_id}/warnings", response_model=WarningsRead, summary="Event warnings")
def event_warnings(event: EventDep, session: SessionDep, _: OrganiserDep) -> WarningsRead:
    return views.warnings(session, event)


@router.post(
    "/events/{event_id}/takes/{take_id}/void", response_model=LogItem, summary="Void a take"
)
def void_take(
    event: EventDep, take_id: PathId, body: VoidCreate, session: SessionDep, organiser: OrganiserDep
) -> LogItem:
    """An organiser correction: the take stays in the log, is left out of the replay."""
    return feed_ingest.void_take(session, event, take_id, body.reason, actor=organiser.actor)


@router.post(
    "/events/{event_id}/takes/manual", response_model=TakeResult, summary="Add a missing take"
)
def add_take(
    event: EventDep, body: ManualTakeCreate, session: SessionDep, organiser: OrganiserDep
) -> TakeResult:
    """An organiser correction (e.g. from a paper backup): source `organiser`."""
    return feed_ingest.add_take(
        session,
        event,
        participant=body.participant,
        code=body.code,
        taken_at=body.taken_at,
        note=body.note,
        source_id=body.source_id,
        actor=organiser.actor,
    )


@router.get(
    "/events/{event_id}/corrections",
    response_model=list[CorrectionRead],
    summary="The feed's audit trail",
)
def corrections(event: EventDep, session: SessionDep, _: OrganiserDep) -> list[CorrectionRead]:
    return [
        CorrectionRead(
            id=e.id,
            action=e.action,
            actor=e.actor,
            subject=e.subject,
            details=e.details,
            created_at=e.created_at,
        )
        for e in views.corrections(session, event)
    ]


@router.put(
    "/events/{event_id}/sources/{source}/clock",
    response_model=SourceClockRead,
    summary="Set a source's clock offset",
)
def set_source_clock(
    event: EventDep,
    source: Annotated[Source, Path()],
    body: SourceClockUpdate,
    session: SessionDep,
    organiser: OrganiserDep,
) -> SourceClockRead:
    """Every take of `source` is played at its device time + `offset_seconds` (null clears
    the offset); the participants with takes of that source are replayed (RULES.md I-4).
    The takes are not edited: the offset is a new log row. 404 `source_not_found`,
    409 `feed_closed` once the ceremony has begun."""
    return feed_ingest.set_source_clock(
        session, event, source, body.offset_seconds, actor=organiser.actor
    )


@router.post("/events/{event_id}/rebuild", response_model=RebuildRead, summary="Rebuild state")
def rebuild(event: EventDep, session: SessionDep, organiser: OrganiserDep) -> RebuildRead:
    """Replay every participant from the log (RULES.md I-4); gives the identical state."""
    participants, takes, changed = projection.rebuild_event(session, event, actor=organiser.actor)
    return RebuildRead(participants=participants, takes=takes, changed_outcomes=changed)


@router.post(
    "/events/{event_id}/integration-keys",
    response_model=IntegrationKeyCreated,
    status_code=201,
    summary="Create an integration key",
)
def create_key(
    event: EventDep, body: IntegrationKeyCreate, session: SessionDep, organiser: OrganiserDep
) -> IntegrationKeyCreated:
    """The key is in the response once; the service keeps only its hash."""
    return key_service.create_key(session, event, body, actor=organiser.actor)


@router.get(
    "/events/{event_id}/integration-keys",
    response_model=list[IntegrationKeyRead],
    summary="List integration keys",
)
def list_keys(event: EventDep, session: SessionDep, _: OrganiserDep) -> list[IntegrationKeyRead]:
    return key_service.list_keys(session, event)


@router.post(
    "/events/{event_id}/integration-keys/{key_id}/revoke",
    response_model=IntegrationKeyRead,
    summary="Revoke an integration key",
)
def revoke_key(
    event: EventDep, key_id: PathId, session: SessionDep, organiser: OrganiserDep
) -> IntegrationKeyRead:
    return key_service.revoke_key(session, event, key_id, actor=organiser.actor, now=utcnow())
