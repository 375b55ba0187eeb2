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


_PARTS = (("given_name", 100), ("family_name", 100), ("club", 100), ("control_card", 12))


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # Not batch mode: recreating `participant` would drop it, and with SQLite's
        # foreign keys on, its takes, states and bids with it (ON DELETE CASCADE).
        # SQLite adds a column in place, its CHECK constraint included.
        op.execute(
            "ALTER TABLE participant ADD COLUMN kind VARCHAR(8) DEFAULT 'person' NOT NULL "
            "CONSTRAINT ck_participant_kind CHECK (kind IN ('person', 'team'))"
        )
        for name, length in _PARTS:
            op.add_column("participant", sa.Column(name, sa.String(length=length)))
        return
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kind", sa.String(length=8), server_default="person", nullable=False)
        )
        for name, length in _PARTS:
            batch_op.add_column(sa.Column(name, sa.String(length=length), nullable=True))
        batch_op.create_check_constraint("kind", "kind IN ('person', 'team')")


def downgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_participant_kind"), type_="check")
        batch_op.drop_column("control_card")
        batch_op.drop_column("club")
        batch_op.drop_column("family_name")
        batch_op.drop_column("given_name")
        batch_op.drop_column("kind")
