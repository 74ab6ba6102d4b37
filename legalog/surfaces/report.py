"""The external report (`check --format json`): CONTRACT.md's JSON, versioned, as frozen
dataclasses with a JSON Schema generated from these classes (`legalog schema`).

Plain dataclasses, not pydantic models, so that a command printing text never imports pydantic:
importing it and building the adapter over these classes is 77-79 ms (measured: `validate` of an
empty report in a fresh process), a third of the 0.25 s a whole one-file `check` may take.
pydantic is loaded only to validate a report read from outside (`merge`) and to write the schema,
through a `TypeAdapter` over these very classes (it reads each field's `description` from its
metadata).  A record is copied with `dataclasses.replace` and written with `to_dict`/`to_json`:
plain functions, not pydantic's method names on classes that are not pydantic's."""

from __future__ import annotations

import dataclasses
import json
import sys
import typing
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

REPORT_VERSION = 1

Status = Literal["legal", "rewritten", "rejected", "error"]


def _described(
    description: str | None, default: Any = dataclasses.MISSING, *, factory: Any = dataclasses.MISSING
) -> Any:
    """A field with its schema description (and a default, or `factory` for a list or dict, whose
    empty value the schema states as pydantic's models did)."""
    metadata: dict[str, Any] = {} if description is None else {"description": description}
    if factory is not dataclasses.MISSING:
        metadata["json_schema_extra"] = {"default": factory()}
    return dataclasses.field(default=default, default_factory=factory, metadata=metadata)


def _empty() -> Any:
    return _described(None, factory=list)


class _Model:
    """A report record: a frozen dataclass, which pydantic validates as it is (unknown keys refused)."""

    __pydantic_config__: typing.ClassVar[dict[str, Any]] = {"extra": "forbid"}


M = TypeVar("M", bound=_Model)


def to_dict(model: _Model, *, exclude: set[str] | None = None) -> dict[str, Any]:
    """The JSON-ready dict of a report record, fields in declaration order."""
    data = {
        f.name: _plain(getattr(model, f.name))
        for f in dataclasses.fields(model)  # type: ignore[arg-type]
        if not exclude or f.name not in exclude
    }
    if isinstance(model, ReportModel) and data.get("run") is None:
        data.pop("run", None)  # an unsharded report has no `run` key: its bytes stay what they were
    return data


def to_json(model: _Model, *, indent: int | None = None) -> str:
    return json.dumps(to_dict(model), indent=indent, ensure_ascii=False)


def validate(cls: type[M], data: Any) -> M:
    """`data` checked against the schema (pydantic's `ValidationError`, a ValueError, when it is not)."""
    checked: M = _adapter(cls).validate_python(data)
    return checked


def validate_json(cls: type[M], text: str) -> M:
    checked: M = _adapter(cls).validate_json(text)
    return checked


def json_schema(cls: type[_Model]) -> dict[str, Any]:
    schema: dict[str, Any] = _adapter(cls).json_schema()
    return schema


def from_own(cls: type[M], data: dict[str, Any]) -> M:
    """A record this build wrote itself (the result cache's, whose key names the build), read
    back without pydantic; a dict of another shape raises TypeError or KeyError."""
    nested = _nested(cls)
    return cls(**{k: _build(nested.get(k), v) for k, v in data.items()})


def _plain(value: Any) -> Any:
    if isinstance(value, _Model):
        return to_dict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _build(model: type[_Model] | None, value: Any) -> Any:
    if model is None or value is None:
        return value
    if isinstance(value, list):
        return [from_own(model, v) for v in value]
    return from_own(model, value)


_NESTED: dict[type, dict[str, type[_Model]]] = {}
_ADAPTERS: dict[type, Any] = {}


def _nested(cls: type) -> dict[str, type[_Model]]:
    """Field name -> the report class its value (or each item of its list) is (once per class)."""
    if cls in _NESTED:
        return _NESTED[cls]
    hints = typing.get_type_hints(cls, vars(sys.modules[__name__]))
    found: dict[str, type[_Model]] = {}
    for name, hint in hints.items():
        for arg in (hint, *typing.get_args(hint)):
            if isinstance(arg, type) and issubclass(arg, _Model):
                found[name] = arg
    _NESTED[cls] = found
    return found


def _adapter(cls: type) -> Any:
    if cls not in _ADAPTERS:
        from pydantic import TypeAdapter

        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]


@dataclass(frozen=True, kw_only=True)
class DiagnosticModel(_Model):
    code: str
    severity: Literal["error", "warning", "info"]
    function: str | None = None
    line: int
    column: int
    subject: str | None = None
    message: str
    help: str | None = None
    fixable: bool = False
    fix_functions: list[str] = _described(
        "for a fixable finding: the functions whose `edits` (this file's) make up "
        "its fix: the Graph and its call sites, or the guarded launch's",
        factory=list,
    )


