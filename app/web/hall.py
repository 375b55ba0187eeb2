"""The hall screen (issue 29 item 2): `/hall/{event_id}` and its data, for a projector in
the hall or a phone; and the owner's switch that makes it public.

Who may watch is decided in one place, `app.flows.hall.hall_access` (the organiser
always; anybody once the owner made the screen public). Anybody else gets a clear 403
page (or a 403 problem from the data route). What it shows is `app.flows.hall`'s: no
card, no code, no sealed bid. The page updates from the live stream
(`/api/v1/events/{id}/live?hall=1`: `hall` messages, and the auctions' changes) with
`hall.js`, an ES module; without JavaScript it is a plain page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, Response
from sqlalchemy.orm import Session

from app.callers import AdminPage, OrganiserOrPublic
from app.core import audit
from app.core.db import utcnow
from app.core.deps import SessionDep
from app.core.errors import Forbidden
from app.events.deps import EventDep
from app.events.models import Event
from app.flows import hall as hall_flow
from app.live import snapshots as live_snapshots
from app.web.common import render
from app.web.dates import DAY_TIME, HOURS_MINUTES, event_time
from app.web.forms import done
from app.web.templating import theme_of

router = APIRouter(include_in_schema=False)

CP_ROWS = 12  # CPs shown on the screen (the most taken first); the data has them all


def current(request: Request, session: Session, event: Event) -> tuple[dict[str, Any], int]:
    """The hall data now and the live version it was read at."""
    version = live_snapshots.current_version(session, event.id)
    return hall_flow.cache_for(request.app.state).get(session, event, version, utcnow()), version


@router.get("/hall/{event_id}")
def hall_page(
    event: EventDep, request: Request, session: SessionDep, caller: OrganiserOrPublic
) -> Response:
    """The hall screen: time to the close, participants out and finished, takes per 10
    minutes, CPs by how often they were taken, combinations saved, the auctions' steps
    and the podium. 403 page unless `hall_access`."""
    if not hall_flow.hall_access(caller, event):
        return render(request, "hall_closed.html", {"event": event}, status=403)
    data, version = current(request, session, event)
    context = {
        "event": event,
        "d": data,
        "cp_rows": data["checkpoints"][:CP_ROWS],
        "chart_max": max(data["chart"]["takes"] or [0]),
        "chart_labels": [event_time(event, moment, HOURS_MINUTES) for moment in _starts(data)],
        "closes": event_time(event, event.closes_at, DAY_TIME),
        "live_version": version,
        "organiser": caller.is_organiser,
        # a dark hall: dark unless the visitor chose the light theme
        "theme": "light" if theme_of(request) == "light" else "dark",
    }
    return render(request, "hall.html", context)


def _starts(data: dict[str, Any]) -> list[datetime]:
    return [datetime.fromisoformat(start) for start in data["chart"]["start"]]


@router.get("/hall/{event_id}/data.json")
def hall_json(
    event: EventDep, request: Request, session: SessionDep, caller: OrganiserOrPublic
) -> dict[str, Any]:
    """The hall screen's data (`app.flows.hall.hall_data` with `phase` and `seconds_left`,
    and `version`, the live version it was read at). 403 `hall_not_public` unless
    `hall_access`."""
    if not hall_flow.hall_access(caller, event):
        raise Forbidden("This event's hall screen is not public.", code="hall_not_public")
    data, version = current(request, session, event)
    return {**data, "version": version}


@router.post("/admin/events/{event_id}/hall-screen")
def hall_public_switch(
    event: EventDep,
    session: SessionDep,
    caller: AdminPage,
    public: Annotated[str, Form()] = "",
) -> Response:
    """The owner's switch: `public=1` lets anybody watch `/hall/{id}`, anything else
    makes it the organiser's only again (audited). Back to the event's settings."""
    event.hall_public = public == "1"
    audit.record(
        session,
        event_id=event.id,
        actor=caller.actor,
        action="event.hall_screen",
        details={"public": event.hall_public},
    )
    return done(f"/admin/events/{event.id}/settings", "hall_saved")
