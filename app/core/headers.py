"""Security headers on every response (pages, API, static files, errors).

- `Content-Security-Policy`: scripts, styles, images, fonts and connections only from
  this origin; no inline scripts, no inline styles, no plugins; forms post only here;
  no framing (`frame-ancestors 'none'`) except the projector pages, which the
  organiser may frame on this origin (`'self'`). `/docs`, `/redoc` and their assets
  get their own policy: Swagger UI and ReDoc start with an inline script and ReDoc
  runs a `blob:` worker.
- `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`.
- `Strict-Transport-Security` when `BASE_URL` is https.

A route may set its own value of any of these headers; the middleware only adds the
missing ones.
"""

from __future__ import annotations

import re

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_BASE = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors {frame}"
)
PAGE_POLICY = _BASE.format(frame="'none'")
PROJECTOR_POLICY = _BASE.format(frame="'self'")
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
HSTS = "max-age=31536000"
_PROJECTOR = re.compile(r"^/admin/events/[^/]+/projector(/|$)")
_DOCS_PREFIXES = ("/docs", "/redoc")


def policy_for(path: str) -> str:
    """The Content-Security-Policy of a request path."""
    if path.startswith(_DOCS_PREFIXES):
        return DOCS_POLICY
    if _PROJECTOR.match(path):
        return PROJECTOR_POLICY
    return PAGE_POLICY


class SecurityHeadersMiddleware:
    """ASGI middleware adding the headers above; `https` turns on HSTS."""

    def __init__(self, app: ASGIApp, *, https: bool) -> None:
        self.app = app
        self.https = https

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = policy_for(scope.get("path", ""))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                if self.https:
                    headers.setdefault("Strict-Transport-Security", HSTS)
            await send(message)

        await self.app(scope, receive, send_with_headers)
