"""app.core.bulk_repository: bulk loads (COPY on PostgreSQL, executemany on SQLite) and id
allocation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from app.core import bulk_repository as bulk
from app.core.audit import AuditEntry

TABLE = AuditEntry.__table__


def test_allocated_ids_follow_the_stored_ones_and_never_repeat(session) -> None:
    session.add(AuditEntry(actor="a", action="x"))
    session.flush()
    stored = session.scalar(select(AuditEntry.id))
    first = bulk.allocate_ids(session, TABLE, 3)
    bulk.insert_rows(session, TABLE, [{"id": i, "actor": "b", "action": "y"} for i in first])
    second = bulk.allocate_ids(session, TABLE, 2)
    assert first == sorted(first) and len(set(first)) == 3 and first[0] > stored
    assert min(second) > max(first) and len(set(second)) == 2
    assert bulk.allocate_ids(session, TABLE, 0) == []


def test_rows_keep_their_values_through_the_column_types(session) -> None:
    # 14:30 at UTC+3 is 11:30 UTC; the JSON keeps non-ASCII text and nesting.
    taken = datetime(2026, 5, 16, 14, 30, tzinfo=timezone(timedelta(hours=3)))
    rows = [
        {"id": 7, "event_id": None, "actor": "орг", "action": "a", "subject": None,
         "details": {"card": "10♥", "n": [1, 2]}, "created_at": taken},
        {"id": 8, "event_id": None, "actor": "b", "action": "b", "subject": "s",
         "details": {}, "created_at": taken + timedelta(seconds=90)},
    ]  # fmt: skip
    bulk.insert_rows(session, TABLE, rows)
    session.commit()
    found = session.execute(
        select(AuditEntry.id, AuditEntry.actor, AuditEntry.details, AuditEntry.created_at).order_by(
            AuditEntry.id
        )
    ).all()
    assert [tuple(row) for row in found] == [
        (7, "орг", {"card": "10♥", "n": [1, 2]}, datetime(2026, 5, 16, 11, 30, tzinfo=UTC)),
        (8, "b", {}, datetime(2026, 5, 16, 11, 31, 30, tzinfo=UTC)),
    ]


def test_a_left_out_column_gets_its_python_default(session) -> None:
    before = datetime.now(UTC)
    bulk.insert_rows(session, TABLE, [{"id": 3, "actor": "a", "action": "x"}])
    session.commit()
    entry = session.get(AuditEntry, 3)
    assert entry.details == {} and entry.subject is None
    assert before - timedelta(seconds=1) <= entry.created_at <= datetime.now(UTC)


def test_a_duplicate_row_is_sqlalchemys_integrity_error(session) -> None:
    bulk.insert_rows(session, TABLE, [{"id": 5, "actor": "a", "action": "x"}])
    session.commit()
    with pytest.raises(IntegrityError):
        bulk.insert_rows(session, TABLE, [{"id": 6, "actor": "a", "action": "x"},
                                          {"id": 5, "actor": "b", "action": "y"}])  # fmt: skip
    session.rollback()
    assert session.scalars(select(AuditEntry.actor).order_by(AuditEntry.id)).all() == ["a"]


def test_a_large_load_refreshes_the_planner_statistics(session, monkeypatch) -> None:
    if session.connection().dialect.name != "postgresql":
        pytest.skip("planner statistics (ANALYZE) are PostgreSQL's")
    monkeypatch.setattr(bulk, "ANALYZE_AFTER_ROWS", 4)
    rows = [{"id": i, "actor": "a", "action": "x"} for i in range(1, 4)]
    bulk.insert_rows(session, TABLE, rows)  # 3 rows: below the threshold, no ANALYZE
    tuples = text("SELECT reltuples FROM pg_class WHERE relname = 'audit_entry'")
    assert session.scalar(tuples) != 3
    bulk.insert_rows(session, TABLE, [{"id": i, "actor": "a", "action": "x"} for i in (4, 5, 6, 7)])
    assert session.scalar(tuples) == 7  # ANALYZE counted the transaction's own 7 rows
