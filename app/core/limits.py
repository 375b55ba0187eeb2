"""Request body limits: a JSON body larger than the limit is refused before it is parsed.

`BodyLimitMiddleware` answers 413 `payload_too_large` (an RFC 9457 problem) to a request
whose body is JSON (`application/json`, `application/*+json`) or has no `Content-Type`
(FastAPI parses such a body as JSON) and is larger than `JSON_BODY_MAX_BYTES`
(`ARCHIVE_BODY_MAX_BYTES` for `POST /api/v1/events/import`, an event archive):

- with a `Content-Length` above the limit, at once: nothing of the body is read;
- without one (chunked), the body is read up to the limit and refused at the first
  byte past it, never held whole.

Forms and file uploads (CSV, XML) keep their own limits (`MAX_CSV_BYTES`, 413 too).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.problems import problem_response

ARCHIVE_IMPORT_PATH = "/api/v1/events/import"


def is_json(content_type: str | None) -> bool:
    """Whether a request body of this `Content-Type` is parsed as JSON (None: no header)."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class BodyLimitMiddleware:
    """ASGI middleware refusing JSON bodies over `json_max_bytes` (`archive_max_bytes` for
    the archive import) with 413 before the app reads them (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, json_max_bytes: int, archive_max_bytes: int) -> None:
        self.app = app
        self.json_max_bytes = json_max_bytes
        self.archive_max_bytes = archive_max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        if not is_json(_header(scope, b"content-type")):
            await self.app(scope, receive, send)
            return
        limit = (
            self.archive_max_bytes if scope["path"] == ARCHIVE_IMPORT_PATH else self.json_max_bytes
        )
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit():
            if int(length) > limit:
                await _too_large(limit)(scope, receive, send)
                return
            await self.app(scope, receive, send)  # the server holds the body to its length
            return
        await self._chunked(scope, receive, send, limit)

    async def _chunked(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        """A body without a valid `Content-Length`: read it up to `limit`, then replay it."""
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > limit:
                await _too_large(limit)(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def _too_large(limit: int):
    return problem_response(
        413,
        "payload_too_large",
        f"The request body is larger than {limit} bytes.",
        max_bytes=limit,
    )
