"""organiser members: a team with roles (issue 29)

`organiser_member` holds an event's organiser members (name, role, the SHA-256 of the
personal sign-in token, created and revoked times); `organiser_session` gains
`member_id` (NULL: the owner's ADMIN_TOKEN session), whose rows go with the member's
revocation.

Revision ID: 0019_organiser_members
Revises: 0018_participant_tallies
Create Date: 2026-12-07 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_organiser_members"
down_revision: str | None = "0018_participant_tallies"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "organiser_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["event.id"],
            name=op.f("fk_organiser_member_event_id_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organiser_member")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_organiser_member_token_hash")),
    )
    with op.batch_alter_table("organiser_member", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_organiser_member_event_id"), ["event_id"])
    with op.batch_alter_table("organiser_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("member_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_organiser_session_member_id"), ["member_id"])
        batch_op.create_foreign_key(
            batch_op.f("fk_organiser_session_member_id_organiser_member"),
            "organiser_member",
            ["member_id"],
            ["id"],
            ondelete="CASCADE",
        )


def downgrade() -> None:
    with op.batch_alter_table("organiser_session", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_organiser_session_member_id_organiser_member"), type_="foreignkey"
        )
        batch_op.drop_index(batch_op.f("ix_organiser_session_member_id"))
        batch_op.drop_column("member_id")
    with op.batch_alter_table("organiser_member", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_organiser_member_event_id"))
    op.drop_table("organiser_member")
