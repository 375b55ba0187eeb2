"""Secrecy over every route (issue 23 item 3; RULES.md I-1, I-7, I-21).

Every GET route of the app (pages, `.json` polls, the SSE stream, exports, print sheets,
the archive, the offline bundle, and the API from the OpenAPI schema) is walked as each
kind of caller (anonymous, participant A, participant B of the same event, a participant
of another event, an integration key, a game seat, the organiser) in each phase of an
event (course open with a `hand_full` take, an auction round open with sealed bids, the
round closed and not revealed, finished). No response may contain a card the caller was
not dealt, a CP code or discard code she has not seen, another participant's save code,
or a sealed bid's combination, cards or nonce (`tests/secrecy/secrets.py`); the
organiser reads everything but an open round's bids. A route's own input (what the
caller typed into the URL) may come back.

One database per backend for the whole module (each phase has its own event in it), so
the walk costs one app and one setup per backend.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from urllib.parse import unquote

import anyio
import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import make_engine, make_sessionmaker
from app.events.models import Checkpoint, Event
from app.main import create_app
from tests.conftest import make_settings, truncate_all
from tests.events.conftest import decode_png, decode_svg
from tests.secrecy import secrets as catalogue
from tests.secrecy import world as worlds
from tests.secrecy.routes import PARAMS, ROUTES, Call, Route
from tests.secrecy.world import CALLERS, HAND_FULL_CP, PHASES, SECRETS_AS, PhaseWorld

STREAM_LIMIT_SECONDS = 120  # a hang guard only: the read ends after the first messages


@dataclass
class Walk:
    app: FastAPI
    client: TestClient  # the organiser's setup client (its portal serves the stream)
    session: Session
    worlds: dict[str, PhaseWorld]
    outsider: tuple[int, str]  # the other event and its participant's token
    game: tuple[int, str]  # the game and a seat's token


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def walk(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Walk]:
    """One app and one database per backend, with an event in each phase."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("secrecy") / "walk.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        engine = make_engine(make_settings(f"sqlite:///{path}"))
    else:
        engine = request.getfixturevalue("pg_engine")
        truncate_all(engine)
    settings = make_settings(
        engine.url.render_as_string(hide_password=False),
        auth_failures_per_window=1_000_000,  # the walk presents wrong credentials on purpose
        scan_unknown_codes_per_minute=1_000_000,
    )
    app = create_app(settings, engine)
    with TestClient(app) as client, make_sessionmaker(engine)() as session:
        built = {"course": worlds.build_course(client, session)}
        for phase in PHASES[1:]:
            built[phase] = worlds.build_auction(client, session, phase)
        for world in built.values():
            world.key = worlds.integration_key(client, world.event_id)
            world.members = worlds.team(session, world.event_id)
        for world in built.values():  # the hall screen public: every caller reads it
            session.get(Event, world.event_id).hall_public = True
        session.commit()
        yield Walk(
            app, client, session, built, worlds.build_outsider(session), worlds.game_seat(client)
        )
    if request.param == "sqlite":
        engine.dispose()
    else:
        truncate_all(engine)


def get_routes(app: FastAPI) -> set[str]:
    """Every GET path: the app's routes (pages) and the OpenAPI schema's operations (API)."""
    paths = {
        context.path
        for context in iter_route_contexts(app.routes)
        if "GET" in (context.methods or ())
    }
    schema = app.openapi()
    paths |= {path for path, operations in schema["paths"].items() if "get" in operations}
    return paths


def test_every_get_route_is_classified() -> None:
    """A new GET route fails here until it has its line in `tests/secrecy/routes.py`."""
    app = create_app(make_settings("sqlite://"))
    found = get_routes(app)
    assert sorted(found - set(ROUTES)) == [], "classify these routes in tests/secrecy/routes.py"
    assert sorted(set(ROUTES) - found) == [], "these routes are gone: remove their lines"
    for path in ROUTES:
        for name in re.findall(r"{(\w+)}", path + ROUTES[path].query):
            assert name in PARAMS, f"{path}: no PARAMS entry fills {{{name}}}"


