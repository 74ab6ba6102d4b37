"""Project configuration: `[tool.legalog]` in `pyproject.toml` (or `--config FILE`).

    [tool.legalog]
    runtime = "host_build_graph"            # default for every command
    fail-on = "warning"                     # error | warning | info | never
    ignore = ["GB113"]                      # codes (or code prefixes, "GB2") never reported
    per-file-ignores = {"legacy/*.py" = ["GB118"]}
    exclude = ["passes_dump/00_*", "scratch/**"]

The file is found by walking up from the first checked path to the filesystem root: the nearest
`pyproject.toml` with a `[tool.legalog]` table wins (Ruff's rule).  `--config FILE` names it
instead: its `[tool.legalog]` table, or the whole file when it has none (a `legalog.toml`).
Command-line options override the file.  Globs are matched against paths relative to the
file's folder (`*` crosses folders, as in Ruff); a glob without a `/` also matches a file name.
An unknown key, value or code is a `ConfigError` naming the file and line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from legalog.analyzer.codes import CODES
from legalog.surfaces.report import FileModel

TABLE = "tool.legalog"


class ConfigError(Exception):
    """A configuration file legalog cannot use; the message starts with `file:line:`."""


class Settings(BaseModel):
    """The `[tool.legalog]` table, as written (keys in kebab-case)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runtime: Literal["host_build_graph", "tensormap_and_ringbuffer"] | None = None
    fail_on: Literal["error", "warning", "info", "never"] | None = Field(default=None, alias="fail-on")
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = Field(default_factory=dict, alias="per-file-ignores")
    exclude: tuple[str, ...] = ()

    @field_validator("ignore")
    @classmethod
    def _known_codes(cls, codes: tuple[str, ...]) -> tuple[str, ...]:
        for code in codes:
            _check_code(code)
        return codes

    @field_validator("per_file_ignores")
    @classmethod
    def _known_file_codes(cls, table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for codes in table.values():
            for code in codes:
                _check_code(code)
        return table


def _check_code(code: str) -> None:
    if not any(known.startswith(code) for known in CODES) or not code:
        raise ValueError(f"unknown code {code!r} (see `legalog rule --all`)")


@dataclass(frozen=True, slots=True)
class Config:
    """Settings and where they came from (None: no file, every default)."""

    settings: Settings
    path: Path | None = None

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def ignored(self, file: str) -> tuple[str, ...]:
        """Codes not reported for `file`: `ignore` plus every matching `per-file-ignores` entry."""
        rel = self._relative(file)
        extra = [c for glob, codes in self.settings.per_file_ignores.items() if _matches(rel, glob) for c in codes]
        return self.settings.ignore + tuple(extra)

    def excluded(self, file: str) -> bool:
        rel = self._relative(file)
        return any(_matches(rel, glob) for glob in self.settings.exclude)

    def _relative(self, file: str) -> str:
        path = Path(file).resolve()
        try:
            return path.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


def _matches(rel: str, glob: str) -> bool:
    pattern = glob.rstrip("/")
    if fnmatch(rel, pattern) or fnmatch(rel, pattern + "/*"):
        return True
    return "/" not in pattern and fnmatch(rel.rsplit("/", 1)[-1], pattern)


def find(start: str | Path) -> Path | None:
    """The nearest `pyproject.toml` with a `[tool.legalog]` table, walking up from `start`."""
    here = Path(start).resolve()
    for folder in [here, *here.parents] if here.is_dir() else list(here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _has_table(candidate):
            return candidate
    return None


def _has_table(path: Path) -> bool:
    try:
        return re.search(r"^\s*\[\s*tool\s*\.\s*legalog\s*\]", path.read_text(encoding="utf-8"), re.MULTILINE) is not None
    except (OSError, UnicodeDecodeError):
        return False


def load(path: Path, explicit: bool = False) -> Config:
    """Read and validate one configuration file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read the configuration: {err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = re.search(r"line (\d+)", str(err))
        where = line.group(1) if line else max(len(text.splitlines()), 1)  # "at end of document"
        raise ConfigError(f"{path}:{where}: not valid TOML: {err}") from None
    table = data.get("tool", {}).get("legalog")
    if table is None:
        if not explicit:
            return Config(Settings(), None)
        table, section = data, None
    else:
        section = TABLE
    if not isinstance(table, dict):
        raise ConfigError(f"{path}:1: [{TABLE}] must be a table")
    try:
        return Config(Settings.model_validate(table), path)
    except ValidationError as err:
        problem = err.errors()[0]
        key = str(problem["loc"][0]) if problem["loc"] else ""
        raise ConfigError(f"{path}:{_line_of(text, section, key, problem)}: {_describe(key, problem)}") from None


def _describe(key: str, problem: Any) -> str:
    if problem["type"] == "extra_forbidden":
        return f"unknown key `{key}` in [{TABLE}] (known: {', '.join(_KEYS)})"
    message = str(problem["msg"]).removeprefix("Value error, ")
    return f"`{key}`: {message}"


_KEYS = ("runtime", "fail-on", "ignore", "per-file-ignores", "exclude")


def _line_of(text: str, section: str | None, key: str, problem: Any) -> int:
    """The line the problem is on: the offending code's, else its key's, else the table header's."""
    lines = text.splitlines()
    start = 0
    if section is not None:
        header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(map(re.escape, section.split("."))) + r"\s*\]")
        start = next((i for i, line in enumerate(lines) if header.match(line)), 0)
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*\[", lines[i])), len(lines))
    value = problem.get("input")
    if code := re.search(r"unknown code '([^']*)'", str(problem["msg"])):
        value = code.group(1)
    needles = [f'"{value}"', f"'{value}'"] if isinstance(value, str) else []
    needles += [f"{key} =", f"{key}=", f'"{key}"']
    for needle in needles:
        for i in range(start, end):
            if needle in lines[i]:
                return i + 1
    return start + 1


def resolve(paths: Iterable[str], config_file: str | None) -> Config:
    """The configuration for a run: `--config FILE`, else the nearest one above the first path."""
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise ConfigError(f"{config_file}: no such configuration file")
        return load(path, explicit=True)
    first = next(iter(paths), None)
    found = find(first if first is not None else Path.cwd())
    return load(found) if found is not None else Config(Settings())


def without_ignored(files: Iterable[FileModel], config: Config) -> Iterator[FileModel]:
    """The report with every ignored code's diagnostics removed, entry by entry as `files` yields
    them (a file's status is the analysis's verdict and stays: `fix` still refuses a rejected program)."""
    for f in files:
        ignored = config.ignored(f.used_dump or f.path)
        if ignored:
            f = f.model_copy(update={"diagnostics": [d for d in f.diagnostics if not d.code.startswith(ignored)]})
        yield f
