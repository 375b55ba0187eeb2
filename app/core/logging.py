"""Logging setup and the per-request access log line (method, path, status, latency, id)."""

from __future__ import annotations

import logging
import sys
import time
import uuid
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from app.core.config import Settings

access_logger = logging.getLogger("app.access")

# Paths whose last segment is a secret (a participant's link, a CP code, a game token).
SECRET_PATH_PREFIXES = ("/p/", "/t/", "/g/")


def redact_path(path: str) -> str:
    """The path as it may be logged: secret segments replaced by `***`."""
    for prefix in SECRET_PATH_PREFIXES:
        if path.startswith(prefix):
            return prefix + "***"
    return path


def configure_logging(settings: Settings) -> None:
    """Text lines by default, one JSON object per line when LOG_FORMAT=json."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(
            JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s", timestamp=True)
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger("app")
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level.upper())
    root.propagate = False


class RequestLogMiddleware:
    """Pure ASGI middleware: one log record per HTTP request, and an `X-Request-ID` header."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = None
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                request_id = value.decode("latin-1")[:64]
                break
        request_id = request_id or uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def send_wrapper(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            latency_ms = round((time.perf_counter() - started) * 1000, 2)
            access_logger.info(
                "%s %s %s %.2fms %s",
                scope["method"],
                redact_path(scope["path"]),
                status,
                latency_ms,
                request_id,
                extra={
                    "method": scope["method"],
                    "path": redact_path(scope["path"]),
                    "status": status,
                    "latency_ms": latency_ms,
                    "request_id": request_id,
                },
            )
