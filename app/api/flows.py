"""HTTP routes of the cross-domain flows: the log head, its verification, the archive. Thin."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from app.callers import OrganiserDep
from app.core.deps import SessionDep
from app.events.deps import EventDep
from app.flows import archive, log_chain
from app.flows.log_schemas import ArchiveImported, LogHeadRead, LogVerifyRead

router = APIRouter(prefix="/api/v1", tags=["logs"])


@router.get("/events/{event_id}/log/head", response_model=LogHeadRead)
def get_log_head(event: EventDep, session: SessionDep) -> dict:
    """The event head over the hash chains of the take and bid logs (public: hashes and
    counts only). Note it (photograph the podium); `…/log/verify` or an archive proves later
    that the logs it covers were not changed."""
    return log_chain.head(session, event)


@router.get("/events/{event_id}/log/verify", response_model=LogVerifyRead)
def get_log_verify(event: EventDep, session: SessionDep, _: OrganiserDep) -> dict:
    """Recompute every chain from the stored rows (organiser): whether all match, and the
    first row that does not."""
    return log_chain.verify(session, event)


@router.get("/events/{event_id}/archive", response_class=JSONResponse)
def get_archive(event: EventDep, session: SessionDep, _: OrganiserDep) -> JSONResponse:
    """The whole event in one versioned JSON file (organiser): deck with codes,
    participants with save codes and token hashes, integration key hashes, the take
    and bid logs with their chains, auctions, audit trail, and the state a replay must
    give back. `POST /api/v1/events/import` restores it."""
    return JSONResponse(
        archive.export_event(session, event),
        headers={"Content-Disposition": f'attachment; filename="event-{event.id}-archive.json"'},
    )


@router.post("/events/import", response_model=ArchiveImported, status_code=201)
def import_archive(
    body: Annotated[dict[str, Any], Body(description="an archive of `GET …/archive`")],
    session: SessionDep,
    organiser: OrganiserDep,
) -> dict:
    """Restore an archive as a new event (organiser), after replaying its feed and checking
    the chains, the head, states, combinations, outcomes and auction results against the
    archive; otherwise nothing is stored: 422 `archive_mismatch` with `differences`,
    422 `archive_invalid`, 409 `archive_conflict` (its codes already used here)."""
    event, report = archive.import_event(session, body, actor=organiser.actor)
    return {"event_id": event.id, **report}
