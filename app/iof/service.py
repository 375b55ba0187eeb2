"""The IOF exchange of an event: what each document holds, read from the event's
domains (events, feed, auctions); the XML itself is built in `documents`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from app.auctions import views as auction_views
from app.auctions.rules import AuctionStatus
from app.core import iof as documents
from app.core.db import utcnow
from app.core.errors import Unprocessable
from app.core.iof import Combination, Competitor, ControlPosition, IofError, Standing
from app.events import repository as event_repository
from app.events import service as event_service
from app.events.models import Event, Participant
from app.events.schemas import CheckpointUpdate
from app.iof import repository as iof_repository
from app.iof.schemas import CourseDataReport, CpWithoutPositionInFile, NotACpRead, PlacedCp


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


def competitor(participant: Participant) -> Competitor:
    """A participant as the IOF files carry it (name parts, club, card as they came)."""
    return Competitor(
        external_id=participant.external_id,
        name=participant.name,
        kind=participant.kind,
        given_name=participant.given_name,
        family_name=participant.family_name,
        club=participant.club,
        control_card=participant.control_card,
        category=participant.category,
    )


def _local(event: Event, moment: datetime) -> datetime:
    """`moment` (aware, UTC) in the event's time zone, with its offset there (a file's
    local times); as given when the zone is unknown."""
    try:
        return moment.astimezone(ZoneInfo(event.timezone))
    except (ValueError, KeyError):
        return moment


def _opens_local(event: Event) -> datetime:
    """The course's opening in the event's time zone."""
    return _local(event, event.opens_at)


def entry_list_xml(session: Session, event: Event) -> bytes:
    """EntryList of the event's participants (see `documents.entry_list`): what an
    EntryList import reads back as the same persons and teams. Never a token or a code."""
    competitors = [competitor(p) for p in event_repository.participants(session, event.id)]
    return documents.entry_list(event.id, event.name, _opens_local(event), competitors, utcnow())


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
                competitor=competitor(participant),
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
        and all(entry["status"] == AuctionStatus.CLOSED for entry in places)
        and not any(auction["revealing"] for auction in results["auctions"])
    )
    return documents.result_list(
        event.id,
        event.name,
        _opens_local(event),
        _local(event, event.closes_at),
        _standings(session, event, places),
        utcnow(),
        complete,
    )


def import_course_data(session: Session, event: Event, data: bytes) -> CourseDataReport:
    """Place the event's CPs at the positions of an IOF XML 3.0 CourseData (from a
    course-setting program) and report what was done (`CourseDataReport`).

    Each control whose `Id` is a CP number and that has a `Position` moves that CP;
    start, finish and other special controls, ids that are no number, numbers not in
    the deck and a number given twice are reported as not CPs, with why
    (`documents.parse_course_data`). Unprocessable `iof_invalid` (422, nothing
    changed) for a file that cannot be read as a CourseData (naming why) or a control
    whose position is out of range. Cards, codes and hints are never touched.
    """
    try:
        reading = documents.parse_course_data(data)
    except IofError as exc:
        raise _invalid(exc) from exc
    if reading.errors:
        raise Unprocessable(
            f"The CourseData has {len(reading.errors)} error(s); nothing was changed.",
            code="iof_invalid",
            errors=reading.errors,
        )
    deck = {cp.number: cp for cp in event_repository.checkpoints(session, event.id)}
    not_cps = [
        NotACpRead(id=n.identifier, line=n.line, reason=n.reason, by=n.by) for n in reading.not_cps
    ]  # type: ignore[arg-type]
    placed: list[PlacedCp] = []
    no_position: list[CpWithoutPositionInFile] = []
    for parsed in reading.controls:
        number, lat, lon = parsed.control.number, parsed.control.lat, parsed.control.lon
        if number not in deck:
            not_cps.append(
                NotACpRead(id=str(number), line=parsed.line, reason="not_in_deck", by="number")
            )
        elif lat is None or lon is None:
            no_position.append(
                CpWithoutPositionInFile(
                    number=number, line=parsed.line, map_position=parsed.map_position
                )
            )
        else:
            event_service.update_checkpoint(
                session, event, number, CheckpointUpdate(lat=lat, lon=lon)
            )
            placed.append(PlacedCp(number=number, lat=lat, lon=lon))
    named = {parsed.control.number for parsed in reading.controls}
    return CourseDataReport(
        placed=placed,
        no_position=no_position,
        not_cps=sorted(not_cps, key=lambda item: item.line),
        not_in_file=sorted(set(deck) - named),
        without_position=sorted(n for n, cp in deck.items() if cp.lat is None or cp.lon is None),
    )
