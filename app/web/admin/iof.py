"""The organiser's IOF XML page (`/admin/events/{id}/iof`): upload a CourseData from a
course-setting program and read the import's report; download the CourseData, the
EntryList and the ResultList for MeOS, SportOrg, ooresults and course-setting tools.

The upload is a plain form (CSRF-checked like every organiser form) calling the same
service as `POST /api/v1/events/{id}/iof/course-data`; its report is the answer page
itself (nothing to flash). A file refused as a whole goes back to the page with why
(`course_data_invalid` and the reason by field, `app.web.forms`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy.orm import Session

from app.callers import AdminPage
from app.core.deps import SessionDep
from app.core.errors import AppError
from app.events import service as events_service
from app.events.deps import EventDep
from app.events.models import Event
from app.iof import service as iof_service
from app.iof.schemas import CourseDataReport
from app.web.admin.setup import Upload, event_url, page, read_upload
from app.web.forms import PageRedirect, redirect_on_error

router = APIRouter(prefix="/admin", include_in_schema=False)


def _context(event: Event, session: Session, report: CourseDataReport | None) -> dict[str, Any]:
    event_id = event.id
    return {
        "event": event,
        "section": "iof",
        "report": report,
        "checkpoints": len(events_service.checkpoints(session, event_id)),
        "participants": len(events_service.participants(session, event_id)),
    }


@router.get("/events/{event_id}/iof")
def iof_page(event: EventDep, request: Request, session: SessionDep, _: AdminPage) -> Response:
    """The upload form of a CourseData, the downloads, and why the last file was refused."""
    return page(request, "admin/iof.html", _context(event, session, None))


@router.post("/events/{event_id}/iof/course-data")
def upload_course_data(
    event: EventDep,
    request: Request,
    session: SessionDep,
    _: AdminPage,
    file: Upload = None,
) -> Response:
    """Place the CPs from an uploaded CourseData (`iof.service.import_course_data`) and
    show its report: CPs placed, CPs named without a position, controls that are no
    CP and why, CPs the file does not name, CPs still without a position."""
    url = event_url(event, "/iof")
    try:
        with redirect_on_error(url):
            report = iof_service.import_course_data(session, event, read_upload(file))
    except PageRedirect as redirect:
        cause = redirect.__cause__
        if isinstance(cause, AppError) and cause.code == "iof_invalid":
            redirect.code = "course_data_invalid"  # the page says "no CP was moved"
        raise
    return page(request, "admin/iof.html", _context(event, session, report))
