"""The house's shape, checked: data flows one way through the rooms, and no module imports one
above it, the package root, or (through any chain) itself.

Every import statement counts, lazy ones inside functions and `TYPE_CHECKING` ones included: a
lazy import hides a cycle from the interpreter's start-up, not from the design.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "legalog"

# A room may import its own modules and any room of a lower rank, never one of a higher rank.
RANKS = {
    "version": 0,
    "home": 0,  # where legalog keeps its own files (the cache folder): read by rules and surfaces
    "files": 0,  # how a file legalog is given is read (regular files only, capped): every room
    "digraph": 0,
    "digest": 0,  # SHA-256 without OpenSSL: keys and checksums of rules and surfaces
    "collector": 0,  # the cyclic garbage collector paused while ir, extractor and rules build what stays alive
    "ir": 1,
    "facts": 2,
    "extractor": 3,
    "rules": 3,
    "analyzer": 4,
    "rewriter": 5,
    "passes": 6,  # the two passes as objects, in order: what the pipeline loops over
    "pipeline": 6,
    "surfaces": 7,
    "cli": 8,
    "pypto": 8,
    "pypto_objects": 7,  # what legalog.pypto reads from PyPTO's objects, and its Program rebuilt
    "__main__": 9,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str) -> set[str]:
    """The legalog modules `name` imports (a `from legalog.x import y` names `legalog.x.y` when
    that is a module, else `legalog.x`)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "legalog")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "legalog":
                continue
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    found.discard(name)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _room(name: str) -> str:
    return name.split(".")[1] if "." in name else ""


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "legalog"))
def test_no_module_imports_a_room_above_it_or_the_package_root(name: str) -> None:
    room = _room(name)
    assert room in RANKS, f"{name} sits in no room the house declares: add it to RANKS with a reason"
    for target in sorted(GRAPH[name]):
        assert target != "legalog", f"{name} imports the package root (use legalog.version for the version)"
        assert RANKS[_room(target)] <= RANKS[room], f"{name} ({room}) imports {target}, a room above it"


def test_the_analyzer_never_imports_the_rewriter_the_cli_or_the_pipeline() -> None:
    for name in (n for n in MODULES if _room(n) == "analyzer"):
        for target in GRAPH[name]:
            assert _room(target) not in ("rewriter", "cli", "pipeline", "surfaces"), (name, target)


def test_there_is_no_import_cycle() -> None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(GRAPH.get(node, ())):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt in GRAPH and state.get(nxt) is None:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)


def test_the_walker_sees_lazy_and_type_checking_imports() -> None:
    # passes imports the rewriter at module level and cli imports the pipeline inside functions:
    # if the walker missed either kind, the room checks above would pass vacuously.
    assert "legalog.rewriter.graph_boundary" in GRAPH["legalog.passes"]
    assert "legalog.pipeline" in GRAPH["legalog.cli"]
