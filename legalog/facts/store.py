"""The fact store: rows of the declared relations, and their Soufflé-style `.facts` export."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import NoReturn

from legalog.facts.schema import RELATIONS, Relation

Row = tuple[str | int, ...]


# Each relation's column types, as the exact classes its values must have.
_COLUMN_TYPES: Mapping[str, tuple[type, ...]] = {
    name: tuple(int if c.type == "int" else str for c in decl.columns) for name, decl in RELATIONS.items()
}


def _refuse(relation: str, row: tuple[object, ...]) -> NoReturn:
    decl = RELATIONS[relation]
    if len(row) != decl.arity:
        raise ValueError(f"{decl.signature()}: got {len(row)} columns")
    col, value = next(
        (c, v) for c, want, v in zip(decl.columns, _COLUMN_TYPES[relation], row) if type(v) is not want
    )
    raise TypeError(f"{decl.signature()}: column {col.name} got {value!r}")


def _check_all(relation: str, rows: list[Row]) -> None:
    """`add`'s check over many rows of one relation, without a call per row: every value's
    class at once where the columns all take one class (most relations: ids), else column by
    column.  No rows pass (a batch's appender may have added none)."""
    want = _COLUMN_TYPES[relation]
    if set(map(len, rows)) <= {len(want)}:
        if len(kinds := set(want)) <= 1:
            if set(map(type, chain.from_iterable(rows))) <= kinds:
                return
        elif all(set(map(type, column)) == {kind} for kind, column in zip(want, zip(*rows))):
            return
    _refuse(relation, next(row for row in rows if tuple(map(type, row)) != want))


class _Batch:
    """An open `FactStore.batch`: its rows by relation, unchecked until it ends."""

    def __init__(self) -> None:
        self.rows: defaultdict[str, list[Row]] = defaultdict(list)

    def add(self, relation: str, *row: str | int) -> None:
        self.rows[relation].append(row)


class FactStore:
    """Rows per relation.  Every row is checked against its declaration on the way in, because
    pyDatalog accepts anything and answers nothing when a column has the wrong type."""

    def __init__(self) -> None:
        self._rows: dict[str, list[Row]] = {name: [] for name in RELATIONS}
        self._batch: _Batch | None = None  # the open batch

    def add(self, relation: str, *row: str | int) -> None:
        # `type(v) is int` refuses a bool (and an int or str subclass), as the reference engine must
        if tuple(map(type, row)) != _COLUMN_TYPES[relation]:
            _refuse(relation, row)
        self._rows[relation].append(row)

    @contextmanager
    def batch(self) -> Iterator[Callable[..., None]]:
        """`add(relation, *row)` for the block, its rows checked together when the block ends
        (the check `add` makes per row costs more than keeping the row, and a lowering adds tens
        of thousands); they join the store then, in the order they were added, and not at all
        when the block raises.  A wrong row raises as `add` would.  A batch opened inside
        another joins it: the outer one checks and keeps the rows of both."""
        if self._batch is not None:
            yield self._batch.add
            return
        self._batch = opened = _Batch()
        try:
            yield opened.add
            for relation, rows in opened.rows.items():
                _check_all(relation, rows)
            for relation, rows in opened.rows.items():
                self._rows[relation].extend(rows)
        finally:
            self._batch = None

    def appender(self, relation: str) -> Callable[[Row], None]:
        """Inside a batch, `append(row)` for one relation: the batch's `add` without a call of
        its own a row, for a caller adding thousands (the lowering).  Its rows are the batch's,
        checked with the rest when it ends."""
        if self._batch is None:
            raise RuntimeError("FactStore.appender outside a batch")
        if relation not in _COLUMN_TYPES:
            raise KeyError(relation)
        return self._batch.rows[relation].append

    def extend(self, other: FactStore) -> None:
        """Add another store's rows (already checked when they went in)."""
        for name, rows in other._rows.items():
            self._rows[name].extend(rows)

    def rows(self, relation: str) -> list[Row]:
        return self._rows[relation]

    def as_mapping(self) -> Mapping[str, list[Row]]:
        return self._rows

    def count(self) -> int:
        return sum(len(r) for r in self._rows.values())

    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self._rows.items()}


def write_facts(
    relations: Mapping[str, Iterable[Row]], decls: Iterable[Relation], out_dir: Path
) -> list[Path]:
    """Write one `<relation>.facts` TSV per relation plus `schema.dl` declarations, atomically:
    everything is written to a staging folder beside `out_dir`, which then takes its place by
    rename.  Afterwards `out_dir` is the old folder or the complete new one, and nothing staged is
    left behind, whatever failed.  An existing `out_dir` may only hold a previous export (files
    that are not `.facts` or `schema.dl` would be lost): anything else is refused."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not _replaceable(out_dir):
        raise FileExistsError(
            errno.EEXIST, "not an empty folder or a facts export; give a new folder", str(out_dir)
        )
    staging: Path | None = None
    retired: Path | None = None
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.staging-", dir=out_dir.parent))
        os.chmod(staging, 0o777 & ~current_umask())  # mkdtemp's 0700 is for the staging, not the export
        written = _write_export(relations, decls, staging, out_dir)
        if out_dir.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.replace(out_dir, retired / "export")
        os.replace(staging, out_dir)
        staging = None
    except BaseException as err:
        if retired is not None and not out_dir.exists():
            os.replace(retired / "export", out_dir)  # put the old export back
        if isinstance(err, OSError) and not isinstance(err, FileExistsError):
            raise OSError(err.errno, f"cannot write: {err.strerror or err}", str(out_dir)) from None
        raise
    finally:
        for leftover in (staging, retired):
            if leftover is not None:
                shutil.rmtree(leftover, ignore_errors=True)
    return written


def current_umask() -> int:
    """The process's umask (reading it means setting it: put it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _replaceable(folder: Path) -> bool:
    """An empty folder, or one holding only what an export writes."""
    if not folder.is_dir():
        return False
    return all(p.is_file() and (p.suffix == ".facts" or p.name == "schema.dl") for p in folder.iterdir())


def _write_export(
    relations: Mapping[str, Iterable[Row]], decls: Iterable[Relation], staging: Path, out_dir: Path
) -> list[Path]:
    written: list[Path] = []
    decl_lines: list[str] = []
    for decl in decls:
        rows = sorted(relations.get(decl.name, ()), key=lambda r: tuple(str(c) for c in r))
        text = "".join("\t".join(_cell(c) for c in row) + "\n" for row in rows)
        (staging / f"{decl.name}.facts").write_text(text, encoding="utf-8")
        written.append(out_dir / f"{decl.name}.facts")
        cols = ", ".join(
            f"{c.name.lower()}:{'number' if c.type == 'int' else 'symbol'}" for c in decl.columns
        )
        decl_lines.append(f"// {decl.meaning} [{decl.serves}]\n.decl {decl.name}({cols})\n")
    (staging / "schema.dl").write_text("".join(decl_lines), encoding="utf-8")
    return written


def _cell(value: str | int) -> str:
    # Soufflé's TSV has no quoting: tabs and newlines inside a symbol would split the row.
    return str(value).replace("\t", " ").replace("\n", " ")
