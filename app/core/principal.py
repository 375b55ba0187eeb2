"""Who is calling: one `Principal`, resolved by one dependency, `accepts(...)`.

A route declares the kinds it accepts by the type of a parameter, one of the caller types
of `app/callers.py` (each `Annotated[Principal, Depends(accepts(Kind.ORGANISER, …))]`),
and gets the `Principal` of the request:

- `organiser`: `Authorization: Bearer <organiser token>`, or the organiser's page
  session (a signed cookie whose row `app.core.guard` found alive: logout revokes it;
  the cookie check is `Credentials.organiser`), or an organiser member (issue 29: its
  `om_` token or its session) that the roles table admits to the route
  (`app.web.roles.organiser_caller`, wired as `Credentials.organiser`; `member_*`);
- `participant`: the participant's access token (bearer), or on the phone pages the
  participant cookie (`via="cookie"`);
- `integration_key`: a timing system's key (`X-Integration-Key` or bearer); the
  signature over the body is checked by the feed (`app.feed.keys.feed_principal`);
- `game_seat` / `table`: a player or table token of a game (bearer or `?token=`);
- `public`: nobody in particular (returned only when the route accepts it).

The credential is the first one present among the route's sources (`via`), so a
request never mixes two. Looking a secret up needs the domain's tables, and `app.core`
imports no domain: the composition root (`app.wiring.credentials`) lists every kind with
its lookup in one `Credentials` table, which `create_app` stores as
`app.state.credentials`; `resolve` and `identify` read only that table (a kind missing
from it resolves nobody: `tests/test_architecture_wiring.py` checks the table is whole).

Refusals are as before: 401 `unauthorized` problems with the route's own `detail`
(and `WWW-Authenticate: Bearer`), counted as failed credentials by the sign-in guard;
an optional route (`required=False`) that was shown a secret matching nobody marks
the request failed (`guard.mark_failed`), so public routes do not let anyone test
tokens unthrottled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from fastapi import Request
from sqlalchemy.orm import Session

from app.core import guard
from app.core.config import Settings
from app.core.deps import SessionDep, bearer_token
from app.core.errors import Unauthorized
from app.core.security import tokens_equal


class Kind(StrEnum):
    ORGANISER = "organiser"
    PARTICIPANT = "participant"
    INTEGRATION_KEY = "integration_key"
    GAME_SEAT = "game_seat"
    TABLE = "table"
    PUBLIC = "public"


Via = Literal["bearer", "key", "query", "cookie"]
KEY_HEADER = "x-integration-key"


@dataclass(frozen=True)
class Principal:
    """The caller: its `kind` and the ids it carries (`participant_id`, `external_id` and
    `event_id` of a participant, `key_id`/`key_prefix`/`event_id` of an integration key,
    `game_id` and `seat` of a game seat, `game_id` of a table).

    Routers resolve it (`accepts`) and pass it on: the domain services and flows take the
    Principal itself (what it may see or do, and `actor` for their logs)."""

    kind: Kind
    participant_id: int | None = None
    external_id: str | None = None
    event_id: int | None = None
    key_id: int | None = None
    key_prefix: str | None = None
    game_id: int | None = None
    seat: int | None = None
    # An organiser member (issue 29; `event_id` is its event); None: the ADMIN_TOKEN owner.
    member_id: int | None = None
    member_name: str | None = None
    member_role: str | None = None

    @property
    def is_organiser(self) -> bool:
        return self.kind is Kind.ORGANISER

    @property
    def is_public(self) -> bool:
        return self.kind is Kind.PUBLIC

    @property
    def actor(self) -> str:
        """Who acted, as the audit, take and game logs and the chains name it:
        `organiser` (the ADMIN_TOKEN holder), `member:7 Anna (judge)` (an organiser
        member, issue 29), `participant:<external_id>`, `key:<prefix>`, `seat:<n>` (a game
        seat), `table` (a game's table token) or `public`."""
        if self.member_id is not None:
            return f"member:{self.member_id} {self.member_name} ({self.member_role})"
        if self.kind is Kind.PARTICIPANT:
            return f"participant:{self.external_id}"
        if self.kind is Kind.INTEGRATION_KEY:
            return f"key:{self.key_prefix}"
        if self.kind is Kind.GAME_SEAT:
            return f"seat:{self.seat}"
        return self.kind.value


ORGANISER = Principal(Kind.ORGANISER)
"""The organiser (admin token or organiser session): the one organiser Principal."""
PUBLIC = Principal(Kind.PUBLIC)
"""Anybody (no credential, or one the route does not accept): the one public Principal."""

SecretLookup = Callable[[Session, str], "Principal | None"]
CookieLookup = Callable[[Request, Session], "Principal | None"]
OrganiserLookup = Callable[[Request], "Principal | None"]


@dataclass(frozen=True)
class Credentials:
    """How each credential kind is resolved; built by `app.wiring.credentials`, stored as
    `app.state.credentials` by `create_app`.

    - `secrets`: kind → `lookup(session, secret)` (a token or key: its Principal or
      None). One lookup may serve two kinds (a game token is a seat or the table); it
      runs once per request;
    - `cookies`: kind → `lookup(request, session)` of the pages' signed cookie;
    - `organiser(request)`: the organiser Principal of a live organiser page session or
      an admitted organiser member, or None (the organiser token itself is
      `settings.admin_token`)."""

    secrets: Mapping[Kind, SecretLookup]
    cookies: Mapping[Kind, CookieLookup]
    organiser: OrganiserLookup


NO_CREDENTIALS = Credentials(secrets={}, cookies={}, organiser=lambda _request: None)


def credentials_of(request: Request) -> Credentials:
    """The app's credential table (`app.state.credentials`; none for an app that has none)."""
    return getattr(request.app.state, "credentials", NO_CREDENTIALS)


def organiser_presented(request: Request) -> bool:
    """True when the request carries the organiser token (bearer), a live organiser
    session or an admitted organiser member (`organiser_of`)."""
    return organiser_of(request) is not None


def organiser_of(request: Request) -> Principal | None:
    """The organiser Principal of the request: ORGANISER for the organiser token (bearer),
    else what `Credentials.organiser` finds (a live session of the owner, or an
    organiser member the roles table admits here: `app.web.roles.organiser_caller`),
    else None."""
    settings: Settings = request.app.state.settings
    if tokens_equal(bearer_token(request), settings.admin_token):
        return ORGANISER
    return credentials_of(request).organiser(request)


def presented_secret(request: Request, via: tuple[Via, ...]) -> str | None:
    """The first credential present among `via` (`key` header, `bearer`, `query` token)."""
    for source in via:
        if source == "bearer":
            secret = bearer_token(request)
        elif source == "key":
            secret = request.headers.get(KEY_HEADER)
        elif source == "query":
            secret = request.query_params.get("token")
        else:
            continue
        if secret:
            return secret
    return None


def identify(
    request: Request, session: Session, secret: str, kinds: tuple[Kind, ...]
) -> Principal | None:
    """The Principal of `secret` among `kinds` (the app's `Credentials.secrets`, in
    `kinds`' order), or None. Also used for secrets in a path (`/p/{token}`, `/g/{token}`)."""
    lookups = credentials_of(request).secrets
    tried: set[int] = set()
    for kind in kinds:
        lookup = lookups.get(kind)
        if lookup is None or id(lookup) in tried:
            continue
        tried.add(id(lookup))
        found = lookup(session, secret)
        if found is not None and found.kind in kinds:
            return found
    return None


def resolve(
    request: Request,
    session: Session | None,
    kinds: tuple[Kind, ...],
    via: tuple[Via, ...],
    *,
    mark_unknown: bool = True,
) -> Principal:
    """The request's Principal among `kinds` from the sources `via`; PUBLIC when none
    matched (a presented secret that matched nobody is marked failed for the guard when
    PUBLIC is accepted, unless `mark_unknown` is False: the route answers 401 itself)."""
    if Kind.ORGANISER in kinds:
        organiser = organiser_of(request)
        if organiser is not None:
            return organiser
    if session is None:
        return PUBLIC
    if "cookie" in via:
        cookies = credentials_of(request).cookies
        for kind in kinds:
            lookup = cookies.get(kind)
            found = lookup(request, session) if lookup else None
            if found is not None:
                return found
    secret = presented_secret(request, via)
    if secret:
        found = identify(request, session, secret, kinds)
        if found is not None:
            return found
        if Kind.PUBLIC in kinds and mark_unknown and guard.organiser_member(request) is None:
            guard.mark_failed(request)  # (a member's token shown where its role is refused: no)
    return PUBLIC


def accepts(
    *kinds: Kind,
    via: tuple[Via, ...] = ("bearer",),
    detail: str = "Missing or invalid credentials.",
    mark_unknown: bool = True,
) -> Callable[..., Principal]:
    """The dependency of a route that accepts `kinds` (add `Kind.PUBLIC` for an optional
    caller): the request's Principal, else 401 `unauthorized` with `detail`.

    Accepting only the organiser needs no database session (the sign-in guard already
    checked the session cookie); any other kind looks its secret up in the request's
    session. `mark_unknown`: see `resolve`."""
    required = Kind.PUBLIC not in kinds

    def check(principal: Principal) -> Principal:
        if required and principal.is_public:
            raise Unauthorized(detail)
        return principal

    if set(kinds) <= {Kind.ORGANISER, Kind.PUBLIC}:

        async def organiser_only(request: Request) -> Principal:  # no I/O: no thread
            return check(resolve(request, None, kinds, via))

        organiser_only.kinds = frozenset(kinds)  # type: ignore[attr-defined]  # roles table
        return organiser_only

    def principal(request: Request, session: SessionDep) -> Principal:
        return check(resolve(request, session, kinds, via, mark_unknown=mark_unknown))

    principal.kinds = frozenset(kinds)  # type: ignore[attr-defined]  # roles table
    return principal
