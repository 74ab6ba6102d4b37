"""The external report (`check --format json`), as pydantic models: CONTRACT.md's JSON, versioned,
with a JSON Schema generated from these classes (`legalog schema`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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


class GraphModel(_Model):
    function: str
    params_after: list[str]
    hoisted_scalars: list[HoistedScalar] = []
    removed_aliases: list[RemovedAlias] = []
    kept_invariant: list[str] = []
    hoisted_views: list[HoistedView] = []
    hoisted_allocs: list[HoistedAlloc] = []
    node_count: int | None = Field(description="launched-task count of the rewritten body; null when unbounded")


class LaunchModel(_Model):
    function: str
    line: int
    callee: str
    core_num: str
    outcome: Literal["proven", "guarded", "rejected"]
    counterexample: dict[str, int] | None = None


class FileModel(_Model):
    path: str
    status: Status
    diagnostics: list[DiagnosticModel] = []
    graphs: list[GraphModel] = []
    launches: list[LaunchModel] = []
    used_dump: str | None = Field(default=None, description="for a passes_dump folder: the dump analysed")


class ReportModel(_Model):
    version: Literal[1] = REPORT_VERSION
    files: list[FileModel]
