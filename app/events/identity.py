"""The participants' identity log: external id, name and category after each change.

Results show a participant's name, external id and category, so they decide what a
result says. The `participant` row may be edited (a typo in a name), so its history
is a log instead: every creation, update and deletion appends a `participant_identity`
row, chained per event (`app.core.ledger` chain `identities`, tag
`rogaine-poker/participant-identity/v1`). `app.flows.log_chain.verify` checks each
participant row against its latest identity row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from app.core import chain, ledger
from app.core.db import utcnow
from app.events import repository
from app.events.models import Participant

CHANGES = ("create", "update", "delete")


def record(
    session: Session,
    event_id: int,
    participants: Sequence[Participant],
    change: str,
    actor: str,
    *,
    now: datetime | None = None,
) -> None:
    """Append one identity row per participant (their fields as they are now), in order,
    to the event's `identities` chain: one bulk INSERT. `change` is one of CHANGES;
    `now` (UTC) defaults to the current time. Call it after the participants' rows
    were written (a `delete` before or after the row goes: its fields are read here)."""
    if change not in CHANGES:
        raise ValueError(f"unknown identity change {change!r}")
    now = now or utcnow()
    values = [
        {
            "event_id": event_id,
            "participant_id": p.id,
            "change": change,
            "external_id": p.external_id,
            "name": p.name,
            "category": p.category,
            "changed_by": actor,
            "changed_at": now,
        }
        for p in participants
    ]
    contents = [content_of(row) for row in values]
    links = ledger.append(session, event_id, chain.IDENTITIES, chain.IDENTITY, contents)
    for row, (seq, prev, digest) in zip(values, links, strict=True):
        row.update(log_seq=seq, log_prev=prev, log_hash=digest)
    repository.insert_identities(session, values)


def content_of(row: dict) -> list[chain.Field]:
    """The chained content of an identity row given as a dict of its columns."""
    return chain.identity_content(
        change=row["change"],
        external_id=row["external_id"],
        name=row["name"],
        category=row["category"],
        changed_by=row["changed_by"],
        changed_at=row["changed_at"],
    )
