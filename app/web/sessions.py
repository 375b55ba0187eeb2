"""Signed cookies of the pages: the participant's sign-in, the organiser's session, CSRF.

All three are itsdangerous signatures keyed by `settings.cookie_secret` (salted per use),
so nothing about a session lives in process memory and any app process can check it
(organiser sessions are also rows in the database, so logout ends them everywhere).

- participant cookie `rp_participant`: the participant id (the access token itself is
  never stored, only its hash in the database);
- organiser cookie `rp_organiser`: a random session id, proof of a sign-in with the
  organiser token or an organiser member's link (`/o/{token}`, the row names the
  member); valid only while its row exists (`app.core.guard`: logout, or revoking the
  member, deletes it);
- CSRF tokens: the signed session id of whoever owns the form (organiser session or
  participant), checked on every POST of a page form.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.guard import organiser_member, organiser_session_alive
from app.core.principal import Principal
from app.core.security import new_token
from app.events.deps import participant_principal
from app.events.models import Participant

PARTICIPANT_COOKIE = "rp_participant"
ORGANISER_COOKIE = "rp_organiser"
PARTICIPANT_MAX_AGE = 60 * 60 * 24 * 30  # seconds: a month covers event and ceremony
ORGANISER_MAX_AGE = 60 * 60 * 24  # seconds: one night at the desk
CSRF_MAX_AGE = 60 * 60 * 24  # seconds


def _serializer(settings: Settings, salt: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(settings.cookie_secret, salt=f"rogaine-pages:{salt}")


def _settings(request: Request) -> Settings:
    return request.app.state.settings


def _loads(request: Request, cookie: str, salt: str, max_age: int) -> Any | None:
    value = request.cookies.get(cookie)
    if not value:
        return None
    try:
        return _serializer(_settings(request), salt).loads(value, max_age=max_age)
    except BadSignature:
        return None


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int):
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="lax",
        secure=_settings(request).base_url.startswith("https://"),
        path="/",
    )


# --- participant -------------------------------------------------------------------


def sign_in_participant(
    request: Request, response: Response, participant_id: int, token_hash: str
) -> None:
    """Set the participant cookie (HttpOnly, SameSite=Lax, Secure behind https).

    It holds the participant id and a prefix of the stored token hash, so re-issuing
    the participant's token (a lost card) also ends the sessions of the old link.
    """
    value = _serializer(_settings(request), "participant").dumps(
        {"pid": participant_id, "th": token_hash[:16]}
    )
    _set_cookie(request, response, PARTICIPANT_COOKIE, value, PARTICIPANT_MAX_AGE)


def participant_cookie(request: Request) -> tuple[int, str] | None:
    """(participant id, token-hash prefix) of a valid participant cookie, or None."""
    data = _loads(request, PARTICIPANT_COOKIE, "participant", PARTICIPANT_MAX_AGE)
    if isinstance(data, dict) and isinstance(data.get("pid"), int):
        return data["pid"], str(data.get("th", ""))
    return None


def participant_id(request: Request) -> int | None:
    """The participant id of a valid participant cookie, or None."""
    cookie = participant_cookie(request)
    return cookie[0] if cookie else None


def cookie_principal(request: Request, session: Session) -> Principal | None:
    """The participant Principal of the page's cookie, or None (no cookie, bad signature,
    deleted participant, or a token re-issued since this phone signed in); the
    `participant` cookie lookup of `app.wiring.credentials`."""
    cookie = participant_cookie(request)
    if cookie is None:
        return None
    participant = session.get(Participant, cookie[0])
    if participant is None or not participant.access_token_hash.startswith(cookie[1] or "-"):
        return None
    return participant_principal(participant)


CLEAR_CACHE = '"cache"'
"""`Clear-Site-Data` of a sign-out: the browser drops this site's HTTP cache and its
back/forward cache, so Back shows no page of the signed-out person (pages are
`private, no-cache`, not `no-store`: `app.web.common.render`)."""


def sign_out_participant(response: Response) -> None:
    """Forget the participant cookie and clear this site's caches in the browser (the
    back/forward cache keeps pages with codes: `Clear-Site-Data: "cache"`)."""
    response.delete_cookie(PARTICIPANT_COOKIE, path="/")
    response.headers["Clear-Site-Data"] = CLEAR_CACHE


# --- organiser ---------------------------------------------------------------------


def sign_in_organiser(request: Request, response: Response, sid: str) -> None:
    """Set the organiser cookie: the signed session id `sid` (a row of
    `app.core.guard.start_session`), HttpOnly."""
    value = _serializer(_settings(request), "organiser").dumps({"sid": sid})
    _set_cookie(request, response, ORGANISER_COOKIE, value, ORGANISER_MAX_AGE)


def organiser_session_id(request: Request) -> str | None:
    """The session id of a valid organiser cookie, or None."""
    data = _loads(request, ORGANISER_COOKIE, "organiser", ORGANISER_MAX_AGE)
    if isinstance(data, dict) and isinstance(data.get("sid"), str):
        return data["sid"]
    return None


def has_organiser_session(request: Request) -> bool:
    """Whether the request holds the owner's live organiser page session (used by
    `app.web.roles.organiser_caller`, the `Credentials.organiser` of `app.wiring`):
    a valid signed cookie whose session row the sign-in guard found alive (not logged out),
    of the owner (an organiser member's session is `app.web.roles.organiser_caller`'s)."""
    return (
        organiser_session_id(request) is not None
        and organiser_session_alive(request)
        and organiser_member(request) is None
    )


def sign_out_organiser(response: Response) -> None:
    """Forget the organiser cookie and clear this site's caches in the browser."""
    response.delete_cookie(ORGANISER_COOKIE, path="/")
    response.headers["Clear-Site-Data"] = CLEAR_CACHE


