"""The event archive: one versioned JSON document with everything, and its checked restore.

`export_event` writes the event, its deck (with codes), participants (save codes,
token hashes), integration keys (hashes), the take log with voids and manual
takes and their chains, auctions with rounds, bids and withdrawals (chains too),
the audit trail, and what the replay must give back (`expected`: the chain heads,
each participant's state, the combinations, every take's outcome, the auction
results). Rows keep their ids of the exporting database only to refer to each
other; nothing hashed depends on them (app.core.chain).

`import_event` restores an archive as a new event of this database (SQLite or
PostgreSQL) in the caller's transaction: inserts the rows with new ids, replays
the feed (`feed.projection.rebuild_event`), recomputes every chain
(`log_chain.verify`), and compares the head, the states, combinations, outcomes
and auction results with `expected`. Any difference raises Unprocessable
`archive_mismatch` naming what differs (in the archive's own ids), and the
caller's rollback stores nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table
from sqlalchemy.exc import DBAPIError, IntegrityError, StatementError
from sqlalchemy.orm import Session

from app.auctions import views as auction_views
from app.auctions.models import Auction, AuctionRound, Bid, BidWithdrawal
from app.auctions.rules import RoundStatus
from app.core import bulk_repository, chain, ledger
from app.core.audit import DECIDING_ACTIONS, AuditEntry, record
from app.core.db import UTCDateTime, utcnow
from app.core.errors import Conflict, Unprocessable
from app.events import identity
from app.events import service as event_service
from app.events.models import Checkpoint, Event, Participant, ParticipantIdentity, SaveCode
from app.events.rules import EventStatus
from app.feed import projection
from app.feed.models import (
    IntegrationKey,
    SourceClock,
    Take,
    TakeVoid,
)
from app.flows import log_chain, repository

FORMAT = "rogaine-poker-event-archive"
VERSION = 2  # 2: source clocks, deciding audit entries and identities chained (0013)
SUPPORTED = (1, 2)
# What an archive of version 1 cannot prove: its rows of these kinds were not chained
# when it was written, so the import chains them as they are in the file.
UNPROVEN_V1 = [
    "source clock offsets (source_clocks)",
    "deciding audit entries: lots, corrections (audit)",
    "participants' external ids, names, categories (participants)",
]
MAX_DIFFERENCES = 20  # named in a refusal


# -- rows <-> JSON -----------------------------------------------------------------------------


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _rows(session: Session, table: Table, *where: Any) -> list[dict[str, Any]]:
    """Every column of the matching rows, in id order, JSON-ready (datetimes as ISO 8601)."""
    result = repository.table_rows(session, table, *where)
    return [{key: _json(value) for key, value in row.items()} for row in result]


def _typed(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """An archived row as insert values: only the table's columns, ISO strings of timestamp
    columns parsed back."""
    names, times = _columns(table)
    values = {name: row[name] for name in names if name in row}
    for name in times:
        value = values.get(name)
        if isinstance(value, str):
            values[name] = _utc(f"{table.name} {row.get('id')}", name, value)
    return values


def _utc(where: str, name: str, text: str) -> datetime:
    """An archived ISO 8601 time with its UTC offset, in UTC. Raises Unprocessable
    `archive_invalid` naming the row (`where`) and column when it has no offset or is
    out of range in UTC (e.g. `0001-01-01T00:30:00+01:00` is in year 0 in UTC)."""
    try:
        value = datetime.fromisoformat(text)
        if value.tzinfo is None:
            raise _invalid(f"{where}: {name} {text!r} has no UTC offset.")
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise _invalid(
            f"{where}: {name} {text!r} is not a time between 0001-01-01 and 9999-12-31 UTC ({exc})."
        ) from exc


_COLUMNS: dict[str, tuple[list[str], list[str]]] = {}


def _columns(table: Table) -> tuple[list[str], list[str]]:
    """(every column name, the timestamp columns' names) of a table, computed once."""
    found = _COLUMNS.get(table.name)
    if found is None:
        found = _COLUMNS[table.name] = (
            [c.name for c in table.c],
            [c.name for c in table.c if isinstance(c.type, UTCDateTime)],
        )
    return found


# -- export ------------------------------------------------------------------------------------


def export_event(session: Session, event: Event) -> dict[str, Any]:
    """The archive of `event` (a JSON-ready dict, `format`/`version` first).

    Read in the caller's transaction; the organiser's secrets it holds (CP codes,
    save codes) are the organiser's, and tokens and keys appear only as hashes. The
    rounds' decisions and the bids (cards, nonces) come through the auctions' observer
    (`auction_views.archived_ceremony`), which refuses (409 `ceremony_not_revealed`) while
    a round is open or closed but not fully revealed: an archive never unseals a bid.
    """
    ceremony = auction_views.archived_ceremony(session, event, _rows)
    tables = {
        name: [{key: _json(value) for key, value in row.items()} for row in rows]
        for name, rows in repository.event_tables(session, event.id).items()
    }
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": utcnow().isoformat(),
        "event": tables["event"][0],
        "checkpoints": tables["checkpoints"],
        "participants": tables["participants"],
        "participant_identities": tables["participant_identities"],
        "save_codes": tables["save_codes"],
        "integration_keys": tables["integration_keys"],
        "takes": tables["takes"],
        "take_voids": tables["take_voids"],
        "source_clocks": tables["source_clocks"],
        "auctions": tables["auctions"],
        "auction_rounds": ceremony["auction_rounds"],
        "bids": ceremony["bids"],
        "bid_withdrawals": tables["bid_withdrawals"],
        "audit": tables["audit"],
        "expected": expected_state(session, event),
    }


