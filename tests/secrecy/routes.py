"""Every GET route of the app, classified for the secrecy walk (issue 23 item 3).

`ROUTES` maps each GET route's path (as `app.routes` and the OpenAPI schema spell it) to
what it is and the query it is walked with; `PARAMS` says how each path parameter is
filled for a caller in a phase. A GET route missing from `ROUTES` fails
`test_every_get_route_is_classified`: add one line here (README "Secrecy walk").

The values are chosen to reach the secrets: `{external_id}` is A (so B, the outsider and
the others ask for A's page), `{take_id}` is A's take, `{number}` / `{code}` the CP that A
and B scanned with a full hand (its card is nobody's), `{place}` the auction with the
sealed bids.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.secrecy.world import HAND_FULL_CP, PhaseWorld


@dataclass(frozen=True)
class Route:
    what: str  # what the route shows: its classification
    query: str = ""  # query string; `{name}` is filled from PARAMS
    stream: bool = False  # server-sent events: the first messages are read
    also: tuple[str, ...] = ()  # more query strings the route is walked with
    # no event data (documentation, assets): its examples may name cards, so only codes,
    # save codes and nonces are looked for
    static: bool = False


@dataclass(frozen=True)
class Call:
    """Who walks: the phase's world and the caller, with the ids the params need."""

    world: PhaseWorld
    caller: str
    own_token: str | None  # a participant caller's personal link
    game_id: int
    seat_token: str
    hand_full_code: str


PARAMS: dict[str, Callable[[Call], str]] = {
    "event_id": lambda c: str(c.world.event_id),
    "external_id": lambda c: c.world.external["A"],
    "place": lambda c: "3",
    "number": lambda c: str(HAND_FULL_CP),
    "take_id": lambda c: str(c.world.take_ids["A"]),
    "code": lambda c: c.hand_full_code,
    "access_token": lambda c: c.own_token or "not-a-personal-link",
    "token": lambda c: c.seat_token,
    "game_id": lambda c: str(c.game_id),
    "lang": lambda c: "en",
    "theme": lambda c: "dark",
    "receipt": lambda c: c.world.receipt or "0" * 64,
}

