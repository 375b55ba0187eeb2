"""`GET /api/v1/events/{event_id}/live`: the live pages' server-sent events.

The route only turns a subscription to this process's hub (`app.live.hub.Hub.stream`, which
reads each change once and hands it to every stream it concerns) into the SSE response.

Messages (`event:` field): `auction` (place, status, round, bid_count, winner, the public
`view` less its flattened `bids` (each bid is in its round) and the `names` it mentions),
`event` (status, course window) — each with `id:` = the event's live version of that
change, so `Last-Event-ID` (or `?since=`, for a page that knows the version it was
rendered at) resumes without loss — and `feed` (the dashboard's counters, organiser only,
no id). A comment ping every 15 s keeps proxies from closing an idle stream; a stream
ends after 10 minutes (the browser reconnects after its `retry:` delay, randomised per
stream) and within a second of SIGTERM (sse-starlette watches uvicorn's exit flag).
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Path, Query, Request
from sse_starlette import EventSourceResponse

from app.callers import OrganiserOrPublic
from app.core.errors import Forbidden, NotFound
from app.flows import hall as hall_flow
from app.live.hub import hub_for

router = APIRouter(prefix="/api/v1/events/{event_id}", tags=["live"])

PING_SECONDS = 15
SHUTDOWN_GRACE_SECONDS = 2.0  # a stream ends by itself well within this


def resume_point(last_event_id: str | None, since: int | None) -> int | None:
    """The version a client has seen: `Last-Event-ID` (a reconnection) wins over `since`."""
    if last_event_id is not None:
        try:
            return max(0, int(last_event_id.strip()))
        except ValueError:
            return None
    return since


@router.get(
    "/live",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "The live stream"},
        404: {"description": "No such event"},
    },
)
async def live(
    request: Request,
    caller: OrganiserOrPublic,
    event_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    since: Annotated[int | None, Query(ge=0, le=2**62)] = None,
    last_event_id: Annotated[str | None, Header(max_length=40)] = None,
    counts: Annotated[bool, Query(description="false: no bid-count-only updates")] = True,
    hall: Annotated[bool, Query(description="true: the hall screen's `hall` data")] = False,
) -> Any:
    """Server-sent events of the event's live pages (public; `feed` for the organiser).

    `since` / `Last-Event-ID`: the live version already seen; only the topics changed
    after it are sent first (all topics when neither is given). `counts=false` (the phone
    page, which shows no bid count): an auction's message only when its status or round
    changed, so bidding costs the waiting phones nothing, and its revealed bids in the
    compact form the phone shows (`compact: true`: participant, round, rank, cards,
    category; no receipt, nonce or ids). `hall=true` (the hall screen): also `hall`, the
    screen's data when it changed (every 5 s at most), for whom `hall_access` admits
    (403 `hall_not_public` otherwise). 404 `event_not_found`."""
    hub = hub_for(request.app)
    try:
        channel = await hub.channel(event_id)
        watch = hall and await hub.read(hall_flow.access_by_id, event_id, caller)
    except LookupError:
        raise NotFound(f"Event {event_id} not found.", code="event_not_found") from None
    if hall and not watch:
        raise Forbidden("This event's hall screen is not public.", code="hall_not_public")
    cache = hall_flow.cache_for(request.app.state) if watch else None
    shutdown = anyio.Event()
    stream = hub.stream(
        channel,
        resume_point(last_event_id, since),
        shutdown,
        organiser=caller.is_organiser,
        counts=counts,
        hall=cache,
    )
    return EventSourceResponse(
        stream,
        ping=PING_SECONDS,
        shutdown_event=shutdown,
        shutdown_grace_period=SHUTDOWN_GRACE_SECONDS,
        send_timeout=30,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