# --- CSRF --------------------------------------------------------------------------


def _csrf_subject(request: Request) -> str | None:
    sid = organiser_session_id(request)
    if sid is not None:
        return f"o:{sid}"
    pid = participant_id(request)
    if pid is not None:
        return f"p:{pid}"
    nonce = request.cookies.get(ANON_COOKIE)
    if nonce:
        return f"a:{nonce}"
    return None


def csrf_token(request: Request) -> str:
    """A CSRF token tied to the caller's session ('' when there is no session)."""
    subject = _csrf_subject(request)
    if subject is None:
        return ""
    return _serializer(_settings(request), "csrf").dumps(subject)


def csrf_valid(request: Request, token: str | None) -> bool:
    """True when `token` was issued for the caller's current session (and is not too old)."""
    subject = _csrf_subject(request)
    if subject is None or not token:
        return False
    try:
        signed = _serializer(_settings(request), "csrf").loads(token, max_age=CSRF_MAX_AGE)
    except BadSignature:
        return False
    return signed == subject


# --- anonymous forms (the organiser sign-in) ----------------------------------------

ANON_COOKIE = "rp_csrf"


def anonymous_csrf(request: Request) -> tuple[str, str | None]:
    """The sign-in form's CSRF token (login-CSRF defence): for a visitor without a session,
    tied to a new anonymous nonce; with one (a phone's cookie), the session's `csrf_token`.

    Returns `(token, new_nonce)`; when `new_nonce` is not None the caller must set it
    with `set_anonymous_nonce` on the response.
    """
    if _csrf_subject(request) is not None:  # a phone already signed in on this browser too:
        return csrf_token(request), None  # `csrf_valid` checks against that session
    nonce = new_token(16)
    token = _serializer(_settings(request), "csrf").dumps(f"a:{nonce}")
    return token, nonce


def set_anonymous_nonce(request: Request, response: Response, nonce: str) -> None:
    _set_cookie(request, response, ANON_COOKIE, nonce, CSRF_MAX_AGE)


# --- one-time messages (a new integration key, shown once after the redirect) ----------

FLASH_MAX_AGE = 120  # seconds


def set_flash(request: Request, response: Response, name: str, value: str, path: str) -> None:
    """A short-lived signed HttpOnly cookie carrying `value` to the next page (PRG)."""
    signed = _serializer(_settings(request), f"flash:{name}").dumps(value)
    response.set_cookie(
        name,
        signed,
        max_age=FLASH_MAX_AGE,
        httponly=True,
        samesite="strict",
        secure=_settings(request).base_url.startswith("https://"),
        path=path,
    )


def read_flash(request: Request, raw: str, name: str = "rp_new_key") -> str | None:
    try:
        value = _serializer(_settings(request), f"flash:{name}").loads(raw, max_age=FLASH_MAX_AGE)
    except BadSignature:
        return None
    return value if isinstance(value, str) else None
