"""`Principal.actor`: how the audit, take and game logs name who acted (issue 25)."""

from __future__ import annotations

from app.core.principal import ORGANISER, PUBLIC, Kind, Principal


def test_each_kind_names_its_actor() -> None:
    participant = Principal(Kind.PARTICIPANT, participant_id=7, external_id="101", event_id=3)
    key = Principal(Kind.INTEGRATION_KEY, key_id=5, key_prefix="rpk_ab12", event_id=3)
    seat = Principal(Kind.GAME_SEAT, game_id=9, seat=2)
    table = Principal(Kind.TABLE, game_id=9)
    assert ORGANISER.actor == "organiser"
    assert participant.actor == "participant:101"  # the external id, as the logs had it
    assert key.actor == "key:rpk_ab12"
    assert seat.actor == "seat:2"  # game_action.actor (20 characters at most)
    assert table.actor == "table"
    assert PUBLIC.actor == "public"
