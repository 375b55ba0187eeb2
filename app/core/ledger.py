"""The heads of an event's event-level hash chains (`app.core.chain.EVENT_CHAINS`).

Besides the take chains (per participant) and the bid chains (per auction), three
chains per event cover what else decides a result: `clocks` (the `source_clock`
rows: the organiser's offsets), `decisions` (the audit entries whose action is in
`app.core.audit.DECIDING_ACTIONS`: the lots drawn, a correction) and `identities`
(the `participant_identity` rows: each participant's external id, name and category
after each change). Their heads live in `event_chain` (one row per event and chain,
`log_seq` rows so far and the last row's hash `log_head`); an append locks that row,
so concurrent writers of one chain append one after another without holding the
event row (the feed reads it FOR SHARE). The table: `EventChain` (`app.core.models`);
its SQL: `app.core.repository`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy.orm import Session

from app.core import chain, repository


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
    seq, head = repository.lock_chain_head(session, event_id, name)
    links = chain.links_of(seq, head, tag, contents)
    set_head(session, event_id, name, links[-1][0], links[-1][2])
    return links


def set_head(session: Session, event_id: int, name: str, seq: int, head: str | None) -> None:
    """Store the head of chain `name` (an append, or an archive restored with its rows)."""
    repository.set_chain_head(session, event_id, name, seq, head)


def heads(session: Session, event_id: int) -> dict[str, tuple[int, str | None]]:
    """`{name: (seq, head)}` of the event's event-level chains (stored heads)."""
    return repository.chain_heads(session, event_id)


def last_link(rows: Iterable[dict]) -> tuple[int, str | None]:
    """(seq, hash) of the row with the highest `log_seq` among `rows` (dicts with
    `log_seq`, `log_hash`); (0, None) when none is chained."""
    best: tuple[int, str | None] = (0, None)
    for row in rows:
        if row.get("log_seq") is not None and row["log_seq"] > best[0]:
            best = (row["log_seq"], row.get("log_hash"))
    return best
