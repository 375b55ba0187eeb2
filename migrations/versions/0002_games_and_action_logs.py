"""games of the rules modules, their seats and append-only action logs

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 09:02:54.208742
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('game',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('module', sa.String(length=40), nullable=False),
    sa.Column('players', sa.JSON(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('table_token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game')),
    sa.UniqueConstraint('table_token_hash', name=op.f('uq_game_table_token_hash'))
    )
    op.create_table('game_action',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=True),
    sa.Column('action', sa.JSON(), nullable=False),
    sa.Column('actor', sa.String(length=20), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_game_action_game_id_game'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_action')),
    sa.UniqueConstraint('game_id', 'seq', name=op.f('uq_game_action_game_id_seq'))
    )
    op.create_table('game_player',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_game_player_game_id_game'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_player')),
    sa.UniqueConstraint('game_id', 'seat', name=op.f('uq_game_player_game_id_seat')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_game_player_token_hash'))
    )


def downgrade() -> None:
    op.drop_table('game_player')
    op.drop_table('game_action')
    op.drop_table('game')
