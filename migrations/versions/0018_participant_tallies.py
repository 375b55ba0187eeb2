"""participant tallies: the dashboard's counters kept by the feed's writes (issue 24)

`participant_state` gains `hand_cards` (cards held unsaved), `takes`, `unknown_codes`
(not voided) and `hand_full` (refusals), written with the state by every feed write;
the dashboard sums them in one query, and lists the first rows of each warning through
an index on (event_id, tally). `take` gains an index on (event_id, taken_at) for the
takes per minute, `take_outcome` one on `kind` for the unknown codes' list. Existing rows are filled from their take outcomes and states.

Revision ID: 0018_participant_tallies
Revises: 0017_device_contacts
Create Date: 2026-12-07 09:00:00
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_participant_tallies"
down_revision: str | None = "0017_device_contacts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TALLIES = ("hand_cards", "takes", "unknown_codes", "hand_full")


def upgrade() -> None:
    with op.batch_alter_table("participant_state", schema=None) as batch_op:
        for name in TALLIES:
            batch_op.add_column(
                sa.Column(name, sa.Integer(), server_default="0", nullable=False)
            )
    with op.batch_alter_table("take", schema=None) as batch_op:
        batch_op.create_index("ix_take_event_id_taken_at", ["event_id", "taken_at"], unique=False)
    with op.batch_alter_table("take_outcome", schema=None) as batch_op:
        batch_op.create_index("ix_take_outcome_kind", ["kind"], unique=False)
    _fill()
    with op.batch_alter_table("participant_state", schema=None) as batch_op:
        for name in ("hand_cards", "hand_full", "unknown_codes"):
            batch_op.create_index(
                f"ix_participant_state_event_id_{name}", ["event_id", name], unique=False
            )


def _fill() -> None:
    """Each state row's tallies from its participant's outcomes and stored hand."""
    bind = op.get_bind()
    counts = bind.execute(
        sa.text(
            "SELECT participant_id, COUNT(*), "
            "SUM(CASE WHEN kind = 'unknown' AND (reason IS NULL OR reason <> 'voided') "
            "THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN reason = 'hand_full' THEN 1 ELSE 0 END) "
            "FROM take_outcome GROUP BY participant_id"
        )
    )
    found = {row[0]: row[1:] for row in counts}
    states = bind.execute(sa.text("SELECT participant_id, state FROM participant_state"))
    update = sa.text(
        "UPDATE participant_state SET hand_cards = :hand_cards, takes = :takes, "
        "unknown_codes = :unknown_codes, hand_full = :hand_full WHERE participant_id = :pid"
    )
    rows = []
    for participant_id, state in states:
        if isinstance(state, str):
            state = json.loads(state)
        takes, unknown, hand_full = found.get(participant_id, (0, 0, 0))
        rows.append(
            {
                "pid": participant_id,
                "hand_cards": len((state or {}).get("hand") or []),
                "takes": int(takes or 0),
                "unknown_codes": int(unknown or 0),
                "hand_full": int(hand_full or 0),
            }
        )
    if rows:
        bind.execute(update, rows)


def downgrade() -> None:
    with op.batch_alter_table("participant_state", schema=None) as batch_op:
        for name in ("unknown_codes", "hand_full", "hand_cards"):
            batch_op.drop_index(f"ix_participant_state_event_id_{name}")
    with op.batch_alter_table("take_outcome", schema=None) as batch_op:
        batch_op.drop_index("ix_take_outcome_kind")
    with op.batch_alter_table("take", schema=None) as batch_op:
        batch_op.drop_index("ix_take_event_id_taken_at")
    with op.batch_alter_table("participant_state", schema=None) as batch_op:
        for name in reversed(TALLIES):
            batch_op.drop_column(name)
