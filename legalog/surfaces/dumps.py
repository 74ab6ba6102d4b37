"""Where the input comes from: PyPTO's `passes_dump/` folders, and in-memory PyPTO programs.

A `passes_dump/` folder holds one dump per pass, `NN_after_<Pass>.py` (and `00_frontend.py`).
The two passes legalog re-implements each run at one position of PyPTO's pipeline
(seeds/*.en.txt, "Position in the pipeline"), so `check` analyses the dump at that position:

* Graph boundaries: LegalizeGraphBoundary "runs after the final Simplify and immediately before
  MaterializeRuntimeScopes" -> the last `*_after_Simplify.py` numbered before the first
  `*_after_MaterializeRuntimeScopes.py` (45 in the Default strategy).
* SPMD launches: LegalizeSpmdLaunches runs before DeriveCallDirections (its `Out` arguments must
  exist before call directions are derived) -> the dump numbered just before the first
  `*_after_DeriveCallDirections.py` (37 in the Default strategy).

Missing passes fall back, and the reason says which fallback was chosen:
Graph: no Simplify before MaterializeRuntimeScopes -> the dump just before it; no
MaterializeRuntimeScopes -> the last Simplify; neither -> the newest dump.
SPMD: no DeriveCallDirections -> the newest dump numbered before MaterializeRuntimeScopes
(or the newest dump); DeriveCallDirections first -> that dump itself.

`validate` reads a folder the other way round: where a pipeline ran one of the two passes, its
`NN_after_<Pass>.py` is the pass's output (AFTER) and the dump just before it its input (BEFORE),
or `NN_before_<Pass>.py` when the folder has one; a `before` with no `after` is a pass that left
no output (`validation_targets`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from legalog.analyzer.codes import PASS_POSITIONS, PASS_TITLES
from legalog.files import read_regular
from legalog.ir.errors import ParseError

Role = Literal["all", "graph", "spmd", "both"]
DUMP_NAME = re.compile(r"^(?P<num>\d+)_(?:after_(?P<pass>\w+)|(?P<frontend>frontend))\.py$")
# `validate`'s names: a passes_dump dump, or the `before` dump a pipeline may write for a pass
PAIR_NAME = re.compile(r"^(?P<num>\d+)_(?:(?P<side>before|after)_(?P<pass>\w+)|frontend)\.py$")
ValidatedPass = Literal["graph", "spmd"]
# what a dump's name says of the pass it is the input or output of
_PASS_MARKS: dict[ValidatedPass, tuple[str, ...]] = {
    "graph": (PASS_TITLES["graph"], "graph_input"),
    "spmd": (PASS_TITLES["spmd"], "spmd_input"),
}
# the passes_dump positions of the two passes: the dumps just before the PyPTO passes they precede
LAST_SIMPLIFY, GRAPH_ANCHOR = PASS_POSITIONS["graph"]
SPMD_ANCHOR = PASS_POSITIONS["spmd"][1]


@dataclass(frozen=True, slots=True)
class Target:
    """One file to analyse; for a passes_dump folder, which pass's position it stands for."""

    path: str
    folder: str | None = None
    role: Role = "all"
    reason: str = ""
    # `validate`: the pass input (BEFORE) that `path` (AFTER, of the pass `role`) is judged against;
    # `path` is BEFORE itself when the pass left no AFTER (`after_missing`)
    before: str | None = None
    after_missing: bool = False

    @property
    def passes(self) -> tuple[str, ...]:
        """The passes run on it: at a passes_dump position, only the pass that runs there."""
        return {"graph": ("graph",), "spmd": ("spmd",)}.get(self.role, ("graph", "spmd"))

    def report_paths(self) -> tuple[str, str | None]:
        """The report entry's `path` and `used_dump`: a passes_dump position is reported as its folder."""
        return (self.path, None) if self.folder is None else (self.folder, self.path)

    def describe(self) -> str:
        if self.before is not None:
            after = "no AFTER" if self.after_missing else Path(self.path).name
            where = f"{self.folder}: " if self.folder is not None else ""
            why = f" ({self.reason})" if self.reason else ""
            return f"{where}{PASS_TITLES.get(self.role, self.role)}: {after} against {Path(self.before).name}{why}"
        what = {
            "graph": "Graph boundaries",
            "spmd": "SPMD launches",
            "both": "Graph boundaries and SPMD launches",
        }
        return f"{self.folder}: {what.get(self.role, self.role)} checked in {Path(self.path).name} ({self.reason})"


