"""event deck seed bigint: a 63-bit random seed cannot be brute-forced from a few cards

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 09:06:40.786128
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.alter_column('deck_seed',
               existing_type=sa.INTEGER(),
               type_=sa.BigInteger(),
               existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.alter_column('deck_seed',
               existing_type=sa.BigInteger(),
               type_=sa.INTEGER(),
               existing_nullable=True)