@dataclass(frozen=True, kw_only=True)
class HoistedScalar(_Model):
    param: str = _described("the new scalar parameter (SSA suffix removed)")
    value: str = _described("its value in the Graph's own parameters")


@dataclass(frozen=True, kw_only=True)
class RemovedAlias(_Model):
    name: str
    target: str


@dataclass(frozen=True, kw_only=True)
class HoistedView(_Model):
    param: str
    source: str


@dataclass(frozen=True, kw_only=True)
class HoistedAlloc(_Model):
    param: str


@dataclass(frozen=True, kw_only=True)
class KeptModel(_Model):
    name: str
    kind: Literal["scalar", "view"]
    line: int
    reason: str = _described("why leaving it in place is safe on every replay")


@dataclass(frozen=True, kw_only=True)
class GraphModel(_Model):
    function: str
    params_after: list[str]
    hoisted_scalars: list[HoistedScalar] = _empty()
    removed_aliases: list[RemovedAlias] = _empty()
    kept_invariant: list[str] = _empty()
    hoisted_views: list[HoistedView] = _empty()
    hoisted_allocs: list[HoistedAlloc] = _empty()
    node_count: int | None = _described("launched-task count of the rewritten body; null when unbounded")
    params_before: list[str] = _described("the signature as read (SSA suffixes removed)", factory=list)
    kept: list[KeptModel] = _described("values kept in place because they are replay-invariant", factory=list)


@dataclass(frozen=True, kw_only=True)
class LaunchModel(_Model):
    function: str
    line: int
    callee: str
    core_num: str
    outcome: Literal["proven", "guarded", "rejected"]
    counterexample: dict[str, int] | None = None


@dataclass(frozen=True, kw_only=True)
class EditModel(_Model):
    """One changed function of `legalog fix`'s output: its text in the input, and what replaces it."""

    function: str
    start_line: int
    start_column: int
    end_line: int = _described("the region ends just before (end_line, end_column)")
    end_column: int
    char_offset: int
    char_length: int
    replacement: str


@dataclass(frozen=True, kw_only=True)
class PairModel(_Model):
    """What a `validate` entry judged: a pass's output against legalog's run of it on the input."""

    pass_name: Literal["LegalizeGraphBoundary", "LegalizeSpmdLaunches"] = _described(
        "the pass AFTER is the output of"
    )
    before: str = _described("the pass's input (BEFORE)")
    after: str | None = _described("the pass's output (AFTER); null when the pass left none")


@dataclass(frozen=True, kw_only=True)
class FileModel(_Model):
    path: str
    status: Status
    diagnostics: list[DiagnosticModel] = _empty()
    graphs: list[GraphModel] = _empty()
    launches: list[LaunchModel] = _empty()
    used_dump: str | None = _described("for a passes_dump folder: the dump analysed", None)
    edits: list[EditModel] = _described(
        "what `legalog fix` replaces, one changed function each", factory=list
    )
    ignored: list[str] = _described(
        "the codes whose diagnostics the configuration or --select/--ignore hid from "
        "this entry (its status is the analysis's, unchanged)",
        factory=list,
    )
    pair: PairModel | None = _described(
        "for `legalog validate`: the pair judged.  The entry's status is then legalog's own verdict on "
        "BEFORE with that pass alone (what the pass should have done), and its diagnostics the TV5xx "
        "findings, located in AFTER (in BEFORE when the pass left no AFTER)",
        None,
    )


@dataclass(frozen=True, kw_only=True)
class ShardEntry(_Model):
    """Where one entry of a shard stands in the whole batch, and the pass position it checks."""

    index: int = _described("the entry's position in the unsharded report")
    role: Literal["all", "graph", "spmd", "both"] = "all"
    reason: str = _described("for a passes_dump position: why this dump was used", "")


@dataclass(frozen=True, kw_only=True)
class RunModel(_Model):
    """What `legalog merge` needs to rebuild the unsharded report exactly (only in a shard report)."""

    legalog: str = _described("legalog's version")
    build: str = _described("fingerprint of legalog's sources and rules")
    options: dict[str, str | bool | None] = _described("the options that change results")
    shard: int = _described("this shard's number K of `--shard K/N` (1-based)")
    shards: int = _described("N of `--shard K/N`")
    batch_entries: int = _described("entries of the whole, unsharded batch")
    batch_digest: str = _described("SHA-256 of the whole batch's entry keys")
    entries: list[ShardEntry] = _described("one per file, in the order of `files`")
    sources: dict[str, dict[str, str]] = _described(
        "the source lines the text report quotes: path -> line number -> text", factory=dict
    )


@dataclass(frozen=True, kw_only=True)
class ReportModel(_Model):
    version: Literal[1] = 1  # REPORT_VERSION; a Literal so the schema pins it
    files: list[FileModel]
    run: RunModel | None = _described("present only in a `check --shard` report", None)
