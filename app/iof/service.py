"""The IOF exchange of an event: what each document holds, read from the event's
domains (events, feed, auctions); the XML itself is built in `documents`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app.auctions import views as auction_views
from app.core import iof as documents
from app.core.db import utcnow
from app.core.errors import Unprocessable
from app.core.iof import Combination, ControlPosition, IofError, Standing
from app.events import repository as event_repository
from app.events import service as event_service
from app.events.models import Checkpoint, Event
from app.events.schemas import CheckpointUpdate
from app.iof import repository as iof_repository


def _invalid(exc: IofError) -> Unprocessable:
    return Unprocessable(str(exc), code="iof_invalid", errors=exc.errors)


def course_data_xml(session: Session, event: Event) -> bytes:
    """CourseData of the event's CPs (number and position only; see
    `documents.course_data`)."""
    controls = [
        ControlPosition(cp.number, cp.lat, cp.lon)
        for cp in event_repository.checkpoints(session, event.id)
    ]
    return documents.course_data(event.id, event.name, controls, utcnow())


def _standings(session: Session, event: Event, places: Sequence[dict[str, Any]]) -> list[Standing]:
    awarded = {
        entry["participant"]: entry for entry in places if entry["awarded"] and entry["participant"]
    }
    started = iof_repository.participants_with_takes(session, event.id)
    standings = []
    for participant in event_repository.participants(session, event.id):
        won = awarded.get(participant.external_id)
        combination = (won or {}).get("combination")
        standings.append(
            Standing(
                external_id=participant.external_id,
                name=participant.name,
                category=participant.category,
                started=participant.id in started,
                place=won["place"] if won else None,
                combination=Combination(
                    combination["cards"], combination["category"], combination["description"]
                )
                if combination
                else None,
            )
        )
    return standings


def result_list_xml(session: Session, event: Event) -> bytes:
    """ResultList of the award ceremony: the places the auctions awarded, with the
    winning combinations, and every other participant unplaced. `status="Snapshot"`
    until every auction is closed and revealed, then "Complete" (RULES.md §3: the places
    are won only by the sealed-bid auctions; I-21: a place counts once revealed)."""
    results = auction_views.results(session, event)
    places = results["places"]
    complete = (
        bool(places)
        and all(entry["status"] == "closed" for entry in places)
        and not any(auction["revealing"] for auction in results["auctions"])
    )
    return documents.result_list(
        event.id,
        event.name,
        event.opens_at,
        event.closes_at,
        _standings(session, event, places),
        utcnow(),
        complete,
    )


def import_course_data(session: Session, event: Event, data: bytes) -> list[Checkpoint]:
    """Set the positions of the event's CPs from an IOF XML 3.0 CourseData (from a
    course-setting program): each ordinary `Control` whose `Id` is a CP number moves
    that CP (a control without `Position` leaves it as it is). All or nothing:
    Unprocessable `iof_invalid` (422) names controls that are not CPs of the deck.
    Cards, codes and hints are never touched."""
    try:
        controls, errors = documents.parse_course_data(data)
    except IofError as exc:
        raise _invalid(exc) from exc
    numbers = {cp.number for cp in event_repository.checkpoints(session, event.id)}
    for parsed in controls:
        if parsed.control.number not in numbers:
            errors.append(
                {
                    "row": parsed.row,
                    "element": "Control",
                    "line": parsed.line,
                    "field": "number",
                    "msg": f"CP {parsed.control.number} is not in the deck",
                }
            )
    if errors:
        raise Unprocessable(
            f"The CourseData has {len(errors)} error(s); nothing was changed.",
            code="iof_invalid",
            errors=errors,
        )
    return [
        event_service.update_checkpoint(
            session,
            event,
            parsed.control.number,
            CheckpointUpdate(lat=parsed.control.lat, lon=parsed.control.lon),
        )
        for parsed in controls
        if parsed.control.lat is not None
    ]
