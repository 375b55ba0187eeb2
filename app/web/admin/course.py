"""Organiser pages of the course window and the ceremony's organiser steps (issue 16).

`/admin/events/{event_id}/course`: the status, the window in event time, "close the
course now" and the window edit. Both changes are first shown as a preview (the
flow's dry run: what would stop counting) and applied only after a confirmation.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request, Response
from pydantic import ValidationError

from app.callers import AdminPage
from app.core.db import utcnow
from app.core.deps import SessionDep
from app.events import rules as event_rules
from app.events import service as event_service
from app.events import service as events_service
from app.events.deps import EventDep
from app.events.models import Event
from app.events.rules import EVENT_STATUSES
from app.events.schemas import EventUpdate
from app.feed import freeze
from app.flows import course as course_flow
from app.flows.schemas import EventChanged, ReplayRead
from app.web.admin.pages import course_phase
from app.web.common import render, see_other
from app.web.dates import INPUT_SECONDS, TIME_SECONDS, event_time
from app.web.forms import PageRedirect, outcome, redirect_on_error
from app.web.i18n import count, negotiate, translate

router = APIRouter(prefix="/admin", include_in_schema=False)

REPLAY_FIELDS = tuple(ReplayRead.model_fields)
INPUT_FORMAT = INPUT_SECONDS  # <input type="datetime-local" step="1">, event time


def replay_lines(lang: str, replay: ReplayRead | None, *, applied: bool) -> list[str]:
    """The replay summary in words: "11 takes of 1 participant would stop counting", …
    (`applied`: "stopped counting"). Empty when nothing was replayed."""
    if replay is None:
        return []
    prefix = "course.replayed." if applied else "course.replay."
    participants = count(lang, replay.changed_participants, "noun.of_participant")
    lines = []
    if replay.stopped_counting:
        takes = count(lang, replay.stopped_counting, "noun.take")
        lines.append(translate(lang, f"{prefix}stop", takes=takes, participants=participants))
    if replay.started_counting:
        takes = count(lang, replay.started_counting, "noun.take")
        lines.append(translate(lang, f"{prefix}start", takes=takes))
    other = replay.changed_outcomes - replay.stopped_counting - replay.started_counting
    if other:
        lines.append(translate(lang, f"{prefix}reason", takes=count(lang, other, "noun.take")))
    if not lines:
        everyone = count(lang, replay.participants, "noun.of_participant")
        takes = count(lang, replay.takes, "noun.take")
        lines.append(translate(lang, f"{prefix}none", takes=takes, participants=everyone))
    return lines


def replay_query(replay: ReplayRead | None) -> str:
    """The summary carried to the page after the redirect: `replay=p,t,c,cp,s,st`."""
    if replay is None:
        return ""
    return "&" + urlencode({"replay": ",".join(str(getattr(replay, f)) for f in REPLAY_FIELDS)})


def replay_from_query(value: str | None) -> ReplayRead | None:
    """`replay_query` read back; None when absent or malformed."""
    if not value:
        return None
    parts = value.split(",")
    if len(parts) != len(REPLAY_FIELDS) or not all(p.isdigit() and len(p) < 10 for p in parts):
        return None
    return ReplayRead(**dict(zip(REPLAY_FIELDS, map(int, parts), strict=True)))


def parse_local(value: str, event: Event) -> datetime | None:
    """A datetime-local form value in event time (or with an offset) as aware; None if bad."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=events_service.event_zone(event))


def course_url(event: Event) -> str:
    return f"/admin/events/{event.id}/course"


@router.get("/events/{event_id}/course")
def course_page(event: EventDep, request: Request, session: SessionDep, _: AdminPage) -> Response:
    """The course: status, window (event time) with countdown, close now, window edit."""
    now = utcnow()
    phase, countdown_to = course_phase(event, now)
    lang = negotiate(request)
    replay = replay_from_query(request.query_params.get("replay"))
    context = {
        "event": event,
        "section": "course",
        "phase": phase,
        "countdown_to": countdown_to.isoformat() if countdown_to else None,
        "opens": event_time(event, event.opens_at),
        "closes": event_time(event, event.closes_at),
        "opens_input": event_time(event, event.opens_at, INPUT_FORMAT),
        "closes_input": event_time(event, event.closes_at, INPUT_FORMAT),
        "frozen": freeze.feed_frozen(session, event),
        "next_statuses": [
            status
            for status in EVENT_STATUSES
            if event_rules.is_forward(event_service.status_at(event, now), status)
        ],
        "replay_lines": replay_lines(lang, replay, applied=True),
        **outcome(request),
    }
    return render(request, "admin/course.html", context)


