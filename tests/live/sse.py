"""A small SSE reader for the tests: a thread reads one stream into a queue.

Built on http.client so that `close()` can shut the socket down at once (the reading
thread then ends without waiting for the next ping)."""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Message:
    event: str
    id: str | None
    data: dict
    raw: str


@dataclass
class Stream:
    url: str
    headers: dict = field(default_factory=dict)
    messages: queue.Queue = field(default_factory=queue.Queue)
    raw: list[str] = field(default_factory=list)
    ended: threading.Event = field(default_factory=threading.Event)
    status: int | None = None

    def start(self) -> Stream:
        parts = urlsplit(self.url)
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        self._conn.request("GET", path, headers={"Accept": "text/event-stream", **self.headers})
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            response = self._conn.getresponse()
            self.status = response.status
            event, ident, data = "message", None, []
            while True:
                raw = response.readline()
                if not raw:
                    break
                line = raw.decode().rstrip("\r\n")
                self.raw.append(line)
                if line == "":
                    if data:
                        text = "\n".join(data)
                        self.messages.put(Message(event, ident, json.loads(text), text))
                    event, ident, data = "message", None, []
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("id:"):
                    ident = line[3:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
        except (OSError, http.client.HTTPException, ValueError, AttributeError):
            pass
        finally:
            self.ended.set()

    def next(self, timeout: float = 120.0) -> Message:
        return self.messages.get(timeout=timeout)

    def until(self, predicate, timeout: float = 120.0) -> Message:
        """The first message matching `predicate` (others are skipped)."""
        while True:
            message = self.next(timeout)
            if predicate(message):
                return message

    def close(self) -> None:
        sock = self._conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=60)
        self._conn.close()