def urls_of(path: str, route: Route, call: Call) -> list[str]:
    """The route's URLs for `call`: its query, then each of its `also` queries."""

    def fill(text: str) -> str:
        return re.sub(r"{(\w+)}", lambda m: PARAMS[m.group(1)](call), text)

    return [
        fill(path) + (f"?{fill(query)}" if query else "") for query in (route.query, *route.also)
    ]


async def read_stream(
    app: FastAPI, url: str, headers: list[tuple[bytes, bytes]], wanted: int
) -> tuple[int, str]:
    """Status and text of the first `wanted` messages of a server-sent event stream, then
    the client goes away (a bounded read: no timing)."""
    path, _, query = url.partition("?")
    chunks: list[bytes] = []
    status = 0
    enough = anyio.Event()
    requested = False

    async def receive() -> dict:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await enough.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if b"".join(chunks).count(b"data:") >= wanted or not message.get("more_body"):
                enough.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("testclient", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    with anyio.fail_after(STREAM_LIMIT_SECONDS):
        await app(scope, receive, send)
    return status, b"".join(chunks).decode()


def stream_text(walk: Walk, client: TestClient, url: str, event_id: int) -> tuple[int, str]:
    """The stream's `hello` and its first message of each topic (the auctions, the event)."""
    headers = [(k.lower().encode(), v.encode()) for k, v in client.headers.items()]
    cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    wanted = 1 + 3 + 1  # hello, the three auctions, the event
    return walk.client.portal.call(read_stream, walk.app, url, headers, wanted)


def plan(call: Call) -> list[tuple[str, Route, str]]:
    """(path, route, URL) of every request of one caller's walk."""
    return [(p, r, url) for p, r in ROUTES.items() for url in urls_of(p, r, call)]


def body_text(response) -> tuple[str, str]:
    """(kind, text) of a response: `html`, `json` or `text`; QR images decoded."""
    kind = response.headers.get("content-type", "")
    location = response.headers.get("location", "")
    if kind.startswith("image/png"):
        return "text", qr_text(decode_png, response.content) + location
    if "svg" in kind:
        return "text", response.text + qr_text(decode_svg, response.text) + location
    text = response.text + "\n" + unquote(location)
    if "html" in kind:
        return "html", text
    if "json" in kind:
        return "json", text
    return "text", text


def qr_text(decode, data) -> str:
    """The text of a QR code image ("" when the image is not one QR code)."""
    try:
        return decode(data)
    except (AssertionError, AttributeError, ValueError, OSError):
        return ""


def leaks(
    text: str, kind: str, url: str, secrets: list[catalogue.Secret], static: bool
) -> list[str]:
    typed = unquote(url).upper()
    found = []
    for secret in secrets:
        if secret.card and static:
            continue
        if secret.text and secret.text.upper() in typed:
            continue  # the caller's own input
        patterns = secret.forms + (secret.words if kind == "text" else ())
        for pattern in patterns:
            match = pattern.search(text)
            if match:
                context = text[max(0, match.start() - 60) : match.end() + 60]
                found.append(f"{secret.what}: …{context!r}…")
                break
    return found


def hand_full_code(session: Session, event_id: int) -> str:
    return session.scalars(
        select(Checkpoint.code).where(
            Checkpoint.event_id == event_id, Checkpoint.number == HAND_FULL_CP
        )
    ).one()


# What some callers must read (so the walk reads real pages, not sign-in pages):
# (phase or None for every phase, caller, route) -> a text the response holds.
CONTROLS = {
    (None, "organiser", "/api/v1/events/{event_id}/checkpoints"): lambda call: call.hand_full_code,
    (None, "A", "/me"): lambda call: call.world.external["A"],
    (None, "organiser", "/api/v1/events/{event_id}/live"): lambda call: '"organiser": true',
    (None, "anonymous", "/api/v1/events/{event_id}/live"): lambda call: "event: event",
    # organiser members (issue 29): the desk reads the deck, the judge the take log, the
    # screen the projector; the screen's deck is the public one (the secrets say so)
    (None, "member_desk", "/api/v1/events/{event_id}/checkpoints"): lambda call: (
        call.hand_full_code
    ),
    (None, "member_owner", "/admin/events/{event_id}/settings"): lambda call: "csrf_token",
    (None, "member_judge", "/api/v1/events/{event_id}/takes"): lambda call: '"items"',
    (None, "member_screen", "/admin/events/{event_id}/projector/{place}"): lambda call: "<html",
    (None, "member_screen", "/admin/events/{event_id}"): lambda call: (
        "M screen: "
    ),  # the 403 page names the member
    ("course", "A", "/me"): lambda call: "2♠",  # CP 1's card, dealt to A
    ("course", "A", "/api/v1/me/state"): lambda call: '"hand_full"',
    ("auction_open", "A", "/api/v1/events/{event_id}/auctions/{place}"): lambda call: '"my_bid"',
    ("closed", "B", "/me/ceremony"): lambda call: "идёт вскрытие",
    ("finished", "anonymous", "/api/v1/events/{event_id}/auctions/results"): lambda call: (
        '["9S","9H","9D","9C","2C"]'
    ),
}


def check_controls(phase: str, caller: str, path: str, call: Call, text: str) -> list[str]:
    out = []
    for key in ((phase, caller, path), (None, caller, path)):
        if key in CONTROLS and CONTROLS[key](call) not in text:
            out.append(f"{phase} {caller} {path}: no {CONTROLS[key](call)!r} in {text[:300]!r}")
    return out


@pytest.mark.parametrize("phase", PHASES)
def test_no_route_shows_a_caller_more_than_it_may(walk: Walk, phase: str) -> None:
    world = walk.worlds[phase]
    session = walk.session
    outsider_event, outsider_token = walk.outsider
    game_id, seat_token = walk.game
    problems: list[str] = []
    visited = checked = 0
    with ExitStack() as stack:
        for caller in CALLERS:
            client = stack.enter_context(
                worlds.caller_client(walk.app, caller, world, outsider_token, seat_token)
            )
            own = world.tokens.get(caller) if caller in ("A", "B") else None
            own = outsider_token if caller == "outsider" else own
            session.expire_all()
            pid = None
            if caller in ("A", "B"):
                pid = catalogue.participant_id(session, world.event_id, world.external[caller])
            elif caller == "outsider":
                pid = catalogue.participant_id(session, outsider_event, "X" + f"{outsider_event}X")
            code = hand_full_code(session, world.event_id)
            call = Call(world, caller, own, game_id, seat_token, code)
            as_caller = SECRETS_AS.get(caller, caller)
            secrets = catalogue.forbidden(session, as_caller, pid, world.event_id, code)
            session.rollback()
            for path, route, url in plan(call):
                if route.stream:
                    status, text = stream_text(walk, client, url, world.event_id)
                    kind = "json"
                else:
                    response = client.get(url)
                    status = response.status_code
                    kind, text = body_text(response)
                visited += 1
                checked += sum(
                    (k[0] in (None, phase)) and k[1:] == (caller, path) for k in CONTROLS
                )
                problems.extend(check_controls(phase, caller, path, call, text))
                if status >= 500:
                    problems.append(f"{phase} {caller} {url}: {status}")
                for leak in leaks(text, kind, url, secrets, route.static):
                    problems.append(f"{phase} {caller} {url}: {leak}")
    assert visited == len(CALLERS) * sum(1 + len(route.also) for route in ROUTES.values())
    assert checked >= 4
    assert problems == [], "\n".join(problems)
