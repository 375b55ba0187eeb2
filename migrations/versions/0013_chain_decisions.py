"""chain decisions: source clocks, deciding audit entries and identities are chained

Three event-level hash chains (app.core.ledger; heads in the new `event_chain`
table) cover what else decides a result: `clocks` (`source_clock` rows, the
organiser's offsets), `decisions` (audit entries whose action is in
`app.core.audit.DECIDING_ACTIONS`: the lots drawn, corrections) and `identities`
(the new `participant_identity` log: external id, name, category after each
change). `source_clock` and `audit_entry` get `log_seq`, `log_prev`, `log_hash`.

Backfill: every event's source clock rows and deciding audit entries are chained
in id order; each participant gets one `create` identity row with its fields as
they are now (at its `created_at`, by `migration`): earlier renames are not known.

On PostgreSQL the append-only trigger of 0008 (`rogaine_log_append_only`) also
protects `source_clock`, `participant_identity` and `audit_entry`: DELETE and any
UPDATE of a stored column are refused.

Revision ID: 0013_chain_decisions
Revises: 0012_auction_reveal
Create Date: 2026-12-07 09:00:00
"""

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.core import chain
from app.core.db import UTCDateTime

revision: str = "0013_chain_decisions"
down_revision: str | None = "0012_auction_reveal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DECIDING_ACTIONS = ("auction.lots", "auction.correct")  # app.core.audit, frozen here

