"""event final_log_head: the event head fixed when the ceremony finished

The close of the last auction stores the head over the take and bid logs on the event
row (app.flows.log_chain.fix_head), so the participants' results page shows it without
reading one row per participant; an undone last close clears it. Events already
finished get no value here: their pages compute the head as before.

Revision ID: 0011_event_final_log_head
Revises: 0010_live_change
Create Date: 2026-12-01 16:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011_event_final_log_head'
down_revision: str | None = '0010_live_change'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('final_log_head', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.drop_column('final_log_head')
