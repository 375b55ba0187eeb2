"""log chains: hash-chained take and bid logs, chain heads, append-only trigger

Every row of `take`, `take_void` (per participant) and of `bid`, `bid_withdrawal`
(per auction) gets `log_seq`, `log_prev`, `log_hash` (app.core.chain); the chain
heads are kept in `participant_state` (with the participant's state) and `auction`
(`log_seq`, `log_head`). Rows already stored
are chained here (backfill), in the order they were written: a participant's
takes by `received_at` and voids by `voided_at` (a take before a void at the same
instant, then by id); an auction's bids and withdrawals by `created_at` (a bid
before a withdrawal, then by id). So an upgraded event verifies like a new one.

On PostgreSQL a trigger refuses DELETE on the four log tables and any UPDATE that
changes a column of the row as it was inserted (TRUNCATE is not a row operation:
the test fixtures still empty the tables).

Revision ID: 0008_log_chains
Revises: 0007_device_clocks
Create Date: 2026-12-01 15:00:00
"""
from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.core import chain
from app.core.db import UTCDateTime

revision: str = '0008_log_chains'
down_revision: str | None = '0007_device_clocks'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOG_TABLES = ('take', 'take_void', 'bid', 'bid_withdrawal')
# Columns a row keeps as inserted (the trigger refuses an UPDATE that changes one).
PROTECTED = {
    'take': (
        'id', 'event_id', 'participant_id', 'source', 'source_id', 'code', 'taken_at',
        'received_at', 'recorded_by', 'payload', 'device_taken_at', 'clock_offset_seconds',
        'log_seq', 'log_prev', 'log_hash',
    ),
    'take_void': ('id', 'take_id', 'reason', 'voided_by', 'voided_at',
                  'log_seq', 'log_prev', 'log_hash'),
    'bid': ('id', 'auction_id', 'round_id', 'participant_id', 'combination_id', 'cards',
            'nonce', 'receipt', 'placed_by', 'created_at', 'log_seq', 'log_prev', 'log_hash'),
    'bid_withdrawal': ('id', 'bid_id', 'reason', 'replaced_by_bid_id', 'withdrawn_by',
                       'created_at', 'log_seq', 'log_prev', 'log_hash'),
}

TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION rogaine_log_append_only() RETURNS trigger AS $$
DECLARE
    name text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the % log is append-only: DELETE refused', TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END IF;
    FOREACH name IN ARRAY TG_ARGV LOOP
        IF (to_jsonb(OLD) -> name) IS DISTINCT FROM (to_jsonb(NEW) -> name) THEN
            RAISE EXCEPTION 'the % log is append-only: UPDATE of % refused', TG_TABLE_NAME, name
                USING ERRCODE = 'restrict_violation';
        END IF;
    END LOOP;
    RETURN NEW;
