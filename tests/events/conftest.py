"""Shared setup of the event-setup tests: an event created through the API, QR decoding."""

from __future__ import annotations

import io
import re

import pytest
import zxingcpp
from fastapi.testclient import TestClient
from PIL import Image, ImageDraw

from tests.factories import DECK

EVENT_BODY = {
    "name": "Лосиный остров 2026",
    "opens_at": "2026-06-12T12:00:00+03:00",
    "closes_at": "2026-06-13T06:00:00+03:00",
    "timezone": "Europe/Moscow",
}


def full_deck(hint_prefix: str = "near a pine") -> list[dict]:
    """54 CPs: number i + 1 carries DECK[i], coordinates in a small forest box."""
    return [
        {
            "number": i + 1,
            "card": card,
            "lat": round(55.85 + i / 1000, 6),
            "lon": round(37.75 + i / 1000, 6),
            "hint": f"{hint_prefix} {i + 1}",
        }
        for i, card in enumerate(DECK)
    ]


@pytest.fixture
def event_id(client: TestClient, admin: dict[str, str]) -> int:
    response = client.post("/api/v1/events", json=EVENT_BODY, headers=admin)
    assert response.status_code == 201, response.text
    return response.json()["id"]


@pytest.fixture
def deck(client: TestClient, admin: dict[str, str], event_id: int) -> list[dict]:
    """The full deck set by PUT; returns the organiser's view of the CPs."""
    response = client.put(
        f"/api/v1/events/{event_id}/checkpoints", json={"checkpoints": full_deck()}, headers=admin
    )
    assert response.status_code == 200, response.text
    return response.json()["checkpoints"]


def decode_png(data: bytes) -> str:
    """The text of the one QR code in a PNG image."""
    results = zxingcpp.read_barcodes(Image.open(io.BytesIO(data)))
    assert len(results) == 1
    return results[0].text


_SQUARE = re.compile(r"M(\d+),(\d+)H")
_VIEWBOX = re.compile(r'viewBox="0 0 (\d+) (\d+)"')


def decode_svg(svg: str) -> str:
    """Rasterise a `qrcode` SvgPathImage (1×1 squares `M x,y H…`) and decode it."""
    size = int(_VIEWBOX.search(svg).group(1))
    scale = 8
    image = Image.new("L", (size * scale, size * scale), 255)
    draw = ImageDraw.Draw(image)
    for x, y in _SQUARE.findall(svg):
        x0, y0 = int(x) * scale, int(y) * scale
        draw.rectangle([x0, y0, x0 + scale - 1, y0 + scale - 1], fill=0)
    results = zxingcpp.read_barcodes(image)
    assert len(results) == 1
    return results[0].text


def svgs_in(html: str) -> list[str]:
    """Every inline `<svg …>…</svg>` element of an HTML page."""
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.DOTALL)
