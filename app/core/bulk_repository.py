"""Bulk writes of many rows in the caller's transaction: COPY on PostgreSQL (a
repository of any table: the feed's and the archive's bulk loads call it).

An event rebuild writes 130,000 projection rows and an archive import restores as
many log rows. An INSERT with many VALUES (or RETURNING) makes the driver parse one
long statement per page, and a table filled in one transaction has no planner
statistics until autovacuum runs, so the next query on it is planned for an empty
table (a semi-join that scanned 120,000 takes once per participant: 4 s for 2,000).
Here PostgreSQL gets `COPY … FROM STDIN` and then `ANALYZE` of a large load; other
backends (SQLite) get an executemany INSERT.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, func, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

#: A load of at least this many rows refreshes the table's planner statistics (PostgreSQL).
ANALYZE_AFTER_ROWS = 10_000
_CHUNK = 5_000


def insert_rows(session: Session, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert `rows` (dicts keyed by column name) into `table`, in the caller's transaction.

    Every row carries the same keys. A column a row leaves out gets its Python-side
    default (`default=` of the model) or else its server default or NULL. Values go
    through the columns' SQLAlchemy types (UTC timestamps, JSON), as an ORM insert
    would. PostgreSQL: one `COPY table (columns) FROM STDIN`, then `ANALYZE table`
    when at least `ANALYZE_AFTER_ROWS` rows were loaded (ANALYZE in the transaction
    counts its own new rows). Other backends: an executemany INSERT per 5,000 rows.
    Raises sqlalchemy's IntegrityError when a row breaks a constraint and DBAPIError
    when the database refuses a value (on both paths); the caller's transaction must
    then be rolled back.
    """
    if not rows:
        return
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        for start in range(0, len(rows), _CHUNK):
            session.execute(insert(table), list(rows[start : start + _CHUNK]))
        return
    import psycopg  # the PostgreSQL driver, only on this path

    names = list(rows[0].keys())
    defaults = _python_defaults(table, names)
    columns = [table.c[name] for name in [*names, *defaults]]
    dialect = connection.dialect
    processors = [column.type.dialect_impl(dialect).bind_processor(dialect) for column in columns]
    fixed = [default() for default in defaults.values()]
    quoted = ", ".join(dialect.identifier_preparer.quote(column.name) for column in columns)
    statement = f"COPY {table.name} ({quoted}) FROM STDIN"
    raw = connection.connection.driver_connection
    assert raw is not None
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                values = [row[name] for name in names] + fixed
                copy.write_row(
                    [
                        value if process is None or value is None else process(value)
                        for process, value in zip(processors, values, strict=True)
                    ]
                )
    except psycopg.IntegrityError as exc:  # as SQLAlchemy reports it on the INSERT path
        raise IntegrityError(statement, None, exc) from exc
    except psycopg.Error as exc:
        raise DBAPIError(statement, None, exc) from exc
    if len(rows) >= ANALYZE_AFTER_ROWS:
        session.execute(text(f"ANALYZE {table.name}"))


def _python_defaults(table: Table, names: Sequence[str]) -> dict[str, Any]:
    """Zero-argument makers of the Python-side defaults of the columns not in `names`."""
    makers: dict[str, Any] = {}
    for column in table.columns:
        default = column.default
        if column.name in names or default is None:
            continue
        if default.is_scalar:  # type: ignore[attr-defined]
            makers[column.name] = lambda value=default.arg: value  # type: ignore[attr-defined]
        elif default.is_callable:  # type: ignore[attr-defined]
            makers[column.name] = lambda make=default.arg: make(None)  # type: ignore[attr-defined]
    return makers


def allocate_ids(session: Session, table: Table, count: int) -> list[int]:
    """`count` new primary-key values of `table` (an integer `id`), ascending.

    PostgreSQL: drawn from the column's sequence (`nextval`, safe beside concurrent
    writers). SQLite: the ids after the table's largest; safe because a write
    transaction holds the database's write lock from its start (`BEGIN IMMEDIATE`,
    app.core.db), so no other writer can take them before the caller commits.
    """
    if count <= 0:
        return []
    if session.connection().dialect.name == "postgresql":
        sequence = func.pg_get_serial_sequence(table.name, "id")
        drawn = session.scalars(
            select(func.nextval(sequence)).select_from(func.generate_series(1, count))
        )
        return sorted(drawn)
    largest = session.scalar(select(func.coalesce(func.max(table.c.id), 0))) or 0
    return list(range(largest + 1, largest + 1 + count))
