"""HEAD answered as GET without the body (RFC 9110 §9.3.2): `curl -I`, link checkers and
uptime monitors ask with HEAD; FastAPI's GET routes alone answer it 405.

The request goes through as a GET (headers, status, `Content-Length` and
`Content-Encoding` exactly as a GET would get them); the body's bytes are dropped on
the way out. The live stream is never opened for a HEAD: it would not end.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

STREAM_PATH_SUFFIX = "/live"  # the SSE stream: `GET /api/v1/events/{id}/live`


class HeadAsGetMiddleware:
    """Answer HEAD as GET without the body (the outermost middleware, so compression and
    the other headers are those of the GET)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        if scope["path"].endswith(STREAM_PATH_SUFFIX):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})  # fmt: skip
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest follows; only the last (empty) part is sent
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_without_body)