@dataclass(frozen=True, slots=True)
class _Dump:
    number: int
    pass_name: str
    path: Path


def dumps_in(folder: Path) -> list[_Dump]:
    """The `NN_after_<Pass>.py` / `NN_frontend.py` files directly in `folder`, in pipeline order."""
    found = []
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.is_file() and (m := DUMP_NAME.match(path.name)):
            found.append(_Dump(int(m["num"]), m["pass"] or "frontend", path))
    return sorted(found, key=lambda d: (d.number, d.path.name))


def _first(dumps: list[_Dump], pass_name: str) -> _Dump | None:
    return next((d for d in dumps if d.pass_name == pass_name), None)


def _before(dumps: list[_Dump], anchor: _Dump) -> list[_Dump]:
    return [d for d in dumps if d.number < anchor.number]


def graph_position(dumps: list[_Dump]) -> tuple[_Dump, str]:
    anchor = _first(dumps, GRAPH_ANCHOR)
    if anchor is not None:
        earlier = _before(dumps, anchor)
        if simplify := [d for d in earlier if d.pass_name == LAST_SIMPLIFY]:
            return simplify[-1], f"the last Simplify before {anchor.path.name}"
        if earlier:
            return earlier[
                -1
            ], f"fallback: no Simplify dump before {anchor.path.name}; used the dump just before it"
        return anchor, f"fallback: nothing precedes {anchor.path.name}; used it"
    if simplify := [d for d in dumps if d.pass_name == LAST_SIMPLIFY]:
        return simplify[-1], f"fallback: no {GRAPH_ANCHOR} dump; used the last Simplify"
    return dumps[-1], f"fallback: no {GRAPH_ANCHOR} or Simplify dump; used the newest dump"


def spmd_position(dumps: list[_Dump]) -> tuple[_Dump, str]:
    anchor = _first(dumps, SPMD_ANCHOR)
    if anchor is not None:
        earlier = _before(dumps, anchor)
        if earlier:
            return earlier[-1], f"the dump just before {anchor.path.name}"
        return anchor, f"fallback: nothing precedes {anchor.path.name}; used it"
    graph = _first(dumps, GRAPH_ANCHOR)
    if graph is not None and (earlier := _before(dumps, graph)):
        return earlier[-1], f"fallback: no {SPMD_ANCHOR} dump; used the newest dump before {graph.path.name}"
    return dumps[-1], f"fallback: no {SPMD_ANCHOR} dump; used the newest dump"


def select(folder: Path) -> list[Target]:
    """The dumps of one passes_dump folder to analyse: one per pass position (one if they agree)."""
    dumps = dumps_in(folder)
    if not dumps:
        return []
    graph, graph_why = graph_position(dumps)
    spmd, spmd_why = spmd_position(dumps)
    if graph.path == spmd.path:
        return [Target(str(graph.path), str(folder), "both", f"Graph: {graph_why}; SPMD: {spmd_why}")]
    return [
        Target(str(graph.path), str(folder), "graph", graph_why),
        Target(str(spmd.path), str(folder), "spmd", spmd_why),
    ]


# (path, whether it is a folder) -> whether a folder search leaves it out (and, a folder, all it holds)
Skip = Callable[[Path, bool], bool]


def _walk(root: Path, skip: Skip | None = None) -> tuple[list[Path], list[Path]]:
    """The `*.py` files under `root` (sorted), and the folders under it that cannot be listed,
    less what `skip` leaves out (a folder it skips is never entered).  Symbolic links to folders
    are not followed (a link loop would never end)."""
    unreadable: list[Path] = []
    files: list[Path] = []
    for folder, subfolders, names in os.walk(root, onerror=lambda err: unreadable.append(Path(err.filename))):
        here = Path(folder)
        if skip is not None:
            subfolders[:] = [d for d in subfolders if not skip(here / d, True)]
        files += [
            p
            for name in names
            if name.endswith(".py") and (p := here / name).is_file() and not (skip and skip(p, False))
        ]
    return sorted(files), sorted(unreadable)


