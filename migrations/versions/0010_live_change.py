"""live_version and live_change: the live channel's per-event version and change log

No foreign key to event (see app/live/models.py: it would make bids and a close deadlock).

Revision ID: 0010_live_change
Revises: 0009_sign_in_guard
Create Date: 2026-12-01 15:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0010_live_change'
down_revision: str | None = '0009_sign_in_guard'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'live_version',
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('event_id', name=op.f('pk_live_version')),
    )
    op.create_table(
        'live_change',
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.BigInteger(), nullable=False),
        sa.Column('topic', sa.String(length=16), nullable=False),
        sa.Column('place', sa.Integer(), nullable=False),
        sa.Column('changed_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('event_id', 'version', 'topic', 'place', name=op.f('pk_live_change')),
    )


def downgrade() -> None:
    op.drop_table('live_change')
    op.drop_table('live_version')
