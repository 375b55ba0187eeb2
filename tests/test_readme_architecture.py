"""README "Architecture" is a guide to follow (issue 25): every file, folder and dotted
name it gives under `app` exists, so a path written there is not a dead end."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def architecture_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n## Architecture\n")
    return readme[start : readme.index("\n## ", start + 5)]


def resolves(dotted: str) -> bool:
    """`app.a.b.name`: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
            if found is None:
                return False
        return True
    return False


def test_every_app_path_in_the_architecture_section_exists() -> None:
    text = architecture_section()
    paths = set(re.findall(r"`(app/[\w./]*[\w/])[`:]", text))
    paths |= set(re.findall(r"\((app/[\w./]*[\w/])[,)]", text))
    assert len(paths) > 30  # the section names many; a bad pattern would find none
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []


def test_every_dotted_app_name_in_the_architecture_section_resolves() -> None:
    names = set(re.findall(r"`(app(?:\.\w+)+)", architecture_section()))
    names = {n for n in names if not n.startswith("app.state.")}  # the FastAPI app's state
    assert len(names) > 10
    assert sorted(n for n in names if not resolves(n)) == []


def section(title: str) -> str:
    text = architecture_section()
    start = text.index(f"\n### {title}")
    return text[start : text.index("\n### ", start + 5)]


def test_every_file_and_function_pair_names_a_function_of_that_file() -> None:
    """ "`app/live/hub.py` `Hub.fan_out`": the name is defined in that module (the two-step
    sections name the code by file and function)."""
    pairs = re.findall(r"`(app/[\w/]+)\.py` `([A-Za-z_][\w.]*)`", architecture_section())
    assert len(pairs) > 5
    missing = [f"{path}.py {name}" for path, name in pairs
               if not resolves(path.replace("/", ".") + "." + name)]  # fmt: skip
    assert missing == []


def test_the_token_section_lists_every_caller_type_of_app_callers() -> None:
    text = section("From a token to its Principal, in two steps")
    tree = ast.parse((ROOT / "app" / "callers.py").read_text(encoding="utf-8"))
    aliases = {
        node.targets[0].id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)
    }  # `Name = Annotated[...]`: the table and the wrappers
    assert len(aliases) >= 13
    assert sorted(a for a in aliases if f"`{a}`" not in text) == []
    listed = set(re.findall(r"^   \| `(\w+)` \|", text, re.M))
    assert listed and listed <= aliases


def test_the_bid_section_follows_the_code() -> None:
    """Each step of "From a bid to a phone" is named in the section and exists."""
    text = section("From a bid to a phone, in two steps")
    steps = {
        "app.core.livelog.changed": "livelog.changed(",
        "app.core.livelog._after_commit": "`_after_commit`",
        "app.live.hub.wake_local": "`app.live.hub.wake_local`",
        "app.live.hub.Hub.wake": "`Hub.wake`",
        "app.live.hub.Hub.fan_out": "`Hub.fan_out`",
        "app.live.hub.Hub.stream": "`Hub.stream`",
        "app.live.snapshots.read_changes": "`snapshots.read_changes`",
        "app.live.listener.listen": "`app/live/listener.py` `listen`",
        "app.api.live.live": "`app/api/live.py` `live`",
    }
    assert sorted(n for n in steps if not resolves(n)) == []
    assert sorted(w for w in steps.values() if w not in text) == []
