"""The offline phone (PWA): service worker, manifest, app shell, bundle and sync.

- `GET /sw.js`: the service worker (`app/static/offline/sw.js`), served at the root so its
  scope is `/` (`Service-Worker-Allowed: /`), never cached by HTTP (`no-cache`), so a
  new version is picked up at the next visit. The server puts in front of it its version
  and the content-hashed URLs it precaches (`precache_urls`, `app.web.assets`), so the
  precache list follows the hashes the pages use;
- `GET /manifest.webmanifest`: the web app manifest (installable, icons);
- `GET /me/offline`: the app shell: a page without data that `offline/app.js` fills from
  the device (IndexedDB). The service worker answers `/t/{code}` with it once the
  participant has opened `/me` online (the server-rendered `/t/{code}` stays for phones
  without the service worker);
- `GET /me/offline.json`: the signed-in participant's bundle (`app.flows.offline.bundle`:
  encrypted deck, own save codes, state); 401 without the participant cookie;
- `POST /me/offline/sync`: the device's queue, through the feed's ingest
  (`app.flows.offline.sync`); JSON only, same origin only (a cross-site form cannot send
  it), idempotent per source id.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from pydantic import AwareDatetime, BaseModel, Field

from app.callers import PhoneCaller
from app.core.deps import SessionDep, SettingsDep
from app.core.errors import AppError, Forbidden, Unauthorized
from app.core.principal import Principal
from app.events.deps import participant_of
from app.events.models import Participant
from app.feed.schemas import MAX_BATCH
from app.flows import device_trust
from app.flows import offline as offline_flow
from app.web import i18n
from app.web.assets import static_url
from app.web.common import render
from app.web.templating import STATIC_DIR, TEMPLATES_DIR

router = APIRouter(include_in_schema=False)

OFFLINE_DIR = STATIC_DIR / "offline"
DEVICE_PATTERN = r"^phone-[a-z0-9]{8,32}$"
# Catalogue keys the app shell needs (app/locale/*/LC_MESSAGES/messages.po).
SHELL_PREFIXES = (
    "take.", "reason.", "outcome.", "confirm.", "next.", "game.", "category.", "kind.",
    "offline.", "common.", "app.", "scan.", "hints.",
)  # fmt: skip


# What the service worker precaches: the pages' entry files by their content-hashed URLs
# (`static()` in the templates), the ES modules those import by their plain URLs (a
# relative `import "./view.js"` names `/static/offline/view.js`: an import map would
# need an inline script, which the CSP forbids), and two routes. The app shell's page
# (`/me/offline`) is cached by the worker too.
PRECACHE_STATIC = (
    "app.css", "offline/app.js", "offline/register.js", "offline/scanner.js",
    "vendor/jsqr/jsQR.js", "offline/icon-192.png",
)  # fmt: skip
# Every module offline/app.js imports, directly or not (tests/web/test_delivery.py
# follows the imports and checks this list).
PRECACHE_MODULES = (
    "offline/device.js", "offline/deck.js", "offline/render.js", "offline/rules.js",
    "offline/scanner.js", "offline/store.js", "offline/sync.js", "offline/ui.js",
    "offline/view.js",
)  # fmt: skip
PRECACHE_ROUTES = ("/manifest.webmanifest", "/favicon.ico")


def precache_urls() -> list[str]:
    """The URLs the service worker caches at install: the static files of
    `PRECACHE_STATIC` under their hashed names (`/static/app.<hash>.css`), the modules of
    `PRECACHE_MODULES` under their plain names (`/static/offline/view.js`), then
    `PRECACHE_ROUTES`."""
    return (
        [static_url(name) for name in PRECACHE_STATIC]
        + [f"/static/{name}" for name in PRECACHE_MODULES]
        + list(PRECACHE_ROUTES)
    )


@cache
def worker_version() -> str:
    """A hash of what the service worker caches (static files, the shell's templates and
    the message catalogue): a new version of any of them changes `/sw.js`, so browsers
    install the new worker and cache the new files."""
    digest = hashlib.sha256()
    files = [*sorted(OFFLINE_DIR.iterdir()), STATIC_DIR / "app.css", STATIC_DIR / "favicon.svg",
             STATIC_DIR / "vendor" / "jsqr" / "jsQR.js",
             TEMPLATES_DIR / "base.html", TEMPLATES_DIR / "phone" / "base.html",
             TEMPLATES_DIR / "phone" / "offline.html", Path(i18n.__file__),
             *(i18n.catalogue_path(lang) for lang in i18n.LANGUAGES)]  # fmt: skip
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class SyncCreate(BaseModel):
    """The phone's queue: `source` (the device, `phone-` + 8–32 lowercase letters or
    digits), `takes` (`{"code", "taken_at", "source_id"}` each, validated one by one by the
    feed), `sent_at` (the device's clock when it sent the batch, optional)."""

    source: str = Field(pattern=DEVICE_PATTERN)
    takes: list[Any] = Field(max_length=MAX_BATCH)
    sent_at: AwareDatetime | None = None


def _participant_or_401(session: SessionDep, phone: Principal) -> Participant:
    """The participant of the phone's cookie (`PhoneCaller`), else 401 `not_signed_in`
    (checked in the route's body: after the sync's origin check, as before)."""
    participant = participant_of(session, phone)
    if participant is None:
        raise Unauthorized(
            "Open your personal link first: the offline mode needs a signed-in participant.",
            code="not_signed_in",
        )
    return participant


def _same_origin(request: Request) -> None:
    """Refuse a cross-site POST (403 `cross_origin`): JSON only, and an `Origin` header,
    when the browser sends one, must be this site's."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise AppError("Send the batch as application/json.", code="unsupported_media_type",
                       status=415)  # fmt: skip
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        raise Forbidden("The batch must come from this site's pages.", code="cross_origin")


@router.get("/sw.js")
def service_worker() -> Response:
    """The service worker (an ES module: it imports store.js), scope `/`, stamped with
    `worker_version()` and its precache list (`precache_urls`)."""
    script = (OFFLINE_DIR / "sw.js").read_text(encoding="utf-8")
    preamble = (
        f'self.ROGAINE_VERSION = "{worker_version()}";\n'
        f"self.ROGAINE_ASSETS = {json.dumps(precache_urls())};\n"
    )
    return Response(
        preamble + script,
        media_type="text/javascript",
        headers={"Service-Worker-Allowed": "/", "Cache-Control": "no-cache"},
    )


@router.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest (name, icons, start URL `/me`, standalone display)."""
    return FileResponse(
        OFFLINE_DIR / "manifest.webmanifest",
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/me/offline")
def app_shell(request: Request) -> Response:
    """The app shell: no participant data (it comes from the device), the catalogue strings
    of the page language for `offline/app.js`."""
    lang = i18n.negotiate(request)
    strings = {
        key: i18n.translate(lang, key) for key in i18n.MESSAGES if key.startswith(SHELL_PREFIXES)
    }
    # `participant`: show the participant's navigation (the shell holds no one's data).
    context = {"strings": strings, "participant": True, "offline_modules": PRECACHE_MODULES}
    return render(request, "phone/offline.html", context)


@router.get("/me/offline.json")
def offline_bundle(
    session: SessionDep,
    phone: PhoneCaller,
    device: Annotated[str | None, Query(pattern=DEVICE_PATTERN)] = None,
    at: Annotated[AwareDatetime | None, Query()] = None,
) -> JSONResponse:
    """The signed-in participant's bundle for offline play (`app.flows.offline.bundle`).

    `device` (the phone's id, as in a sync) and `at` (its clock, aware): a contact of the
    device's clock (RULES.md I-22, `offline_flow.bundle_contact`)."""
    participant = _participant_or_401(session, phone)
    if device is not None:
        offline_flow.bundle_contact(session, participant, device, at)
    # Private (own save codes): never in a shared cache; revalidated at each use.
    return JSONResponse(
        offline_flow.bundle(session, participant), headers={"Cache-Control": "private, no-cache"}
    )


@router.post("/me/offline/sync")
def offline_sync(
    body: SyncCreate,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    phone: PhoneCaller,
) -> JSONResponse:
    """Store the device's queued takes (one batch, idempotent) and answer with the results
    and the participant's state (`app.flows.offline.sync`)."""
    _same_origin(request)
    participant = _participant_or_401(session, phone)
    result = offline_flow.sync(
        session,
        participant,
        body.source,
        body.takes,
        sent_at=body.sent_at,
        clock_tolerance=timedelta(seconds=settings.feed_clock_tolerance_seconds),
        limits=device_trust.TrustLimits(
            jump=timedelta(seconds=settings.phone_clock_jump_seconds),
            bound=timedelta(seconds=settings.phone_clock_review_seconds),
        ),
    )
    return JSONResponse(result, headers={"Cache-Control": "private, no-cache"})
