"""The simulation's HTTP client: the API.md contract, nothing else.

`ApiClient` wraps any `httpx.Client` — a real one against `--url`, or
FastAPI's `TestClient` (an `httpx.Client` on the ASGI app) in-process — so the
simulation talks to the service exactly as field apps and phones do.
"""

from __future__ import annotations

from typing import Any

import httpx

API = "/api/v1"


class ApiError(RuntimeError):
    """A response the simulation did not expect (the problem body is in the message)."""


class ApiClient:
    """Organiser and participant calls of API.md over one `httpx.Client`."""

    def __init__(self, http: httpx.Client, admin_token: str) -> None:
        self.http = http
        self.admin = {"Authorization": f"Bearer {admin_token}"}
        self.requests = 0

    def _call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        expect: tuple[int, ...] = (200, 201),
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else self.admin
        self.requests += 1
        response = self.http.request(method, path, headers=headers, json=json)
        if response.status_code not in expect:
            raise ApiError(f"{method} {path} -> {response.status_code}: {response.text[:500]}")
        return response.json() if response.content else None

    # --- organiser: setup ---
    def create_event(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", f"{API}/events", json=body)

    def set_status(self, event_id: int, status: str) -> None:
        self._call("POST", f"{API}/events/{event_id}/status", json={"status": status})

    def put_checkpoints(self, event_id: int, checkpoints: list[dict[str, Any]]) -> Any:
        return self._call(
            "PUT", f"{API}/events/{event_id}/checkpoints", json={"checkpoints": checkpoints}
        )

    def checkpoints(self, event_id: int, *, public: bool = False) -> list[dict[str, Any]]:
        """The CP list: the organiser's (with cards and codes) or, `public`, without them."""
        path = f"{API}/events/{event_id}/checkpoints"
        if public:
            self.requests += 1
            response = self.http.get(path)
            if response.status_code != 200:
                raise ApiError(f"GET {path} -> {response.status_code}: {response.text[:300]}")
            data = response.json()
        else:
            data = self._call("GET", path)
        return data["checkpoints"] if isinstance(data, dict) else data

    def add_participant(self, event_id: int, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", f"{API}/events/{event_id}/participants", json=body)

    # --- the feed ---
    def post_takes(self, event_id: int, takes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        data = self._call("POST", f"{API}/events/{event_id}/takes", json={"takes": takes})
        return data["results"]

    def state(self, event_id: int, external_id: str) -> dict[str, Any]:
        return self._call("GET", f"{API}/events/{event_id}/participants/{external_id}/state")

    def my_state(self, access_token: str) -> dict[str, Any]:
        return self._call("GET", f"{API}/me/state", token=access_token)

    # --- the ceremony ---
    def open_auction(self, event_id: int, place: int) -> dict[str, Any]:
        return self._call("POST", f"{API}/events/{event_id}/auctions/{place}/open")

    def bid(
        self, event_id: int, place: int, external_id: str, combination_id: int, token: str
    ) -> dict[str, Any]:
        return self._call(
            "POST",
            f"{API}/events/{event_id}/auctions/{place}/bids",
            token=token,
            json={"participant": external_id, "combination_id": combination_id},
        )

    def close_auction(self, event_id: int, place: int) -> dict[str, Any]:
        return self._call("POST", f"{API}/events/{event_id}/auctions/{place}/close")

    def reveal_all(self, event_id: int, place: int) -> dict[str, Any]:
        """Reveal every step left of the closed round (RULES.md I-21)."""
        return self._call(
            "POST", f"{API}/events/{event_id}/auctions/{place}/reveal", json={"all": True}
        )

    def auction(self, event_id: int, place: int) -> dict[str, Any]:
        return self._call("GET", f"{API}/events/{event_id}/auctions/{place}")
