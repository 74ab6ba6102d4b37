"""The external report (`check --format json`), as pydantic models: CONTRACT.md's JSON, versioned,
with a JSON Schema generated from these classes (`legalog schema`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

REPORT_VERSION = 1

Status = Literal["legal", "rewritten", "rejected", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
    fix_functions: list[str] = Field(default=[], description="for a fixable finding: the functions whose `edits` "
                                     "(this file's) make up its fix: the Graph and its call sites, or the guarded launch's")


class HoistedScalar(_Model):
    param: str = Field(description="the new scalar parameter (SSA suffix removed)")
    value: str = Field(description="its value in the Graph's own parameters")


class RemovedAlias(_Model):
    name: str
    target: str


class HoistedView(_Model):
    param: str
    source: str


class HoistedAlloc(_Model):
    param: str


class KeptModel(_Model):
    name: str
    kind: Literal["scalar", "view"]
    line: int
    reason: str = Field(description="why leaving it in place is safe on every replay")


class GraphModel(_Model):
    function: str
    params_after: list[str]
    hoisted_scalars: list[HoistedScalar] = []
    removed_aliases: list[RemovedAlias] = []
    kept_invariant: list[str] = []
    hoisted_views: list[HoistedView] = []
    hoisted_allocs: list[HoistedAlloc] = []
    node_count: int | None = Field(description="launched-task count of the rewritten body; null when unbounded")
    params_before: list[str] = Field(default=[], description="the signature as read (SSA suffixes removed)")
    kept: list[KeptModel] = Field(default=[], description="values kept in place because they are replay-invariant")


class LaunchModel(_Model):
    function: str
    line: int
    callee: str
    core_num: str
    outcome: Literal["proven", "guarded", "rejected"]
    counterexample: dict[str, int] | None = None


class EditModel(_Model):
    """One changed function of `legalog fix`'s output: its text in the input, and what replaces it."""

    function: str
    start_line: int
    start_column: int
    end_line: int = Field(description="the region ends just before (end_line, end_column)")
    end_column: int
    char_offset: int
    char_length: int
    replacement: str


class FileModel(_Model):
    path: str
    status: Status
    diagnostics: list[DiagnosticModel] = []
    graphs: list[GraphModel] = []
    launches: list[LaunchModel] = []
    used_dump: str | None = Field(default=None, description="for a passes_dump folder: the dump analysed")
    edits: list[EditModel] = Field(default=[], description="what `legalog fix` replaces, one changed function each")
    ignored: list[str] = Field(default=[], description="the codes whose diagnostics the configuration or "
                               "--select/--ignore hid from this entry (its status is the analysis's, unchanged)")


class ShardEntry(_Model):
    """Where one entry of a shard stands in the whole batch, and the pass position it checks."""

    index: int = Field(description="the entry's position in the unsharded report")
    role: Literal["all", "graph", "spmd", "both"] = "all"
    reason: str = Field(default="", description="for a passes_dump position: why this dump was used")


class RunModel(_Model):
    """What `legalog merge` needs to rebuild the unsharded report exactly (only in a shard report)."""

    legalog: str = Field(description="legalog's version")
    build: str = Field(description="fingerprint of legalog's sources and rules")
    options: dict[str, str | bool | None] = Field(description="the options that change results")
    shard: int = Field(description="this shard's number K of `--shard K/N` (1-based)")
    shards: int = Field(description="N of `--shard K/N`")
    batch_entries: int = Field(description="entries of the whole, unsharded batch")
    batch_digest: str = Field(description="SHA-256 of the whole batch's entry keys")
    entries: list[ShardEntry] = Field(description="one per file, in the order of `files`")
    sources: dict[str, dict[str, str]] = Field(
        default={}, description="the source lines the text report quotes: path -> line number -> text")


class ReportModel(_Model):
    version: Literal[1] = 1  # REPORT_VERSION; a Literal so the schema pins it
    files: list[FileModel]
    run: RunModel | None = Field(default=None, description="present only in a `check --shard` report")

    @model_serializer(mode="wrap")
    def _without_absent_run(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # an unsharded report has no `run` key at all: its bytes stay what they always were
        data: dict[str, Any] = handler(self)
        if data.get("run") is None:
            data.pop("run", None)
        return data