END
$$ LANGUAGE plpgsql
"""


def _chain_columns(table: str) -> None:
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.add_column(sa.Column('log_seq', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('log_prev', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('log_hash', sa.String(length=64), nullable=True))


def _head_columns(table: str) -> None:
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('log_seq', sa.Integer(), server_default='0', nullable=False)
        )
        batch_op.add_column(sa.Column('log_head', sa.String(length=64), nullable=True))


def upgrade() -> None:
    for table in LOG_TABLES:
        _chain_columns(table)
    _head_columns('participant_state')
    _head_columns('auction')
    _backfill(op.get_bind())
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(TRIGGER_FUNCTION)
        for table, columns in PROTECTED.items():
            arguments = ', '.join(f"'{column}'" for column in columns)
            op.execute(
                f'CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} '
                f'FOR EACH ROW EXECUTE FUNCTION rogaine_log_append_only({arguments})'
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for table in LOG_TABLES:
            op.execute(f'DROP TRIGGER IF EXISTS {table}_append_only ON {table}')
        op.execute('DROP FUNCTION IF EXISTS rogaine_log_append_only()')
    for table in ('auction', 'participant_state'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('log_head')
            batch_op.drop_column('log_seq')
    for table in reversed(LOG_TABLES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('log_hash')
            batch_op.drop_column('log_prev')
            batch_op.drop_column('log_seq')


# -- backfill (the v1 encoding of app.core.chain: its tags are frozen) -----------------------

_t = UTCDateTime()
TAKE = sa.table('take', *(sa.column(c) for c in ('id', 'participant_id', 'source', 'source_id',
                'code', 'recorded_by', 'log_seq', 'log_prev', 'log_hash')),
                sa.column('taken_at', _t), sa.column('received_at', _t),
                sa.column('device_taken_at', _t), sa.column('clock_offset_seconds'),
                sa.column('payload', sa.JSON()))
VOID = sa.table('take_void', *(sa.column(c) for c in ('id', 'take_id', 'reason', 'voided_by',
                'log_seq', 'log_prev', 'log_hash')), sa.column('voided_at', _t))
BID = sa.table('bid', *(sa.column(c) for c in ('id', 'auction_id', 'round_id', 'combination_id',
               'nonce', 'receipt', 'placed_by', 'log_seq', 'log_prev', 'log_hash')),
               sa.column('cards', sa.JSON()), sa.column('created_at', _t))
WITHDRAWAL = sa.table('bid_withdrawal', *(sa.column(c) for c in ('id', 'bid_id', 'reason',
                      'replaced_by_bid_id', 'withdrawn_by', 'log_seq', 'log_prev', 'log_hash')),
                      sa.column('created_at', _t))
ROUND = sa.table('auction_round', sa.column('id'), sa.column('number'))
STATE = sa.table('participant_state', sa.column('participant_id'), sa.column('log_seq'),
                 sa.column('log_head'))
AUCTION = sa.table('auction', sa.column('id'), sa.column('log_seq'), sa.column('log_head'))


def _link(connection, table, owner_table, owner_key, chains) -> None:
    """Chain each owner's rows in order; write the rows' and the owners' chain columns."""
    rows, owners = [], []
    for owner_id, entries in chains.items():
        prev, seq = chain.GENESIS, 0
        for _key, row_id, tag, content, sink in sorted(entries, key=lambda e: e[0]):
            seq += 1
            digest = chain.row_hash(tag, seq, prev, content())
            sink[row_id] = digest
            rows.append((tag, {'rid': row_id, 's': seq, 'p': prev, 'h': digest}))
            prev = digest
        owners.append({'oid': owner_id, 's': seq, 'h': prev})
    for name, target in table.items():
        values = [values for tag, values in rows if tag == name]
        if values:
            connection.execute(
                target.update().where(target.c.id == sa.bindparam('rid'))
                .values(log_seq=sa.bindparam('s'), log_prev=sa.bindparam('p'),
                        log_hash=sa.bindparam('h')),
                values,
            )
    if owners:
        connection.execute(
            owner_table.update().where(owner_table.c[owner_key] == sa.bindparam('oid'))
            .values(log_seq=sa.bindparam('s'), log_head=sa.bindparam('h')),
            owners,
        )


def _backfill(connection) -> None:
    take_hashes: dict[int, str] = {}
    takes = connection.execute(sa.select(TAKE)).all()
    participant_of = {t.id: t.participant_id for t in takes}
    feed = defaultdict(list)
    for t in takes:
        feed[t.participant_id].append((
            (t.received_at, 0, t.id), t.id, chain.TAKE,
            lambda t=t: chain.take_content(
                source=t.source, source_id=t.source_id, code=t.code, taken_at=t.taken_at,
                received_at=t.received_at, recorded_by=t.recorded_by, payload=t.payload,
                device_taken_at=t.device_taken_at, clock_offset_seconds=t.clock_offset_seconds),
            take_hashes,
        ))
    for v in connection.execute(sa.select(VOID)).all():
        feed[participant_of[v.take_id]].append((
            (v.voided_at, 1, v.id), v.id, chain.TAKE_VOID,
            lambda v=v: chain.void_content(
                take_hash=take_hashes[v.take_id], reason=v.reason, voided_by=v.voided_by,
                voided_at=v.voided_at),
            {},
        ))
    _link(connection, {chain.TAKE: TAKE, chain.TAKE_VOID: VOID}, STATE, 'participant_id', feed)

    rounds = dict(connection.execute(sa.select(ROUND.c.id, ROUND.c.number)).all())
    bid_hashes: dict[int, str] = {}
    bids = connection.execute(sa.select(BID)).all()
    auction_of = {b.id: b.auction_id for b in bids}
    ceremony = defaultdict(list)
    for b in bids:
        ceremony[b.auction_id].append((
            (b.created_at, 0, b.id), b.id, chain.BID,
            lambda b=b: chain.bid_content(
                round_number=rounds[b.round_id],
                combination_hash=take_hashes.get(b.combination_id, ''), cards=b.cards,
                nonce=b.nonce, receipt=b.receipt, placed_by=b.placed_by,
                created_at=b.created_at),
            bid_hashes,
        ))
    for w in connection.execute(sa.select(WITHDRAWAL)).all():
        ceremony[auction_of[w.bid_id]].append((
            (w.created_at, 1, w.id), w.id, chain.BID_WITHDRAWAL,
            lambda w=w: chain.withdrawal_content(
                bid_hash=bid_hashes[w.bid_id], reason=w.reason,
                replaced_by_hash=bid_hashes.get(w.replaced_by_bid_id)
                if w.replaced_by_bid_id else None,
                withdrawn_by=w.withdrawn_by, created_at=w.created_at),
            {},
        ))
    _link(connection, {chain.BID: BID, chain.BID_WITHDRAWAL: WITHDRAWAL}, AUCTION, 'id',
          ceremony)
