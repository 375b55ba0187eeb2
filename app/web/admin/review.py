"""The organiser's review of phone times (RULES.md I-22, issue 26 point 4).

- `GET /admin/events/{event_id}/review?page=N`: the phone takes whose time the service
  cannot corroborate (`app.flows.device_trust.review_page`), undecided first, 50 a page,
  and the sync deadline form;
- `POST …/review/{review_id}/{decision}` (`accepted` | `voided`): the organiser's one
  action per take (a logged correction);
- `POST …/review/deadline`: set or clear the sync deadline (event time).

The dashboard links here with the count of undecided items (one count query).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request, Response

from app.callers import AdminPage
from app.core.deps import SessionDep
from app.core.types import Note, PathId, to_utc
from app.events import service as events_service
from app.events.deps import EventDep
from app.flows import device_trust
from app.web.admin.course import INPUT_FORMAT
from app.web.common import render
from app.web.dates import DAY_TIME_SECONDS, event_time
from app.web.forms import PageRedirect, done, outcome, redirect_on_error

router = APIRouter(prefix="/admin", include_in_schema=False)


def review_url(event_id: int) -> str:
    return f"/admin/events/{event_id}/review"


@router.get("/events/{event_id}/review")
def review_page(
    event: EventDep,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """The review list (one page) with the accept / void buttons and the sync deadline."""
    items, total = device_trust.review_page(session, event, page)
    deadline = device_trust.sync_deadline(session, event.id)
    pages = max(1, -(-total // device_trust.REVIEW_PAGE_SIZE))
    context = {
        "event": event,
        "section": "dashboard",
        "items": items,
        "total": total,
        "open": device_trust.open_count(session, event.id),
        "page": page,
        "pages": pages,
        "deadline": event_time(event, deadline) if deadline else None,
        "deadline_input": event_time(event, deadline, INPUT_FORMAT) if deadline else "",
        "local": lambda moment: event_time(event, moment, DAY_TIME_SECONDS),
        "parse": datetime.fromisoformat,
        **outcome(request),
    }
    return render(request, "admin/review.html", context)


@router.post("/events/{event_id}/review/deadline")
def set_deadline(
    event: EventDep,
    session: SessionDep,
    caller: AdminPage,
    deadline: Annotated[Note, Form()] = "",
) -> Response:
    """Set the sync deadline (event time; empty: clear it)."""
    url = review_url(event.id)
    moment = None
    if deadline.strip():
        try:
            moment = datetime.fromisoformat(deadline.strip())
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=events_service.event_zone(event))
            moment = to_utc(moment)
        except ValueError:
            raise PageRedirect(url, code="bad_time") from None
    with redirect_on_error(url):
        device_trust.set_sync_deadline(session, event, moment, actor=caller.actor)
    return done(url, "sync_deadline")


@router.post("/events/{event_id}/review/{review_id}/{decision}")
def decide(
    event: EventDep,
    review_id: PathId,
    decision: str,
    session: SessionDep,
    caller: AdminPage,
    page: Annotated[int, Form(ge=1, le=100_000)] = 1,
) -> Response:
    """Accept or void one listed take (`device_trust.decide`), back to the same page."""
    url = f"{review_url(event.id)}?page={page}"
    with redirect_on_error(url):
        device_trust.decide(session, event, review_id, decision, actor=caller.actor)
    return done(url, f"review_{decision}")