PROTECTED = {
    "source_clock": (
        "id", "event_id", "source", "offset_seconds", "set_by", "set_at",
        "log_seq", "log_prev", "log_hash",
    ),
    "participant_identity": (
        "id", "event_id", "participant_id", "change", "external_id", "name", "category",
        "changed_by", "changed_at", "log_seq", "log_prev", "log_hash",
    ),
    "audit_entry": (
        "id", "event_id", "actor", "action", "subject", "details", "created_at",
        "log_seq", "log_prev", "log_hash",
    ),
}  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "event_chain",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("log_seq", sa.Integer(), server_default="0", nullable=False),
        sa.Column("log_head", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_event_chain_event_id_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_id", "name", name=op.f("pk_event_chain")),
    )  # fmt: skip
    op.create_table(
        "participant_identity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=True),
        sa.Column("change", sa.String(length=16), nullable=False),
        sa.Column("external_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("category", sa.String(length=64), nullable=True),
        sa.Column("changed_by", sa.String(length=120), nullable=False),
        sa.Column("changed_at", UTCDateTime(), nullable=False),
        sa.Column("log_seq", sa.Integer(), nullable=True),
        sa.Column("log_prev", sa.String(length=64), nullable=True),
        sa.Column("log_hash", sa.String(length=64), nullable=True),
        sa.CheckConstraint(
            "change IN ('create', 'update', 'delete')",
            name=op.f("ck_participant_identity_change"),
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_participant_identity_event_id_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_participant_identity")),
    )  # fmt: skip
    op.create_index(
        "ix_participant_identity_event_id_log_seq",
        "participant_identity",
        ["event_id", "log_seq"],
    )
    for table in ("source_clock", "audit_entry"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("log_seq", sa.Integer(), nullable=True))
            batch_op.add_column(sa.Column("log_prev", sa.String(length=64), nullable=True))
            batch_op.add_column(sa.Column("log_hash", sa.String(length=64), nullable=True))
    _backfill(op.get_bind())
    if op.get_bind().dialect.name == "postgresql":
        for table, columns in PROTECTED.items():
            arguments = ", ".join(f"'{column}'" for column in columns)
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION rogaine_log_append_only({arguments})"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in PROTECTED:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
    for table in ("audit_entry", "source_clock"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("log_hash")
            batch_op.drop_column("log_prev")
            batch_op.drop_column("log_seq")
    op.drop_index("ix_participant_identity_event_id_log_seq", table_name="participant_identity")
    op.drop_table("participant_identity")
    op.drop_table("event_chain")


# -- backfill (the encodings of app.core.chain: their tags are frozen) ------------------------

_t = UTCDateTime()
CLOCK = sa.table(
    "source_clock", *(sa.column(c) for c in ("id", "event_id", "source", "offset_seconds",
                      "set_by", "log_seq", "log_prev", "log_hash")),
    sa.column("set_at", _t),
)  # fmt: skip
AUDIT = sa.table(
    "audit_entry", *(sa.column(c) for c in ("id", "event_id", "actor", "action", "subject",
                     "log_seq", "log_prev", "log_hash")),
    sa.column("details", sa.JSON()), sa.column("created_at", _t),
)  # fmt: skip
PARTICIPANT = sa.table(
    "participant", *(sa.column(c) for c in ("id", "event_id", "external_id", "name",
                     "category")),
    sa.column("created_at", _t),
)  # fmt: skip
IDENTITY = sa.table(
    "participant_identity", *(sa.column(c) for c in ("event_id", "participant_id", "change",
                              "external_id", "name", "category", "changed_by", "log_seq",
                              "log_prev", "log_hash")),
    sa.column("changed_at", _t),
)  # fmt: skip
EVENT_CHAIN = sa.table(
    "event_chain", sa.column("event_id"), sa.column("name"), sa.column("log_seq"),
    sa.column("log_head"),
)  # fmt: skip


def _chain_rows(connection, table, rows, tag, content, heads, name) -> None:
    """Chain `rows` (id order) per event; UPDATE their chain columns; note the heads."""
    by_event = defaultdict(list)
    for row in rows:
        by_event[row.event_id].append(row)
    updates = []
    for event_id, entries in by_event.items():
        links = chain.links_of(0, None, tag, [content(row) for row in entries])
        for row, (seq, prev, digest) in zip(entries, links, strict=True):
            updates.append({"rid": row.id, "s": seq, "p": prev, "h": digest})
        heads.append({"event_id": event_id, "name": name, "log_seq": links[-1][0],
                      "log_head": links[-1][2]})  # fmt: skip
    if updates:
        connection.execute(
            table.update().where(table.c.id == sa.bindparam("rid"))
            .values(log_seq=sa.bindparam("s"), log_prev=sa.bindparam("p"),
                    log_hash=sa.bindparam("h")),
            updates,
        )  # fmt: skip


def _backfill(connection) -> None:
    heads: list[dict] = []
    clocks = connection.execute(sa.select(CLOCK).order_by(CLOCK.c.id)).all()
    _chain_rows(
        connection, CLOCK, clocks, chain.SOURCE_CLOCK,
        lambda c: chain.source_clock_content(
            source=c.source, offset_seconds=c.offset_seconds, set_by=c.set_by, set_at=c.set_at),
        heads, chain.CLOCKS,
    )  # fmt: skip
    deciding = connection.execute(
        sa.select(AUDIT)
        .where(AUDIT.c.action.in_(DECIDING_ACTIONS), AUDIT.c.event_id.is_not(None))
        .order_by(AUDIT.c.id)
    ).all()
    _chain_rows(
        connection, AUDIT, deciding, chain.DECISION,
        lambda a: chain.decision_content(
            action=a.action, actor=a.actor, subject=a.subject, details=a.details or {},
            created_at=a.created_at),
        heads, chain.DECISIONS,
    )  # fmt: skip
    by_event = defaultdict(list)
    for p in connection.execute(sa.select(PARTICIPANT).order_by(PARTICIPANT.c.id)).all():
        by_event[p.event_id].append(
            {"event_id": p.event_id, "participant_id": p.id, "change": "create",
             "external_id": p.external_id, "name": p.name, "category": p.category,
             "changed_by": "migration", "changed_at": p.created_at}
        )  # fmt: skip
    identities = []
    for event_id, values in by_event.items():
        contents = [chain.identity_content(**{k: v[k] for k in (
            "change", "external_id", "name", "category", "changed_by", "changed_at")})
            for v in values]  # fmt: skip
        links = chain.links_of(0, None, chain.IDENTITY, contents)
        for value, (seq, prev, digest) in zip(values, links, strict=True):
            identities.append({**value, "log_seq": seq, "log_prev": prev, "log_hash": digest})
        heads.append({"event_id": event_id, "name": chain.IDENTITIES, "log_seq": links[-1][0],
                      "log_head": links[-1][2]})  # fmt: skip
    if identities:
        connection.execute(IDENTITY.insert(), identities)
    if heads:
        connection.execute(EVENT_CHAIN.insert(), heads)
