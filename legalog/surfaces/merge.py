"""Shard reports and `legalog merge`: N shard reports back into the one report of the whole batch.

A shard report (`check --shard K/N --format json`) is a valid report of its own files plus a
`run` block (report.RunModel) carrying what only the whole batch knows: each entry's index in the
unsharded order, the pass position and reason of each passes_dump entry (the `passes_dump ...`
lines), the source lines the text report quotes (so a merge job needs no checkout), and what the
results depend on (legalog's version and build, the options, the batch's digest).  `merge`
refuses reports that disagree on any of these, a shard given twice, or a missing shard, and
otherwise returns the files in the unsharded order: rendered, they are byte for byte the output
of one unsharded run (the JSON has no `run` block, as an unsharded report has none).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from legalog.files import REPORT_LIMIT, read_regular
from legalog.surfaces.dumps import Target
from legalog.surfaces.report import FileModel, ReportModel, RunModel, ShardEntry, validate_json
from legalog.surfaces.shard import Shard

__all__ = ["MergeError", "Merged", "load_report", "merge", "run_block"]

# the fields every shard of one batch must agree on, and how a mismatch is named
_SAME = {
    "legalog": "legalog versions",
    "build": "legalog builds (sources or rules differ)",
    "options": "options",
    "shards": "shard counts (N of --shard K/N)",
    "batch_entries": "batches (entry counts)",
    "batch_digest": "batches (different input files)",
}


class MergeError(Exception):
    """Reports that cannot be merged; the message names the files and what differs."""


@dataclass(frozen=True, slots=True)
class Merged:
    files: list[FileModel]  # in the unsharded order
    targets: list[Target]  # one per file: what the `passes_dump ...` lines describe
    sources: dict[str, dict[int, str]]  # the quoted source lines, by path and number

    def lines_of(self, path: str) -> Mapping[int, str]:
        return self.sources.get(path, {})


def run_block(
    quoted: Mapping[str, Mapping[int, str]],
    indexed: Sequence[tuple[int, Target]],
    shard: Shard,
    *,
    batch_entries: int,
    batch_digest: str,
    options: Mapping[str, str | bool | None],
) -> RunModel:
    """The `run` block of a shard's report: `quoted` the source lines its text report quotes
    (render.quoted_lines of its entries), `indexed` pairs each entry's target with its index."""
    from legalog.surfaces.cache import fingerprint
    from legalog.version import __version__

    entries = [ShardEntry(index=i, role=t.role, reason=t.reason) for i, t in indexed]
    sources = {path: {str(n): text for n, text in lines.items()} for path, lines in quoted.items()}
    return RunModel(
        legalog=__version__,
        build=fingerprint(),
        options=dict(options),
        shard=shard.number,
        shards=shard.count,
        batch_entries=batch_entries,
        batch_digest=batch_digest,
        entries=entries,
        sources=sources,
    )


def load_report(path: str | Path) -> ReportModel:
    """A shard report from disk, or a MergeError that says what is wrong with the file."""
    try:
        text = read_regular(path, REPORT_LIMIT).decode("utf-8")
    except OSError as err:
        raise MergeError(f"{path}: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise MergeError(f"{path}: not a JSON report (not UTF-8 text)") from None
    from pydantic import ValidationError  # only a report read from outside is validated

    try:
        report = validate_json(ReportModel, text)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise MergeError(f"{path}: not a legalog JSON report ({where}: {first['msg']})") from None
    if report.run is None:
        raise MergeError(f"{path}: not a shard report (made by `legalog check --shard K/N --format json`)")
    if len(report.run.entries) != len(report.files):
        raise MergeError(
            f"{path}: damaged shard report ({len(report.files)} files, {len(report.run.entries)} entries)"
        )
    if (problem := _meaningless(report.files, report.run)) is not None:
        raise MergeError(f"{path}: not a legalog JSON report ({problem})")
    return report


def _meaningless(files: Sequence[FileModel], run: RunModel) -> str | None:
    """What the schema lets through but no legalog wrote, and the report formats cannot render:
    a code legalog does not have, a quoted source line numbered by something else than a number."""
    from legalog.analyzer.codes import CODES

    for i, f in enumerate(files):
        for j, d in enumerate(f.diagnostics):
            if d.code not in CODES:
                return f"files.{i}.diagnostics.{j}.code: unknown code {d.code!r}"
    for source, lines in run.sources.items():
        for number in lines:
            if not (number.isascii() and number.isdecimal()):
                return f"run.sources.{source}: {number!r} is not a line number"
    return None


def merge(reports: Sequence[tuple[str, ReportModel]]) -> Merged:
    """Every shard of one batch, as (file name, report), into the whole batch in its order."""
    runs = [(name, r.run) for name, r in reports if r.run is not None]
    if not runs or len(runs) != len(reports):
        raise MergeError("nothing to merge: give the JSON reports of `legalog check --shard K/N`")
    for field, what in _SAME.items():
        values = {json.dumps(getattr(run, field), sort_keys=True): name for name, run in runs}
        if len(values) > 1:
            shown = "; ".join(f"{name}: {value}" for value, name in values.items())
            raise MergeError(f"cannot merge reports of different {what}: {shown}")
    count = runs[0][1].shards
    seen: dict[int, str] = {}
    for name, run in runs:
        if not 1 <= run.shard <= count:
            raise MergeError(f"{name}: damaged shard report (shard {run.shard} of {count})")
        if run.shard in seen:
            raise MergeError(f"shard {run.shard}/{count} given twice: {seen[run.shard]} and {name}")
        seen[run.shard] = name
    if (absent := count - len(seen)) > 0:
        # named up to ten: N comes from the reports, and may be any number
        missing = [
            f"{k}/{count}" for k in itertools.islice((k for k in range(1, count + 1) if k not in seen), 10)
        ]
        more = f" and {absent - len(missing)} more" if absent > len(missing) else ""
        raise MergeError(
            f"missing shard{'s' if absent > 1 else ''} {', '.join(missing)}{more}: "
            "a merge needs the report of every shard"
        )
    return _combine([r for _, r in reports], runs[0][1].batch_entries)


def _combine(reports: Sequence[ReportModel], size: int) -> Merged:
    entries = sum(len(r.run.entries) for r in reports if r.run is not None)
    if entries != size:  # before a slot is made for each: the size comes from the reports
        raise MergeError(f"damaged shard reports: {entries} entries in all for a batch of {size}")
    slots: list[tuple[FileModel, Target] | None] = [None] * size
    sources: dict[str, dict[int, str]] = {}
    for report in reports:
        assert report.run is not None
        for f, entry in zip(report.files, report.run.entries):
            if not 0 <= entry.index < size or slots[entry.index] is not None:
                raise MergeError(f"damaged shard report: entry index {entry.index} out of range or repeated")
            slots[entry.index] = (f, _target(f, entry))
        for path, lines in report.run.sources.items():
            sources.setdefault(path, {}).update((int(n), text) for n, text in lines.items())
    if None in slots:
        raise MergeError("damaged shard reports: some entries of the batch are in no shard")
    filled = [s for s in slots if s is not None]
    return Merged([f for f, _ in filled], [t for _, t in filled], sources)


def _target(f: FileModel, entry: ShardEntry) -> Target:
    if f.used_dump is None:
        return Target(f.path, role=entry.role, reason=entry.reason)
    return Target(f.used_dump, f.path, entry.role, entry.reason)