def expected_state(session: Session, event: Event) -> dict[str, Any]:
    """What a replay of the event must give: the head (version 2) and the rows of each kind
    of chain, states, combinations, outcomes and auction results, keyed by external id and
    take id (this database's ids)."""
    heads = log_chain.stored_heads(session, event.id)
    external = repository.external_ids(session, event.id)
    states = repository.participant_states(session, event.id)
    return {
        "log": {"head": heads.head, "version": log_chain.HEAD_VERSION, **heads.counts()},
        "states": {external[pid]: _utc_state(state) for pid, state in states},
        "combinations": _stored_combinations(session, event, external),
        "outcomes": _stored_outcomes(session, event),
        "results": without_ids(auction_views.results(session, event)),
    }


def _stored_combinations(
    session: Session, event: Event, external: dict[int, str]
) -> list[dict[str, Any]]:
    """The event's saved combinations by id: take id, participant's external id, cards."""
    combinations = repository.combination_rows(session, event.id)
    return [
        {
            "take": c.id,
            "participant": external[c.participant_id],
            "cards": c.cards,
            "category": c.category,
            "deal": c.deal,
            "saved_at": c.saved_at.isoformat(),
        }
        for c in combinations
    ]


def _stored_outcomes(session: Session, event: Event) -> list[dict[str, Any]]:
    """Every take's outcome by take id, its CP as a number, its last change."""
    numbers = repository.checkpoint_numbers(session, event.id)
    outcomes = repository.outcome_rows(session, event.id)
    return [
        {
            "take": o.take_id,
            "kind": o.kind,
            "outcome": o.outcome,
            "reason": o.reason,
            "card": o.card,
            "checkpoint": numbers.get(o.checkpoint_id),
            "deal": o.deal,
            "round": o.round,
            "previous_outcome": o.previous_outcome,
            "previous_reason": o.previous_reason,
            "changed_at": _json(o.changed_at),
        }
        for o in outcomes
    ]


def _utc_state(state: dict[str, Any]) -> dict[str, Any]:
    """A stored state with its combinations' `saved_at` in UTC (an incremental apply keeps
    the offset the take was sent with, a replay reads UTC from the log: the same instant)."""
    combinations = [
        {**c, "saved_at": datetime.fromisoformat(c["saved_at"]).astimezone(UTC).isoformat()}
        for c in state.get("combinations", [])
    ]
    return {**state, "combinations": combinations}


