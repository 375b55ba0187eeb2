"""QR codes of CPs and personal links, decoded back with a QR decoder; print sheets."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.core.security import hash_token
from app.events.models import Participant
from tests.events.conftest import EVENT_BODY, decode_png, decode_svg, svgs_in


def test_checkpoint_qr_png_decodes_to_take_url(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    response = client.get(f"/api/v1/events/{event_id}/checkpoints/3/qr.png", headers=admin)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert decode_png(response.content) == f"http://testserver/t/{deck[2]['code']}"


def test_checkpoint_qr_svg_decodes_to_take_url(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    response = client.get(f"/api/v1/events/{event_id}/checkpoints/54/qr.svg", headers=admin)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert decode_svg(response.text) == f"http://testserver/t/{deck[53]['code']}"


def test_checkpoint_qr_is_organiser_only(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    for kind in ("svg", "png"):
        url = f"/api/v1/events/{event_id}/checkpoints/1/qr.{kind}"
        assert client.get(url).status_code == 401
        missing = client.get(f"/api/v1/events/{event_id}/checkpoints/99/qr.{kind}", headers=admin)
        assert missing.status_code == 404


def test_checkpoint_print_sheet(
    client: TestClient, admin: dict[str, str], event_id: int, deck: list[dict]
) -> None:
    assert client.get(f"/api/v1/events/{event_id}/print/checkpoints").status_code == 401
    response = client.get(f"/api/v1/events/{event_id}/print/checkpoints", headers=admin)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    svgs = svgs_in(html)
    assert len(svgs) == 54
    assert decode_svg(svgs[0]) == f"http://testserver/t/{deck[0]['code']}"
    assert decode_svg(svgs[53]) == f"http://testserver/t/{deck[53]['code']}"
    assert html.count(EVENT_BODY["name"]) >= 54
    assert '<div class="number">17</div>' in html
    # Printed at A4 with each QR at least 6 cm wide (11 cm: readable from about 1 m).
    # (the styles are a static file: the pages' CSP allows no inline styles)
    sheet = r'<link rel="stylesheet" href="(/static/print_checkpoints\.[0-9a-f]{12}\.css)">'
    link = re.search(sheet, html)
    assert link is not None
    css = client.get(link.group(1)).text
    assert "size: A4" in css
    side = float(re.search(r"\.qr svg \{ width: (\d+(?:\.\d+)?)cm", css).group(1))
    assert side >= 6
    # The sheet hangs in the field: no card and no discard code on it.
    for cp in deck:
        assert cp["discard_code"] not in html
        assert f">{cp['card_display']}<" not in html


def test_participant_cards_reissue_tokens_and_decode(
    client: TestClient, admin: dict[str, str], event_id: int, session
) -> None:
    base = f"/api/v1/events/{event_id}/participants"
    anna = client.post(base, json={"name": "Anna", "external_id": "1"}, headers=admin).json()
    boris = client.post(base, json={"name": "Boris", "external_id": "2"}, headers=admin).json()
    url = f"/api/v1/events/{event_id}/print/participant-cards"
    assert client.post(url).status_code == 401
    response = client.post(url, params={"participant": "2"}, headers=admin)
    assert response.status_code == 200
    html = response.text
    [svg] = svgs_in(html)
    link = decode_svg(svg)
    assert link.startswith("http://testserver/p/")
    token = link.removeprefix("http://testserver/p/")
    assert link in html
    assert "Boris" in html
    assert "Anna" not in html
    assert all(code in html for code in boris["save_codes"])
    # The card prints the link returned at creation (kept sealed: issue 26 point 7);
    # `?reissue=true` issues a new one, and the one given at creation stops working.
    assert token == boris["access_token"]
    again = client.post(url, params={"participant": "2", "reissue": "true"}, headers=admin)
    renewed = decode_svg(svgs_in(again.text)[0]).removeprefix("http://testserver/p/")
    assert renewed != token and "2" in again.text
    session.expire_all()
    assert session.get(Participant, boris["id"]).access_token_hash == hash_token(renewed)
    assert session.get(Participant, anna["id"]).access_token_hash == hash_token(
        anna["access_token"]
    )


def test_participant_cards_for_everyone(
    client: TestClient, admin: dict[str, str], event_id: int
) -> None:
    base = f"/api/v1/events/{event_id}/participants"
    for name in ("Anna", "Boris", "Clara"):
        client.post(base, json={"name": name}, headers=admin)
    response = client.post(f"/api/v1/events/{event_id}/print/participant-cards", headers=admin)
    links = [decode_svg(svg) for svg in svgs_in(response.text)]
    assert len(links) == 3
    assert len(set(links)) == 3
    missing = client.post(
        f"/api/v1/events/{event_id}/print/participant-cards",
        params={"participant": "99"},
        headers=admin,
    )
    assert missing.status_code == 404
