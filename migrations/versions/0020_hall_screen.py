"""hall screen: the event owner may make the hall screen public (issue 29 item 2)

`event.hall_public` (false by default): anybody may open `/hall/{event_id}`; otherwise
only the organiser (and, later, a `screen` member) may.

Revision ID: 0020_hall_screen
Revises: 0019_organiser_members
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_hall_screen"
down_revision: str | None = "0019_organiser_members"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    column = sa.Column("hall_public", sa.Boolean(), server_default=sa.false(), nullable=False)
    if op.get_bind().dialect.name == "sqlite":
        # Not batch mode: recreating `event` would drop it, and with SQLite's foreign keys
        # on, every participant, take and auction with it (ON DELETE CASCADE; as 0016).
        op.add_column("event", column)
        return
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.add_column(column)


def downgrade() -> None:
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_column("hall_public")
