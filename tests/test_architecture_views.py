"""One place for the participant's view (issue 15): RULES.md I-1 hides the card of a
`hand_full` take, and only `app/feed/views.py` applies that rule to what a participant
sees. The rules engine (`app/feed/rules.py`) is where the outcome is produced.

The check reads the source of every Python module under `app/` (its AST) and of every
template: a module that names the `HAND_FULL` constant, or compares anything with the
string `"hand_full"`, is applying the rule itself. (The offline phone's JavaScript,
`app/static/offline/`, plays without the server and mirrors the rules engine; the
conformance tests in tests/offline hold it to the Python rules.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
ALLOWED = {"feed/rules.py", "feed/views.py"}
OUTCOME = "hand_full"
TEMPLATE_COMPARISON = re.compile(r"""(==|!=|\bin)\s*\(?\s*['"]hand_full['"]""")


def hiding_rule_mentions(source: str) -> list[int]:
    """Line numbers where `source` names `HAND_FULL` or compares with `"hand_full"`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        named = node.id if isinstance(node, ast.Name) else None
        if isinstance(node, ast.Attribute):
            named = node.attr
        if named == "HAND_FULL":
            found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for operand in operands:
                values = (
                    operand.elts
                    if isinstance(operand, ast.Tuple | ast.List | ast.Set)
                    else [operand]
                )
                if any(isinstance(v, ast.Constant) and v.value == OUTCOME for v in values):
                    found.append(node.lineno)
    return sorted(set(found))


def test_the_detector_sees_the_rule_written_again() -> None:
    assert hiding_rule_mentions("if take.reason == rules.HAND_FULL:\n    card = None\n") == [1]
    assert hiding_rule_mentions("from app.feed.rules import HAND_FULL\nx = HAND_FULL\n") == [2]
    assert hiding_rule_mentions("hidden = outcome.reason != 'hand_full'\n") == [1]
    assert hiding_rule_mentions("hidden = reason in ('outside_course_hours', 'hand_full')\n") == [1]
    # naming the reason elsewhere (a message key, a report's list of reasons) is not the rule
    assert hiding_rule_mentions('KEYS = ("reason.hand_full", "hand_full")\n') == []
    assert TEMPLATE_COMPARISON.search("{% if take.reason == 'hand_full' %}")
    assert not TEMPLATE_COMPARISON.search('<span data-live-field="hand_full">')


def test_only_the_participant_view_applies_the_hand_full_rule() -> None:
    offenders = []
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP).as_posix()
        if name in ALLOWED:
            continue
        lines = hiding_rule_mentions(path.read_text(encoding="utf-8"))
        offenders.extend(f"app/{name}:{line}" for line in lines)
    for path in sorted(APP.rglob("*.html")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TEMPLATE_COMPARISON.search(line):
                offenders.append(f"app/{path.relative_to(APP).as_posix()}:{number}")
    assert offenders == [], (
        "RULES.md I-1 (a hand_full take reveals no card) belongs to app/feed/views.py; "
        f"call the participant view instead: {offenders}"
    )


def test_the_allowed_modules_do_hold_the_rule() -> None:
    # if the rule moved, this test must move with it (not pass vacuously)
    for name in ALLOWED:
        assert hiding_rule_mentions((APP / name).read_text(encoding="utf-8")), name


# --- the auctions' observer (issue 23): RULES.md I-7, I-10, I-21 ------------------------------

SECRET_COLUMNS = {"sealed_cards", "sealed_nonce", "sealed_result"}
# Who may name them, and why (anything else shows bids through app/auctions/views.py).
SECRET_READERS = {
    "auctions/models.py": "declares the columns",
    "auctions/repository.py": "selects and stores them (SQL), shows nothing",
    "auctions/views.py": "the observer: the only code that reads them for output",
    "flows/log_chain.py": "recomputes the bid chain's hashes; outputs hashes only",
}


def secret_column_mentions(source: str) -> list[int]:
    """Line numbers where `source` names a sealed column: an attribute or a name, a
    keyword argument, or a string (a `getattr` or a row key)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        named = None
        if isinstance(node, ast.Attribute):
            named = node.attr
        elif isinstance(node, ast.Name):
            named = node.id
        elif isinstance(node, ast.keyword):
            named = node.arg
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = node.value
        if named in SECRET_COLUMNS:
            found.append(getattr(node, "lineno", 0) or getattr(node.value, "lineno", 0))
    return sorted(set(found))


def test_the_detector_sees_a_sealed_column_named():
    assert secret_column_mentions("cards = bid.sealed_cards\n") == [1]
    assert secret_column_mentions("x = 1\nBid(sealed_nonce=n)\n") == [2]
    assert secret_column_mentions("r = getattr(rnd, 'sealed_result')\n") == [1]
    assert secret_column_mentions("combination.cards\nbid.receipt\n") == []


def test_only_the_observer_reads_the_sealed_columns():
    offenders = []
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP).as_posix()
        if name in SECRET_READERS:
            continue
        lines = secret_column_mentions(path.read_text(encoding="utf-8"))
        offenders.extend(f"app/{name}:{line}" for line in lines)
    assert offenders == [], (
        "A bid's cards and nonce and a round's decision are read for output only by "
        f"app/auctions/views.py (RULES.md I-21): {offenders}"
    )


def test_the_sealed_columns_are_named_by_their_readers():
    # if a column is renamed, the test must follow (not pass vacuously)
    for name in ("auctions/models.py", "auctions/views.py"):
        mentioned = secret_column_mentions((APP / name).read_text(encoding="utf-8"))
        assert mentioned, name
    from app.auctions.models import AuctionRound, Bid

    assert {"sealed_cards", "sealed_nonce"} <= set(Bid.__mapper__.attrs.keys())
    assert "sealed_result" in set(AuctionRound.__mapper__.attrs.keys())


def test_the_archive_exports_bids_through_the_observer():
    """`export_event` reads no bid or round row itself: `auction_views.archived_ceremony`
    does (and refuses while a round is sealed)."""
    tree = ast.parse((APP / "flows/archive.py").read_text(encoding="utf-8"))
    export = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "export_event"
    )
    whole_rows = [
        node.lineno
        for node in ast.walk(export)
        if isinstance(node, ast.Name)
        and node.id in ("Bid", "AuctionRound")
        and not any(
            isinstance(parent, ast.Attribute)
            and parent.value is node
            and parent.attr != "__table__"
            for parent in ast.walk(export)
        )
    ]
    assert whole_rows == []
    assert any(
        isinstance(node, ast.Attribute) and node.attr == "archived_ceremony"
        for node in ast.walk(export)
    )