def plan(paths: Iterable[str | Path], all_dumps: bool = False, skip: Skip | None = None) -> list[Target]:
    """Files as given; directories searched recursively for `*.py`, less what `skip` leaves out
    (the configuration's `exclude`, `.gitignore`: never a path given itself), except that a
    passes_dump folder contributes only the dumps at the passes' positions (unless `all_dumps`)."""
    targets: list[Target] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            targets.append(Target(str(path)))
            continue
        files, unreadable = _walk(path, skip)
        folders = set() if all_dumps else {p.parent for p in files if DUMP_NAME.match(p.name)}
        for folder in sorted(folders):
            targets += select(folder)
        targets += [Target(str(p)) for p in files if p.parent not in folders]
        targets += [Target(str(p)) for p in unreadable]  # each an `error` entry: never skipped silently
    return sorted(_once(targets), key=lambda t: (t.folder or t.path, t.role != "graph", t.path))


def _once(targets: Iterable[Target]) -> list[Target]:
    """Each file once however it was spelled (`d.py ./d.py`, a file and its folder), as first
    given: `fix` would otherwise write it twice and refuse the second as changed on disk."""
    seen: set[tuple[Path, Role]] = set()
    out = []
    for t in targets:
        key = (Path(t.path).resolve(), t.role)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


# ------------------------------------------------------------------------------- validate


def pass_of(*paths: str | None) -> ValidatedPass | None:
    """The pass a pair of dumps is the input and output of, as their names say it
    (`NN_after_LegalizeGraphBoundary.py`, `x.graph_input.py`, ...); None when they say none, or
    two."""
    said = {
        name
        for path in paths
        if path is not None
        for name, marks in _PASS_MARKS.items()
        if any(mark in Path(path).name for mark in marks)
    }
    return said.pop() if len(said) == 1 else None


def validation_targets(folder: Path, passes: Iterable[ValidatedPass] = ("graph", "spmd")) -> list[Target]:
    """The BEFORE/AFTER pairs of one passes_dump folder, for the passes named (as `pass_of` names
    them), each pass's every run in pipeline order."""
    dumps = []
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.is_file() and (m := PAIR_NAME.match(path.name)):
            dumps.append((int(m["num"]), m["side"] or "after", m["pass"] or "frontend", path))
    dumps.sort(key=lambda d: (d[0], d[1] == "after", d[3].name))
    targets = []
    for role in passes:
        title = PASS_TITLES[role]
        befores = [d for d in dumps if d[1] == "before" and d[2] == title]
        afters = [d for d in dumps if d[1] == "after" and d[2] == title]
        for number, _, _, after in afters:
            mine = [d for d in befores if d[0] <= number]
            if mine:
                before, why = mine[-1][3], f"{mine[-1][3].name} is the pass's input"
                befores.remove(mine[-1])
            elif earlier := [d for d in dumps if d[0] < number and d[1] == "after"]:
                before, why = earlier[-1][3], "the dump just before it"
            else:
                continue  # nothing precedes it: no input to judge it against
            targets.append(Target(str(after), str(folder), role, why, before=str(before)))
        for _, _, _, before in befores:  # a pass that wrote its input and no output
            why = "the pass left no AFTER"
            targets.append(Target(str(before), str(folder), role, why, str(before), True))
    return targets


