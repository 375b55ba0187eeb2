"""Weak organiser CP codes are refused (issue 26 point 5): a code opens its CP's entry of
the offline deck, so a code an offline search finds in less than 2**80 tries is refused;
generated codes (120 bits) stay as they are."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient

from app.events.codes import MIN_CODE_BITS, code_strength_bits
from tests.events.test_checkpoints import BASE32, _put
from tests.factories import DECK


def test_strength_worked_by_hand():
    # a series: CPCODE01 next to CPCODE02 differs in 1 character (3.3 bits of digits+letters)
    assert code_strength_bits("CPCODE01", ["CPCODE01", "CPCODE02"]) == pytest.approx(math.log2(36))
    # 16 letters and digits, nothing shared: 16 × log2(36) = 82.7 bits
    assert code_strength_bits("K7P2XQ9M4TRW8ZNB") == pytest.approx(16 * math.log2(36))
    # digits only: 20 × log2(10) = 66.4 bits, too weak
    assert code_strength_bits("31415926535897932384") < MIN_CODE_BITS
    # a run counts as 2 at most: "AAAAAAAAAAAAAAAAAAAAAAAAB" is 3 letters: 14.1 bits
    assert code_strength_bits("A" * 24 + "B") == pytest.approx(3 * math.log2(26))
    # two random codes sharing 2 characters by chance lose nothing (a series needs 3)
    assert code_strength_bits("K7P2XQ9M4TRW8ZNB", ["K7H3WQ8VNC5XT2MR"]) == pytest.approx(
        16 * math.log2(36)
    )


def test_a_series_of_weak_organiser_codes_is_refused_with_a_clear_message(
    client: TestClient, admin: dict[str, str], event_id: int
):
    deck = [{"number": n, "card": card, "code": f"CPCODE{n:02d}"} for n, card in enumerate(DECK, 1)]
    response = _put(client, admin, event_id, deck)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert len(errors) == 54 and {e["loc"][-1] for e in errors} == {"code"}
    assert "too weak" in errors[0]["msg"] and "at least 80" in errors[0]["msg"]
    # nothing was stored: the deck is still empty
    assert (
        client.get(f"/api/v1/events/{event_id}/checkpoints", headers=admin).json()["checkpoints"]
        == []
    )


def test_strong_organiser_codes_and_generated_codes_are_accepted(
    client: TestClient, admin: dict[str, str], event_id: int
):
    deck = [
        {"number": 1, "card": "AS", "code": "K7P2XQ9M4TRW8ZNB"},
        {"number": 2, "card": "KS", "code": "H3WQ8VNC5KXT2MRJ"},
        {"number": 3, "card": "QS"},
    ]
    response = _put(client, admin, event_id, deck)
    assert response.status_code == 200, response.text
    codes = [cp["code"] for cp in response.json()["checkpoints"]]
    assert codes[:2] == ["K7P2XQ9M4TRW8ZNB", "H3WQ8VNC5KXT2MRJ"]
    assert BASE32.match(codes[2])  # generated: 24 base32 characters, 120 bits, as before
