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
