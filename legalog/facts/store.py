"""The fact store: rows of the declared relations, and their Soufflé-style `.facts` export."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from legalog.facts.schema import RELATIONS, Relation

Row = tuple[str | int, ...]


class FactStore:
    """Rows per relation.  Every row is checked against its declaration on the way in, because
    pyDatalog accepts anything and answers nothing when a column has the wrong type."""

    def __init__(self) -> None:
        self._rows: dict[str, list[Row]] = {name: [] for name in RELATIONS}

    def add(self, relation: str, *row: str | int) -> None:
        decl = RELATIONS[relation]
        if len(row) != decl.arity:
            raise ValueError(f"{decl.signature()}: got {len(row)} columns")
        for col, value in zip(decl.columns, row):
            want_int = col.type == "int"
            if isinstance(value, bool) or isinstance(value, int) != want_int or not isinstance(value, (int, str)):
                raise TypeError(f"{decl.signature()}: column {col.name} got {value!r}")
        self._rows[relation].append(row)

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


def write_facts(relations: Mapping[str, Iterable[Row]], decls: Iterable[Relation], out_dir: Path) -> list[Path]:
    """Write one `<relation>.facts` TSV per relation plus `schema.dl` declarations, atomically:
    everything goes to a temporary folder first, so an interrupted run leaves nothing half-written."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".legalog-facts-", dir=out_dir.parent))
    written: list[Path] = []
    decl_lines: list[str] = []
    for decl in decls:
        rows = sorted(relations.get(decl.name, ()), key=lambda r: tuple(str(c) for c in r))
        text = "".join("\t".join(_cell(c) for c in row) + "\n" for row in rows)
        (staging / f"{decl.name}.facts").write_text(text, encoding="utf-8")
        written.append(out_dir / f"{decl.name}.facts")
        cols = ", ".join(f"{c.name.lower()}:{'number' if c.type == 'int' else 'symbol'}" for c in decl.columns)
        decl_lines.append(f"// {decl.meaning} [{decl.serves}]\n.decl {decl.name}({cols})\n")
    (staging / "schema.dl").write_text("".join(decl_lines), encoding="utf-8")
    out_dir.mkdir(parents=True, exist_ok=True)
    for item in staging.iterdir():
        os.replace(item, out_dir / item.name)
    staging.rmdir()
    return written


def _cell(value: str | int) -> str:
    # Soufflé's TSV has no quoting: tabs and newlines inside a symbol would split the row.
    return str(value).replace("\t", " ").replace("\n", " ")
