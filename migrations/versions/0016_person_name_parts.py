"""participant name parts: kind, given and family name, club, punching card

A participant is a person or a team (`kind`, "person" for every existing row); a
person keeps the given and family name as an IOF EntryList or the organiser gave
them, and anyone a club and a punching card (IOF `Organisation/Name`, `ControlCard`),
so that every export writes them back as they came (issue 28). Existing rows keep
their one `name` and get no parts.

Revision ID: 0016_person_name_parts
Revises: 0013_chain_decisions
Create Date: 2026-12-07 08:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_person_name_parts"
down_revision: str | None = "0013_chain_decisions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kind", sa.String(length=8), server_default="person", nullable=False)
        )
        batch_op.add_column(sa.Column("given_name", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("family_name", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("club", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("control_card", sa.String(length=12), nullable=True))
        batch_op.create_check_constraint("kind", "kind IN ('person', 'team')")


def downgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_participant_kind"), type_="check")
        batch_op.drop_column("control_card")
        batch_op.drop_column("club")
        batch_op.drop_column("family_name")
        batch_op.drop_column("given_name")
        batch_op.drop_column("kind")
