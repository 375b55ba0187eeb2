"""QR codes (the `qrcode` library) of CP take links and participants' personal links."""

from __future__ import annotations

import io

import qrcode
import qrcode.constants
from qrcode.image.svg import SvgPathImage


def take_url(base_url: str, code: str) -> str:
    """`{BASE_URL}/t/{code}`: the page a CP's QR code opens (API.md)."""
    return f"{base_url}/t/{code}"


def personal_url(base_url: str, access_token: str) -> str:
    """`{BASE_URL}/p/{access_token}`: a participant's personal link (API.md)."""
    return f"{base_url}/p/{access_token}"


def _qr(data: str) -> qrcode.QRCode:
    # Level M (15 % damage) and the standard 4-module quiet zone.
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    qr.add_data(data)
    qr.make(fit=True)
    return qr


def qr_svg(data: str) -> str:
    """An SVG document of the QR code of `data`; scales to any size (it has a viewBox)."""
    image = _qr(data).make_image(image_factory=SvgPathImage)
    return image.to_string(encoding="unicode")


def qr_png(data: str, box_size: int = 10) -> bytes:
    """PNG bytes of the QR code of `data`, `box_size` pixels per module."""
    qr = _qr(data)
    qr.box_size = box_size
    buffer = io.BytesIO()
    qr.make_image().save(buffer, format="PNG")
    return buffer.getvalue()