CONFIRMATIONS = {  # kind: (form action under /course, title key, button key)
    "close": ("close", "course.close_confirm.title", "course.close_confirm.button"),
    "window": ("window", "course.window_confirm.title", "course.window_confirm.button"),
    "status": ("status", "course.status_confirm.title", "course.status_confirm.button"),
}


def _confirmation(
    request: Request, event: Event, changed: EventChanged, *, kind: str, fields: dict[str, str]
) -> Response:
    lang = negotiate(request)
    action, title, button = CONFIRMATIONS[kind]
    when = None
    if kind != "window":
        when = translate(
            lang,
            "course.close_confirm.when",
            time=event_time(event, utcnow(), TIME_SECONDS),
        )
    context = {
        "event": event,
        "section": "course",
        "action": f"{course_url(event)}/{action}",
        "title_key": title,
        "heading": translate(
            lang,
            "course.new_window",
            opens=event_time(event, changed.opens_at),
            closes=event_time(event, changed.closes_at),
        ),
        "heading_zone": event.timezone,
        "when": when,
        "button_key": button,
        "cancel_url": course_url(event),
        "cancel_key": "course.cancel",
        "fields": fields,
        "lines": replay_lines(lang, changed.replay, applied=False),
    }
    return render(request, "admin/confirm.html", context)


@router.post("/events/{event_id}/course/close")
def close_course(
    event: EventDep,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Close the course now: first the preview (dry run) and a confirmation step; with
    `confirm=1` the course closes at the server's clock of that moment."""
    dry_run = confirm != "1"
    with redirect_on_error(course_url(event)):
        changed = course_flow.close_course(session, event, dry_run=dry_run, actor=caller.actor)
    if dry_run:
        return _confirmation(request, event, changed, kind="close", fields={})
    return see_other(f"{course_url(event)}?done=course_closed{replay_query(changed.replay)}")


@router.post("/events/{event_id}/course/window")
def change_window(
    event: EventDep,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    opens_at: Annotated[str, Form()] = "",
    closes_at: Annotated[str, Form()] = "",
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Change the window (event time): first the preview of what the replay would change,
    then, with `confirm=1`, the change itself."""
    url = course_url(event)
    opens, closes = parse_local(opens_at, event), parse_local(closes_at, event)
    if opens is None or closes is None:
        raise PageRedirect(url, code="bad_time")
    if closes <= opens:
        raise PageRedirect(url, code="window_invalid")
    try:
        data = EventUpdate(opens_at=opens, closes_at=closes)
    except ValidationError:
        raise PageRedirect(url, code="bad_time") from None
    dry_run = confirm != "1"
    with redirect_on_error(url):
        changed = course_flow.change_event(
            session, event, data, dry_run=dry_run, actor=caller.actor
        )
    if dry_run:
        fields = {"opens_at": opens_at.strip(), "closes_at": closes_at.strip()}
        return _confirmation(request, event, changed, kind="window", fields=fields)
    return see_other(f"{url}?done=window_changed{replay_query(changed.replay)}")


@router.post("/events/{event_id}/course/status")
def change_status(
    event: EventDep,
    request: Request,
    session: SessionDep,
    caller: AdminPage,
    status: Annotated[str, Form()] = "",
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Move the event forward to `status`. A move that would close the open course is
    previewed first (like "close the course now") and applied after `confirm=1`."""
    url = course_url(event)
    if status not in EVENT_STATUSES:
        return see_other(url)
    with redirect_on_error(url):
        if confirm != "1":
            changed = course_flow.change_status(
                session, event, status, dry_run=True, actor=caller.actor
            )
            if changed.replay is not None:
                fields = {"status": status}
                return _confirmation(request, event, changed, kind="status", fields=fields)
        changed = course_flow.change_status(session, event, status, actor=caller.actor)
    return see_other(f"{url}?done=status_changed{replay_query(changed.replay)}")
