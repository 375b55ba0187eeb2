"""The heads of an event's event-level hash chains (`app.core.chain.EVENT_CHAINS`).

Besides the take chains (per participant) and the bid chains (per auction), three
chains per event cover what else decides a result: `clocks` (the `source_clock`
rows: the organiser's offsets), `decisions` (the audit entries whose action is in
`app.core.audit.DECIDING_ACTIONS`: the lots drawn, a correction) and `identities`
(the `participant_identity` rows: each participant's external id, name and category
after each change). Their heads live in `event_chain` (one row per event and chain,
`log_seq` rows so far and the last row's hash `log_head`); an append locks that row,
so concurrent writers of one chain append one after another without holding the
event row (the feed reads it FOR SHARE).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import ForeignKey, String, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core import chain
from app.core.db import Base


class EventChain(Base):
    """The head of one event-level chain of an event (a projection of its rows)."""

    __tablename__ = "event_chain"

    event_id: Mapped[int] = mapped_column(
        ForeignKey("event.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    log_seq: Mapped[int] = mapped_column(server_default="0")
    log_head: Mapped[str | None] = mapped_column(String(64))


def _lock(session: Session, event_id: int, name: str) -> tuple[int, str | None]:
    """Lock the head row of chain `name` (created first when missing); (seq, head)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(
        insert(EventChain.__table__)
        .values(event_id=event_id, name=name, log_seq=0, log_head=None)
        .on_conflict_do_nothing()
    )
    seq, head = session.execute(
        select(EventChain.log_seq, EventChain.log_head)
        .where(EventChain.event_id == event_id, EventChain.name == name)
        .with_for_update()
    ).one()
    return seq, head


def append(
    session: Session,
    event_id: int,
    name: str,
    tag: str,
    contents: Sequence[Sequence[chain.Field]],
) -> list[tuple[int, str, str]]:
    """Append rows (their contents, in order) to the event's chain `name` with row tag
    `tag`: locks the chain's head until the transaction ends, stores the new head and
    returns each row's `(log_seq, log_prev, log_hash)` for the caller to insert."""
    if not contents:
        return []
    seq, head = _lock(session, event_id, name)
    links = chain.links_of(seq, head, tag, contents)
    set_head(session, event_id, name, links[-1][0], links[-1][2])
    return links


def set_head(session: Session, event_id: int, name: str, seq: int, head: str | None) -> None:
    """Store the head of chain `name` (an append, or an archive restored with its rows)."""
    found = session.execute(
        update(EventChain)
        .where(EventChain.event_id == event_id, EventChain.name == name)
        .values(log_seq=seq, log_head=head)
    )
    if found.rowcount == 0:  # type: ignore[attr-defined]
        session.add(EventChain(event_id=event_id, name=name, log_seq=seq, log_head=head))
        session.flush()


def heads(session: Session, event_id: int) -> dict[str, tuple[int, str | None]]:
    """`{name: (seq, head)}` of the event's event-level chains (stored heads)."""
    rows = session.execute(
        select(EventChain.name, EventChain.log_seq, EventChain.log_head).where(
            EventChain.event_id == event_id
        )
    ).all()
    return {name: (seq, head) for name, seq, head in rows}


def last_link(rows: Iterable[dict]) -> tuple[int, str | None]:
    """(seq, hash) of the row with the highest `log_seq` among `rows` (dicts with
    `log_seq`, `log_hash`); (0, None) when none is chained."""
    best: tuple[int, str | None] = (0, None)
    for row in rows:
        if row.get("log_seq") is not None and row["log_seq"] > best[0]:
            best = (row["log_seq"], row.get("log_hash"))
    return best
