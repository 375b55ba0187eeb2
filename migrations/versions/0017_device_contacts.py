"""device contacts: what the service knows of each phone's clock; takes for review

`device_contact` logs each contact of a phone (bundle fetch, sync) with the offset of
its clock; `take_review` lists the phone takes whose time cannot be corroborated (a
take dated before the close that arrives after it, a clock offset that jumps against
the device's earlier contacts, a correction larger than the bound) with the
organiser's decision; `sync_deadline` is a log of the organiser's deadline after the
close past which phone syncs store nothing new (RULES.md I-22).
`participant.access_token_sealed` keeps a printed card's token sealed with SECRET_KEY,
so a re-print shows the same personal link (issue 26 point 7).

Revision ID: 0017_device_contacts
Revises: 0016_person_name_parts
Create Date: 2026-12-07 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.core.db import UTCDateTime

revision: str = "0017_device_contacts"
down_revision: str | None = "0016_person_name_parts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _event_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["event_id"], ["event.id"], name=op.f(f"fk_{table}_event_id_event"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "device_contact",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("received_at", UTCDateTime(), nullable=False),
        sa.Column("device_at", UTCDateTime(), nullable=True),
        sa.Column("offset_seconds", sa.Double(), nullable=True),
        sa.Column("takes", sa.Integer(), server_default="0", nullable=False),
        _event_fk("device_contact"),
        sa.ForeignKeyConstraint(
            ["participant_id"], ["participant.id"],
            name=op.f("fk_device_contact_participant_id_participant"), ondelete="CASCADE",
        ),  # fmt: skip
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_contact")),
    )
    op.create_index(
        "ix_device_contact_event_id_source_id", "device_contact", ["event_id", "source", "id"]
    )
    op.create_table(
        "take_review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("take_id", sa.Integer(), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=True),
        sa.Column("decided_by", sa.String(length=120), nullable=True),
        sa.Column("decided_at", UTCDateTime(), nullable=True),
        _event_fk("take_review"),
        sa.ForeignKeyConstraint(
            ["take_id"], ["take.id"], name=op.f("fk_take_review_take_id_take"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_take_review")),
        sa.UniqueConstraint("take_id", name=op.f("uq_take_review_take_id")),
    )
    op.create_index(
        "ix_take_review_event_id_decision_id", "take_review", ["event_id", "decision", "id"]
    )
    op.create_table(
        "sync_deadline",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("deadline", UTCDateTime(), nullable=True),
        sa.Column("set_by", sa.String(length=120), nullable=False),
        sa.Column("set_at", UTCDateTime(), nullable=False),
        _event_fk("sync_deadline"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sync_deadline")),
    )
    op.create_index("ix_sync_deadline_event_id_id", "sync_deadline", ["event_id", "id"])
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.add_column(sa.Column("access_token_sealed", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.drop_column("access_token_sealed")
    op.drop_index("ix_sync_deadline_event_id_id", table_name="sync_deadline")
    op.drop_table("sync_deadline")
    op.drop_index("ix_take_review_event_id_decision_id", table_name="take_review")
    op.drop_table("take_review")
    op.drop_index("ix_device_contact_event_id_source_id", table_name="device_contact")
    op.drop_table("device_contact")