def without_ids(value: Any) -> Any:
    """`value` with every database id dropped (`id`, `event_id`, `bid_id`, `combination_id`):
    auction results compared across databases."""
    if isinstance(value, dict):
        return {
            k: without_ids(v)
            for k, v in value.items()
            if k not in ("id", "event_id", "bid_id", "combination_id")
        }
    if isinstance(value, list):
        return [without_ids(item) for item in value]
    return value


# -- import ------------------------------------------------------------------------------------


class _Ids:
    """Old (archive) id -> new id, per table."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[int, int]] = {}

    def __call__(self, table: str, old: int | None) -> int | None:
        return None if old is None else self.maps[table][old]


def _insert(
    session: Session,
    table: Table,
    rows: list[dict[str, Any]],
    ids: _Ids,
    remap: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    """Insert archived rows with new ids (`remap` rewrites their references) and record
    old id -> new id under the table's name. The ids are drawn first
    (`app.core.bulk_repository.allocate_ids`) so that the rows go in as one bulk load."""
    new_ids = bulk_repository.allocate_ids(session, table, len(rows))
    values = []
    for row, new_id in zip(rows, new_ids, strict=True):
        typed = _typed(table, remap(dict(row)))
        typed["id"] = new_id
        values.append(typed)
    bulk_repository.insert_rows(session, table, values)
    ids.maps[table.name] = {row["id"]: new_id for row, new_id in zip(rows, new_ids, strict=True)}


def _invalid(detail: str) -> Unprocessable:
    return Unprocessable(f"Not a valid event archive: {detail}", code="archive_invalid")


def import_event(session: Session, archive: Any, *, actor: str) -> tuple[Event, dict[str, Any]]:
    """Restore `archive` (an `export_event` document) as a new event; (the event, the
    verification report `{"head", "takes", "bids", "version", "unproven", "participants",
    "combinations"}`).

    An archive of version 1 (before migration 0013) still imports: its source clock
    offsets, deciding audit entries and participants' identities are chained as they are
    in the file, and the report's `unproven` names them (nothing proves they were not
    edited); its `expected` head is the version 1 head (takes and bids), checked as such.
    The report also has `version` (the archive's) and `unproven` ([] for version 2).

    Raises Unprocessable `archive_invalid` (not an archive of this format/version, a
    malformed row, a time out of range), Conflict `archive_conflict` (its codes, token
    hashes or key hashes are already used in this database: e.g. the original event is
    here), Unprocessable `archive_mismatch` with `differences` (what the restored event
    does not reproduce).
    The caller's transaction must be rolled back on error (SessionDep, `transaction`).
    """
    if not isinstance(archive, dict) or archive.get("format") != FORMAT:
        raise _invalid(f"`format` must be {FORMAT!r}.")
    if type(archive.get("version")) is not int or archive["version"] not in SUPPORTED:
        raise _invalid(
            f"version {archive.get('version')!r} is not supported (only "
            f"{', '.join(map(str, SUPPORTED))})."
        )
    # The archive is a large tree of small objects without cycles: keep the collector from
    # walking it again and again while the rows are inserted and checked.
    gc.freeze()
    try:
        return _import(session, archive, actor)
    finally:
        gc.unfreeze()


def _import(session: Session, archive: dict[str, Any], actor: str) -> tuple[Event, dict[str, Any]]:
    try:
        event, ids = _restore_rows(session, archive, actor)
        differences = _differences(session, event, archive["expected"], ids)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _invalid(f"a row is malformed ({type(exc).__name__}: {exc}).") from exc
    except IntegrityError as exc:
        if _unique_violation(exc):
            raise Conflict(
                "The archive's CP codes, token hashes or key hashes are already used in this "
                "database (is the original event here?). Restore it into another database.",
                code="archive_conflict",
            ) from exc
        raise _invalid(f"a row breaks a constraint ({type(exc.orig).__name__}).") from exc
    except DBAPIError as exc:  # a value the database refuses (too long, wrong type)
        raise _invalid(f"the database refuses a row ({type(exc.orig).__name__}).") from exc
    except StatementError as exc:  # a value no column type takes (a time out of range)
        raise _invalid(f"a value cannot be stored ({type(exc.orig).__name__}).") from exc
    if differences:
        raise Unprocessable(
            f"The archive does not restore the event it describes: {differences[0]}"
            + (f" (and {len(differences) - 1} more)" if len(differences) > 1 else ""),
            code="archive_mismatch",
            differences=differences[:MAX_DIFFERENCES],
        )
    record(
        session,
        event_id=event.id,
        actor=actor,
        action="event.imported",
        subject=f"event:{event.id}",
        details={"from_event": archive["event"]["id"], "exported_at": archive.get("exported_at")},
    )
    expected = archive["expected"]
    return event, {
        "head": expected["log"]["head"],
        "takes": expected["log"]["takes"],
        "bids": expected["log"]["bids"],
        "version": archive["version"],
        "unproven": UNPROVEN_V1 if archive["version"] == 1 else [],
        "participants": len(expected["states"]),
        "combinations": len(expected["combinations"]),
    }


def _unique_violation(exc: IntegrityError) -> bool:
    """PostgreSQL's unique_violation (23505) or SQLite's "UNIQUE constraint failed"."""
    return getattr(exc.orig, "sqlstate", None) == "23505" or "UNIQUE constraint" in str(exc.orig)


def _restore_rows(session: Session, archive: dict[str, Any], actor: str) -> tuple[Event, _Ids]:
    """Insert the archive's rows under new ids: the event and its feed (replayed), then
    the ceremony, the audit trail, and last the event's status and freeze."""
    ids = _Ids()
    event = _restore_event_and_feed(session, archive, ids, actor)
    _restore_ceremony(session, archive, ids, event.id)
    audit = archive["audit"]
    if archive["version"] == 1:  # the deciding entries were not chained: chain them now
        audit = _chained(AuditEntry.__table__, audit, chain.DECISION, _decision_content,
                         lambda row: row["action"] in DECIDING_ACTIONS)  # fmt: skip
    _insert(session, AuditEntry.__table__, audit, ids, _of_event(event.id))
    _set_head(session, event.id, chain.DECISIONS, audit)
    source = archive["event"]
    repository.set_event_status(
        session,
        event.id,
        source["status"],
        _typed(Event.__table__, source).get("feed_frozen_at"),
    )
    session.expire_all()
    return event, ids


def _of_event(event_id: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda row: {**row, "event_id": event_id}


def _restore_event_and_feed(
    session: Session, archive: dict[str, Any], ids: _Ids, actor: str
) -> Event:
    """The event, its deck, participants, keys and take log; then the feed is rebuilt."""
    source = archive["event"]
    # The event starts unfrozen so that the feed can be replayed; its status and freeze
    # are restored once the replay is done.
    event_values = {**source, "status": EventStatus.COURSE_CLOSED, "feed_frozen_at": None}
    _insert(session, Event.__table__, [event_values], ids, lambda r: r)
    event_id = ids("event", source["id"])
    assert event_id is not None
    of_event = _of_event(event_id)

    def of_participant(row: dict[str, Any]) -> dict[str, Any]:
        return {
            **row,
            "event_id": event_id,
            "participant_id": ids("participant", row["participant_id"]),
        }

    _insert(session, Checkpoint.__table__, archive["checkpoints"], ids, of_event)
    _insert(session, Participant.__table__, archive["participants"], ids, of_event)
    _restore_identities(session, archive, ids, event_id, actor)
    _insert(session, SaveCode.__table__, archive["save_codes"], ids, of_participant)
    _insert(session, IntegrationKey.__table__, archive["integration_keys"], ids, of_event)
    _insert(session, Take.__table__, archive["takes"], ids, of_participant)
    _insert(
        session, TakeVoid.__table__, archive["take_voids"], ids,
        lambda r: {**r, "take_id": ids("take", r["take_id"])},
    )  # fmt: skip
    # The organiser's source clock offsets (a replay plays the takes by them).
    clocks = archive.get("source_clocks", [])
    if archive["version"] == 1:
        clocks = _chained(SourceClock.__table__, clocks, chain.SOURCE_CLOCK, _clock_content)
    _insert(session, SourceClock.__table__, clocks, ids, of_event)
    _set_head(session, event_id, chain.CLOCKS, clocks)

    event = session.get(Event, event_id)
    assert event is not None
    projection.rebuild_event(session, event, actor=actor)
    return event


def _restore_identities(
    session: Session, archive: dict[str, Any], ids: _Ids, event_id: int, actor: str
) -> None:
    """The participants' identity log as archived (version 2; a deleted participant's
    rows keep no participant id), or for version 1 one `create` row per participant as
    the file has it, by the importing `actor`."""
    if archive["version"] == 1:
        participants = event_service.participants(session, event_id)
        identity.record(session, event_id, participants, "create", actor)
        return
    rows = archive["participant_identities"]
    new_participant = ids.maps["participant"]
    _insert(
        session, ParticipantIdentity.__table__, rows, ids,
        lambda r: {**r, "event_id": event_id,
                   "participant_id": new_participant.get(r["participant_id"])},
    )  # fmt: skip
    _set_head(session, event_id, chain.IDENTITIES, rows)


def _clock_content(row: dict[str, Any]) -> list[chain.Field]:
    return chain.source_clock_content(
        source=row["source"], offset_seconds=row["offset_seconds"], set_by=row["set_by"],
        set_at=row["set_at"],
    )  # fmt: skip


def _decision_content(row: dict[str, Any]) -> list[chain.Field]:
    return chain.decision_content(
        action=row["action"], actor=row["actor"], subject=row["subject"],
        details=row["details"] or {}, created_at=row["created_at"],
    )  # fmt: skip


def _chained(
    table: Table,
    rows: list[dict[str, Any]],
    tag: str,
    content: Callable[[dict[str, Any]], list[chain.Field]],
    keep: Callable[[dict[str, Any]], bool] = lambda row: True,
) -> list[dict[str, Any]]:
    """The rows of a version 1 archive with the chain columns of the `keep` ones computed
    now, in the archive's id order (what the file says is what gets chained)."""
    chosen = sorted((row for row in rows if keep(row)), key=lambda row: row["id"])
    links = chain.links_of(0, None, tag, [content(_typed(table, row)) for row in chosen])
    linked = {
        row["id"]: {"log_seq": seq, "log_prev": prev, "log_hash": digest}
        for row, (seq, prev, digest) in zip(chosen, links, strict=True)
    }
    unchained = {"log_seq": None, "log_prev": None, "log_hash": None}  # same keys in every row
    return [{**row, **linked.get(row["id"], unchained)} for row in rows]


def _set_head(session: Session, event_id: int, name: str, rows: list[dict[str, Any]]) -> None:
    """The head of the event-level chain `name` from its restored rows (highest seq)."""
    seq, head = ledger.last_link(rows)
    if seq:
        ledger.set_head(session, event_id, name, seq, head)


def _restore_ceremony(session: Session, archive: dict[str, Any], ids: _Ids, event_id: int) -> None:
    """Auctions, rounds, bids and withdrawals; then the rounds' results and the winners."""
    of_event = _of_event(event_id)
    _insert(
        session, Auction.__table__, archive["auctions"], ids,
        lambda r: {**of_event(r), "winner_participant_id": None, "winner_combination_id": None},
    )  # fmt: skip
    _insert(
        session, AuctionRound.__table__, archive["auction_rounds"], ids,
        lambda r: {**r, "auction_id": ids("auction", r["auction_id"]), "result": None,
                   "eligible": _map_list(ids, "participant", r["eligible"]),
                   **_reveal_of(r)},
    )  # fmt: skip
    _insert(
        session, Bid.__table__, archive["bids"], ids,
        lambda r: {**r, "auction_id": ids("auction", r["auction_id"]),
                   "round_id": ids("auction_round", r["round_id"]),
                   "participant_id": ids("participant", r["participant_id"]),
                   "combination_id": ids("take", r["combination_id"])},
    )  # fmt: skip
    _insert(
        session, BidWithdrawal.__table__, archive["bid_withdrawals"], ids,
        lambda r: {**r, "bid_id": ids("bid", r["bid_id"]),
                   "replaced_by_bid_id": ids("bid", r["replaced_by_bid_id"])},
    )  # fmt: skip
    # Now that bids exist: the rounds' revealed results and the auctions' winners.
    for row in archive["auction_rounds"]:
        if row["result"] is not None:
            repository.set_round_result(
                session, ids("auction_round", row["id"]), _map_result(ids, row["result"])
            )
    for row in archive["auctions"]:
        if row["winner_participant_id"] is not None or row["winner_combination_id"] is not None:
            repository.set_auction_winner(
                session,
                ids("auction", row["id"]),
                ids("participant", row["winner_participant_id"]),
                ids("take", row["winner_combination_id"]),
            )


def _reveal_of(row: dict[str, Any]) -> dict[str, Any]:
    """The reveal progress of an archived round; an archive made before the reveal existed
    (migration 0012) showed every closed round at its close: fully revealed."""
    if "revealed" in row or row.get("status") != RoundStatus.CLOSED:
        return {}
    bids = len((row.get("result") or {}).get("bids") or [])
    return {"revealed": bids + 1, "revealed_at": row.get("closed_at")}


def _map_list(ids: _Ids, table: str, values: Iterable[int] | None) -> list[int] | None:
    return None if values is None else [ids(table, value) for value in values]  # type: ignore[misc]


def _map_result(ids: _Ids, result: dict[str, Any]) -> dict[str, Any]:
    """A round's revealed result with its bid and combination ids of this database."""
    bids = []
    for bid in result.get("bids") or []:
        combination = {**bid["combination"], "id": ids("take", bid["combination"]["id"])}
        bids.append({**bid, "bid_id": ids("bid", bid["bid_id"]), "combination": combination})
    return {**result, "bids": bids}


def _differences(session: Session, event: Event, expected: dict[str, Any], ids: _Ids) -> list[str]:
    """What the restored event does not reproduce, named in the archive's ids."""
    old = {
        table: {new: old for old, new in ids.maps.get(table, {}).items()}
        for table in ("take", "take_void", "bid", "bid_withdrawal", "participant",
                      "participant_identity", "source_clock", "audit_entry")
    }  # fmt: skip
    differences = _log_differences(session, event, expected["log"], old)
    differences += _replay_differences(session, event, expected, old["take"])
    if not differences:
        _restore_outcome_history(session, expected["outcomes"], ids)
    return differences


def _log_differences(
    session: Session, event: Event, log: dict[str, Any], old: dict[str, dict[int, int]]
) -> list[str]:
    """The chains verified again, their recomputed head against the archived one and the
    head fixed at the finish (`old`: new id -> archive id per table)."""
    differences: list[str] = []

    def archived(label: str | None) -> str:
        if not label:
            return "the chain's end"
        table, _, number = label.partition(" ")
        return f"{table} {old.get(table, {}).get(int(number), number)} of the archive"

    report = log_chain.verify(session, event)
    mismatch = report["first_mismatch"]
    if mismatch is not None:
        what = (
            "differs from its identity log"
            if mismatch["problem"] == "identity"
            else "does not match its chain"
        )
        differences.append(
            f"{mismatch['chain']}: {archived(mismatch['row'])} (seq {mismatch['seq']}) {what} "
            f"({mismatch['problem']})"
        )
    differences += _head_differences(report, log, "log head")
    fixed = event.final_log_head  # the head fixed at the finish, as archived (or None)
    if fixed is not None and not isinstance(fixed, dict):
        differences.append(f"fixed head: recomputed {report['head']}, archived {fixed}")
    elif fixed is not None:
        differences += _head_differences(report, fixed, "fixed head")
    return differences


def _head_differences(report: dict[str, Any], log: dict[str, Any], what: str) -> list[str]:
    """The recomputed head (`log_chain.verify`'s report) against an archived one of its
    version: 1 (takes and bids only: archives and fixed heads before 0013) or 2."""
    counts = ["takes", "bids"]
    head = report["head_v1"]
    if log.get("version", 1) != 1:
        counts += list(chain.EVENT_CHAINS)
        head = report["head"]
    if (head, *(report[c] for c in counts)) == (log.get("head"), *(log.get(c) for c in counts)):
        return []
    if all(report[c] == log.get(c) for c in counts):  # same rows, other hashes
        return [f"{what}: recomputed {head}, archived {log.get('head')}"]
    rows = ", ".join(f"{report[c]} {c}" for c in counts)
    archived = ", ".join(f"{log.get(c)} {c}" for c in counts)
    return [f"{what}: recomputed {head} over {rows}, archived {log.get('head')} over {archived}"]


def _replay_differences(
    session: Session, event: Event, expected: dict[str, Any], take_of: dict[int, int]
) -> list[str]:
    """The replayed states, combinations, outcomes and auction results against the
    archived ones (`take_of`: new take id -> archive take id)."""
    differences: list[str] = []
    replayed = expected_state(session, event)
    for state in replayed["states"].values():  # combination ids are save take ids
        for combination in state.get("combinations", []):
            combination["id"] = take_of.get(combination["id"], combination["id"])
    for external_id in sorted(set(expected["states"]) | set(replayed["states"])):
        want, got = expected["states"].get(external_id), replayed["states"].get(external_id)
        if want != got:
            keys = sorted(k for k in set(want or {}) | set(got or {})
                          if (want or {}).get(k) != (got or {}).get(k))  # fmt: skip
            differences.append(
                f"participant {external_id}: the replayed state differs ({', '.join(keys)})"
            )
    combos = {(take_of.get(c["take"]), c["participant"], tuple(c["cards"]), c["category"],
               c["deal"], c["saved_at"]) for c in replayed["combinations"]}  # fmt: skip
    wanted = {(c["take"], c["participant"], tuple(c["cards"]), c["category"], c["deal"],
               c["saved_at"]) for c in expected["combinations"]}  # fmt: skip
    for missing in sorted(wanted - combos, key=str):
        differences.append(f"combination of take {missing[0]} ({missing[1]}) is not replayed")
    for extra in sorted(combos - wanted, key=str):
        differences.append(f"combination of take {extra[0]} ({extra[1]}) is not in the archive")
    fields = ("kind", "outcome", "reason", "card", "checkpoint", "deal", "round")
    outcomes = {take_of.get(o["take"]): o for o in replayed["outcomes"]}
    for o in expected["outcomes"]:
        got = outcomes.get(o["take"])
        if got is None or any(got[f] != o[f] for f in fields):
            differences.append(f"take {o['take']}: the replayed outcome differs")
    if replayed["results"] != expected["results"]:
        differences.append("auction results differ")
    return differences


def _restore_outcome_history(session: Session, outcomes: list[dict[str, Any]], ids: _Ids) -> None:
    """The archived outcome changes (`previous_outcome`, `previous_reason`, `changed_at`):
    a participant's log keeps showing what changed (RULES.md I-4)."""
    rows = [
        {"tid": ids("take", o["take"]), "po": o["previous_outcome"], "pr": o["previous_reason"],
         "ca": datetime.fromisoformat(o["changed_at"]) if o["changed_at"] else None}
        for o in outcomes
        if o["previous_outcome"] is not None or o["changed_at"] is not None
    ]  # fmt: skip
    if rows:
        repository.set_outcome_history(session, rows)
