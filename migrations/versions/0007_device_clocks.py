"""device clocks: a take keeps its device time and the offset; per-source clock offsets

A batch whose `sent_at` is off by more than the tolerance stores its takes at the
corrected time; `device_taken_at` and `clock_offset_seconds` keep the device's time
and the offset. `source_clock` is a log of the organiser's offsets per source (the
latest row per source wins); the takes themselves are never edited.

Revision ID: 0007_device_clocks
Revises: 0006
Create Date: 2026-12-01 15:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007_device_clocks'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'source_clock',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('source', sa.String(length=64), nullable=False),
        sa.Column('offset_seconds', sa.Double(), nullable=True),
        sa.Column('set_by', sa.String(length=120), nullable=False),
        sa.Column('set_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['event_id'], ['event.id'],
            name=op.f('fk_source_clock_event_id_event'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_source_clock')),
    )
    with op.batch_alter_table('source_clock', schema=None) as batch_op:
        batch_op.create_index(
            'ix_source_clock_event_id_source', ['event_id', 'source', 'id'], unique=False
        )
    with op.batch_alter_table('take', schema=None) as batch_op:
        batch_op.add_column(sa.Column('device_taken_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('clock_offset_seconds', sa.Double(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('take', schema=None) as batch_op:
        batch_op.drop_column('clock_offset_seconds')
        batch_op.drop_column('device_taken_at')
    with op.batch_alter_table('source_clock', schema=None) as batch_op:
        batch_op.drop_index('ix_source_clock_event_id_source')
    op.drop_table('source_clock')