def validation_plan(paths: Sequence[str], pass_name: ValidatedPass | None = None) -> list[Target]:
    """`validate`'s targets: BEFORE and AFTER (two dump files, the pass from `pass_name` or their
    names), or every pair in the passes_dump folders under each of `paths` (of `pass_name`
    only, when given).  Raises ValueError, saying what to give instead, when there is nothing to
    validate."""
    if len(paths) == 2 and not any(Path(p).is_dir() for p in paths):
        before, after = paths
        role = pass_name or pass_of(after, before)
        if role is None:
            raise ValueError(
                f"cannot tell from the names {Path(before).name} and {Path(after).name} which pass AFTER is the "
                "output of: give --pass graph (LegalizeGraphBoundary) or --pass spmd (LegalizeSpmdLaunches)"
            )
        return [Target(after, None, role, before=before)]
    if not all(Path(p).is_dir() for p in paths):
        raise ValueError("give BEFORE AFTER (two dumps), or passes_dump folders (every pair in them)")
    passes: tuple[ValidatedPass, ...] = (pass_name,) if pass_name else ("graph", "spmd")
    targets = [
        t
        for root in paths
        for folder in sorted({Path(root), *(Path(f) for f, _, _ in os.walk(root))})
        for t in validation_targets(folder, passes)
    ]
    if not targets:
        raise ValueError(
            f"no pass output under {', '.join(paths)}: a passes_dump folder holds NN_after_"
            f"{' or NN_after_'.join(PASS_TITLES[p] for p in passes)}.py where the pipeline ran the pass"
        )
    return targets


# ------------------------------------------------------------------------- PyPTO programs


def read_source(source: Any, path: str | None = None) -> tuple[Any, str | None]:
    """What `legalog.analyze` reads, and the path to report: a `Path` (any `os.PathLike`) is read
    as the parser reads a dump (its own line breaks) and named by itself unless `path` says
    otherwise; anything else is `program_text`'s.  Text that is only a file's name raises
    ParseError saying to pass the text or a Path (parsed, it would be a confusing syntax error)."""
    if isinstance(source, os.PathLike):
        file = Path(source)
        try:
            return read_regular(file).decode("utf-8"), path if path is not None else str(file)
        except (OSError, UnicodeDecodeError) as err:
            raise ParseError(f"cannot read {file}: {err}", path or str(file)) from None
    if isinstance(source, str) and _names_a_file(source):
        raise ParseError(
            f"{source.strip()!r} is a file name, not a dump's text: pass its text, or "
            f"pathlib.Path({source.strip()!r}) to have legalog read it",
            path,
        )
    return program_text(source), path


def _names_a_file(text: str) -> bool:
    name = text.strip()
    if not name or "\n" in name or len(name) > 4096:
        return False
    try:
        return name.endswith(".py") or Path(name).is_file()
    except (OSError, ValueError):  # a name the OS refuses (a NUL byte, too long a part)
        return False


def program_text(source: Any) -> Any:
    """Text legalog reads, from a PyPTO in-memory program (anything `pypto.ir.python_print`
    prints); a str or an already parsed legalog Program passes through unchanged.

    PyPTO is optional: without it, an object that prints itself as a dump (`as_python()`, or
    `str()` starting with the `# pypto.program:` header or `@pl.program`) is accepted too."""
    from legalog.ir.model import Program

    if isinstance(source, (str, Program)):
        return source
    if isinstance(source, (bytes, bytearray)):
        return bytes(source).decode("utf-8")
    if (text := _pypto_print(source)) is not None:
        return text
    as_python = getattr(source, "as_python", None)
    if callable(as_python) and isinstance(text := as_python(), str):
        return text
    text = str(source)
    if text.lstrip().startswith(("# pypto.program:", "import pypto.language", "@pl.program")):
        return text
    raise TypeError(
        f"legalog reads a PyPTO IR dump (str), a legalog Program, or a PyPTO program; got "
        f"{type(source).__name__}, which does not print as a dump (install pypto to print it)"
    )


def _pypto_print(source: Any) -> str | None:
    try:
        from pypto import ir as pypto_ir
    except ImportError:
        return None
    from legalog.ir.patterns import DEFAULT_PREFIX  # here: a cached check loads no IR model

    printer = getattr(pypto_ir, "python_print", None)
    if printer is None:
        return None
    try:
        text = printer(source, DEFAULT_PREFIX)
    except (TypeError, ValueError, RuntimeError):
        return None  # not a PyPTO node: fall through to the other spellings
    return text if isinstance(text, str) else None
