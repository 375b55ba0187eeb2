"""IOF XML 3.0 files of an event (`/api/v1/events/{event_id}/iof/…`)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.events import FileDep
from app.callers import OrganiserDep
from app.core.deps import SessionDep
from app.events.deps import EventDep
from app.iof import service
from app.iof.schemas import CourseDataReport

router = APIRouter(prefix="/api/v1/events/{event_id}/iof", tags=["iof"])

XML = "application/xml"
XML_RESPONSE = {200: {"content": {XML: {"schema": {"type": "string"}}}}}
XML_BODY = {
    "requestBody": {
        "description": "An IOF XML 3.0 CourseData, as the body or the multipart field `file`.",
        "content": {
            XML: {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            },
        },
    }
}


def _xml(data: bytes, filename: str) -> Response:
    return Response(
        data,
        media_type=f"{XML}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get("/course-data.xml", response_class=Response, responses=XML_RESPONSE)
def get_course_data(event: EventDep, session: SessionDep) -> Response:
    """CourseData: the CPs as controls (id = CP number, position lat/lon; never a card
    or a code) and one score course holding them all. Public, like the CP list."""
    return _xml(service.course_data_xml(session, event), f"event-{event.id}-course-data.xml")


@router.post("/course-data", response_model=CourseDataReport, openapi_extra=XML_BODY)
def import_course_data(
    event: EventDep, data: FileDep, session: SessionDep, _: OrganiserDep
) -> CourseDataReport:
    """Place the CPs at the positions of a CourseData from a course-setting program
    (controls matched by id = CP number; start, finish and crossing points recognised
    by their type or their course) and answer the report: CPs placed, CPs the file
    names without a position, controls that are not CPs and why, CPs the file does not
    name, CPs without a position now. 422 `iof_invalid` (nothing changed) for a file
    that is not a CourseData (UTF-8, or UTF-16 with a BOM), saying why, or a control
    whose position is out of range."""
    return service.import_course_data(session, event, data)


@router.get("/entry-list.xml", response_class=Response, responses=XML_RESPONSE)
def get_entry_list(event: EventDep, session: SessionDep, _: OrganiserDep) -> Response:
    """EntryList of the participants (organiser): persons with their given and family
    names as they came, teams, clubs, punching cards and categories; an EntryList
    import reads it back as the same participants. Never a token or a save code."""
    return _xml(service.entry_list_xml(session, event), f"event-{event.id}-entry-list.xml")


@router.get("/result-list.xml", response_class=Response, responses=XML_RESPONSE)
def get_result_list(event: EventDep, session: SessionDep) -> Response:
    """ResultList of the ceremony: the places won, each winner's combination as an
    extension, the others unplaced; `status="Snapshot"` until the last auction closes.
    Public, like the results."""
    return _xml(service.result_list_xml(session, event), f"event-{event.id}-result-list.xml")