ROUTES: dict[str, Route] = {
    # -- phone pages and their polls
    "/": Route("the site root (phone start page)"),
    "/me": Route("my game: hand, discard codes, takes, combinations"),
    "/me/takes/{take_id}": Route("a take's result page (A's take)"),
    "/me/ceremony": Route("the phone's ceremony page"),
    "/me/ceremony.json": Route("the phone's ceremony poll", "since=0", also=("",)),
    "/me/offline": Route("the offline phone page"),
    "/me/offline.json": Route("the offline bundle (encrypted deck)"),
    "/me/hints": Route("CP hints and coordinates (no card, no code)"),
    "/t/{code}": Route("a CP's QR link: records a take (hand_full for A and B)"),
    "/p/{access_token}": Route("a personal link: signs in"),
    "/o/{token}": Route("an organiser member's link: signs in (here: not a member's)"),
    "/manifest.webmanifest": Route("the PWA manifest", static=True),
    "/sw.js": Route("the service worker", static=True),
    "/favicon.ico": Route("the icon", static=True),
    "/lang/{lang}": Route("language switch (redirect)"),
    "/theme/{theme}": Route("theme switch (redirect)"),
    # -- organiser pages
    "/admin": Route("events list"),
    "/admin/login": Route("sign-in form"),
    "/admin/new-event": Route("new event form"),
    "/admin/events/{event_id}": Route("dashboard"),
    "/admin/events/{event_id}/iof": Route("IOF exchange page"),
    "/admin/events/{event_id}/review": Route("review of phone times", "page=1"),
    "/admin/events/{event_id}/warnings": Route("every warning, paged", "page=1"),
    "/admin/events/{event_id}/live.json": Route("dashboard poll"),
    "/admin/events/{event_id}/ceremony": Route("ceremony page"),
    "/admin/events/{event_id}/ceremony.json": Route("ceremony poll", "since=0"),
    "/admin/events/{event_id}/projector/{place}": Route("projector"),
    "/admin/events/{event_id}/projector/{place}/live.json": Route("projector poll", "since=0"),
    "/admin/events/{event_id}/checkpoints": Route("the deck (cards and codes)"),
    "/admin/events/{event_id}/checkpoints/public": Route("public CP list preview"),
    "/admin/events/{event_id}/print/checkpoints": Route("QR print sheet"),
    "/admin/events/{event_id}/participant-cards": Route("participant cards (GET: redirect)"),
    "/admin/events/{event_id}/participants": Route("participants list"),
    "/admin/events/{event_id}/participants/{external_id}": Route("one participant's log"),
    "/admin/events/{event_id}/course": Route("course window page"),
    "/admin/events/{event_id}/keys": Route("integration keys"),
    "/admin/events/{event_id}/members": Route("the team (members, roles) and the keys"),
    "/admin/events/{event_id}/settings": Route("event settings form"),
    # -- the hall screen (issue 29; the walk's events make it public, so every caller
    # reads it): no card, no code, no sealed bid for anybody
    "/hall/{event_id}": Route("the hall screen (public-safe)"),
    "/hall/{event_id}/data.json": Route("the hall screen's data (public-safe)"),
    # -- tables (games module pages)
    "/g/{token}": Route("a game seat's or table's page"),
    "/games/liars-holdem": Route("new Liar's Hold'em table form"),
    "/games/locus-poker": Route("locus poker start page"),
    "/games/locus-poker/{game_id}": Route("a locus poker game (here: another module, 404)"),
    "/games/poker-dice": Route("poker dice start page"),
    "/games/poker-dice/{game_id}": Route("a poker dice game"),
    # -- API (from the OpenAPI schema)
    "/api/v1/events": Route("events list"),
    "/api/v1/events/{event_id}": Route("one event"),
    "/api/v1/events/{event_id}/archive": Route("the event archive"),
    "/api/v1/events/{event_id}/auctions": Route("ceremony view"),
    "/api/v1/events/{event_id}/auctions/results": Route("results JSON"),
    "/api/v1/events/{event_id}/auctions/results.csv": Route("results CSV"),
    "/api/v1/events/{event_id}/auctions/{place}": Route("one auction"),
    "/api/v1/events/{event_id}/auctions/{place}/verify": Route(
        "receipt check", "receipt={receipt}"
    ),
    "/api/v1/events/{event_id}/checkpoints": Route("the deck"),
    "/api/v1/events/{event_id}/checkpoints.csv": Route("the public CP list CSV"),
    "/api/v1/events/{event_id}/checkpoints.gpx": Route("the public CP list GPX"),
    "/api/v1/events/{event_id}/checkpoints/export.csv": Route("the deck export CSV"),
    "/api/v1/events/{event_id}/checkpoints/{number}/qr.png": Route("a CP's QR code (PNG)"),
    "/api/v1/events/{event_id}/checkpoints/{number}/qr.svg": Route("a CP's QR code (SVG)"),
    "/api/v1/events/{event_id}/corrections": Route("the organiser's corrections"),
    "/api/v1/events/{event_id}/integration-keys": Route("integration keys"),
    "/api/v1/events/{event_id}/iof/course-data.xml": Route("IOF CourseData"),
    "/api/v1/events/{event_id}/iof/entry-list.xml": Route("IOF EntryList"),
    "/api/v1/events/{event_id}/iof/result-list.xml": Route("IOF ResultList"),
    "/api/v1/events/{event_id}/live": Route(
        "the live stream (SSE); the phone's compact form and the hall screen's too",
        stream=True,
        also=("counts=false", "hall=true"),
    ),
    "/api/v1/events/{event_id}/log/head": Route("the log head"),
    "/api/v1/events/{event_id}/log/verify": Route("the log check"),
    "/api/v1/events/{event_id}/participants": Route("participants"),
    "/api/v1/events/{event_id}/participants/{external_id}": Route("one participant"),
    "/api/v1/events/{event_id}/participants/{external_id}/state": Route("A's state"),
    "/api/v1/events/{event_id}/print/checkpoints": Route("QR print sheet"),
    "/api/v1/events/{event_id}/takes": Route("the take log"),
    "/api/v1/events/{event_id}/warnings": Route("event warnings"),
    "/api/v1/games/modules": Route("game modules", static=True),
    "/api/v1/games/{game_id}": Route("a game as the caller may see it"),
    "/api/v1/me/state": Route("my state (participant token)"),
    "/healthz": Route("liveness", static=True),
    "/readyz": Route("readiness", static=True),
    "/openapi.json": Route("the OpenAPI schema", static=True),
    "/docs": Route("Swagger UI", static=True),
    "/redoc": Route("ReDoc", static=True),
}
