"""auction reveal: a close decides, a reveal publishes (RULES.md I-21)

`auction_round.revealed` counts the reveal steps the organiser has taken since the
close (the counted bids from the weakest to the strongest, then the outcome) and
`auction_round.revealed_at` is set when the last one is taken. Rounds closed before
this revision were shown to everyone at their close: they are marked fully revealed
(steps = their counted bids + 1, at their close). `bid_withdrawal.reason` may now be
"correction" (an organiser's correction after a reveal).

Revision ID: 0012_auction_reveal
Revises: 0011_event_final_log_head
Create Date: 2026-12-02 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.core.db import UTCDateTime

revision: str = "0012_auction_reveal"
down_revision: str | None = "0011_event_final_log_head"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("auction_round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("revealed", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("revealed_at", UTCDateTime(), nullable=True))
    with op.batch_alter_table("bid_withdrawal", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_bid_withdrawal_reason"), type_="check")
        batch_op.create_check_constraint(
            "reason", "reason IN ('replaced', 'withdrawn', 'correction')"
        )
    rounds = sa.table(
        "auction_round",
        sa.column("id", sa.Integer()),
        sa.column("status", sa.String()),
        sa.column("result", sa.JSON()),
        sa.column("closed_at", UTCDateTime()),
        sa.column("revealed", sa.Integer()),
        sa.column("revealed_at", UTCDateTime()),
    )
    bind = op.get_bind()
    closed = bind.execute(
        sa.select(rounds.c.id, rounds.c.result, rounds.c.closed_at).where(
            rounds.c.status == "closed"
        )
    ).all()
    for round_id, result, closed_at in closed:
        steps = len((result or {}).get("bids") or []) + 1
        bind.execute(
            rounds.update()
            .where(rounds.c.id == round_id)
            .values(revealed=steps, revealed_at=closed_at)
        )


def downgrade() -> None:
    # an event with a correction cannot go back (its withdrawal rows are append-only)
    with op.batch_alter_table("bid_withdrawal", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_bid_withdrawal_reason"), type_="check")
        batch_op.create_check_constraint("reason", "reason IN ('replaced', 'withdrawn')")
    with op.batch_alter_table("auction_round", schema=None) as batch_op:
        batch_op.drop_column("revealed_at")
        batch_op.drop_column("revealed")
