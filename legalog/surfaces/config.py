"""Project configuration: `[tool.legalog]` in `pyproject.toml`, a `legalog.toml`, or `--config FILE`.

    [tool.legalog]
    runtime = "host_build_graph"            # default for every command
    fail-on = "warning"                     # error | warning | info | never
    select = ["GB1", "SP"]                  # codes (or prefixes) reported (default: all)
    ignore = ["GB113"]                      # codes (or code prefixes, "GB2") never reported
    per-file-ignores = {"legacy/*.py" = ["GB118"]}
    extend-exclude = ["passes_dump/00_*", "scratch/**"]   # added to `exclude`'s defaults
    respect-gitignore = true                # a folder search skips what .gitignore ignores

A folder search skips, as Ruff's does, what `exclude` names (by default the usual folders:
`.venv`, `build`, `node_modules`, ... `DEFAULT_EXCLUDE`; setting `exclude` replaces them,
`extend-exclude` adds to them) and, inside a git repository, what its `.gitignore` files ignore.

Each file's configuration is found as Ruff finds it: walking up from the file's folder, the
nearest folder with a `legalog.toml` (the whole file is the table, or its `[tool.legalog]`) or a
`pyproject.toml` holding a `[tool.legalog]` table (any subtable counts: read with `tomllib`)
wins; a `pyproject.toml` that is not valid TOML is an error, never skipped.  `--config FILE`
names one configuration for every file (`--config /dev/null`: none, every default).  What applies to the whole run (`runtime`, `fail-on`)
comes from the first path's configuration.  Command-line options override the file (`--select`,
`--ignore`, `--per-file-ignores` replace its lists; `--extend-ignore` adds to `ignore`).  Globs
are matched against paths relative to the file's folder (`*` crosses folders, as in Ruff); a glob
without a `/` also matches a file name.  An unknown key, value or code is a `ConfigError`
naming the file and line.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, ClassVar, Literal

from legalog.analyzer.codes import CODES
from legalog.files import kind, read_regular
from legalog.surfaces.gitignore import GitIgnores
from legalog.surfaces.report import FileModel

TABLE = "tool.legalog"


# Ruff's default `exclude`: folders (and their files) no folder search enters
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


class ConfigError(Exception):
    """A configuration file legalog cannot use; the message starts with `file:line:`."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The `[tool.legalog]` table, as written (keys in kebab-case).  A plain dataclass: pydantic
    loads only to validate a table that is there (`load`), never for a run without one."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    runtime: Literal["host_build_graph", "tensormap_and_ringbuffer"] | None = None
    fail_on: Literal["error", "warning", "info", "never"] | None = field(
        default=None, metadata={"alias": "fail-on"}
    )
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(
        default_factory=dict, metadata={"alias": "per-file-ignores"}
    )
    exclude: tuple[str, ...] | None = None  # None: DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = field(default=(), metadata={"alias": "extend-exclude"})
    respect_gitignore: bool = field(default=True, metadata={"alias": "respect-gitignore"})


def _validated(table: dict[str, Any]) -> Settings | dict[str, Any]:
    """The table as Settings, or its first problem as pydantic words it (`loc`, `msg`, `type`,
    `input`): a wrong key or type from pydantic, an unknown code from `_check_code`."""
    from pydantic import TypeAdapter, ValidationError

    try:
        settings: Settings = TypeAdapter(Settings).validate_python(table)
    except ValidationError as err:
        return dict(err.errors()[0])
    lists = [
        ("select", settings.select),
        ("ignore", settings.ignore),
        *(("per-file-ignores", codes) for codes in settings.per_file_ignores.values()),
    ]
    for key, codes in lists:
        for code in codes:
            try:
                _check_code(code)
            except ValueError as err:
                return {"loc": (key,), "msg": f"Value error, {err}", "type": "value_error", "input": codes}
    return settings


def _check_code(code: str) -> None:
    """The one check of a code or code prefix, for the file's lists and the command line's alike
    (codes are upper case, as `legalog rule --all` lists them, in both)."""
    if not code:
        raise ValueError("an empty code (a comma too many?)")
    if not any(known.startswith(code) for known in CODES):
        upper = code.upper()
        known_upper = any(known.startswith(upper) for known in CODES)
        hint = f"codes are upper case: {upper!r}" if known_upper else "see `legalog rule --all`"
        raise ValueError(f"unknown code {code!r} ({hint})")


# what a user cannot hide: a file legalog could not read or analyse is reported whatever the configuration
NEVER_HIDDEN = ("PARSE", "INTERNAL", "TIMEOUT")


@dataclass(frozen=True, slots=True)
class Config:
    """Settings and where they came from (None: no file, every default)."""

    settings: Settings
    path: Path | None = None

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def per_file_ignored(self, file: str) -> tuple[str, ...]:
        """The codes of every `per-file-ignores` entry matching `file`."""
        return _per_file(self.settings.per_file_ignores, _relative(file, self.root))

    def excluded(self, file: str) -> bool:
        rel = _relative(file, self.root)
        settings = self.settings
        globs = (DEFAULT_EXCLUDE if settings.exclude is None else settings.exclude) + settings.extend_exclude
        return any(_matches(rel, glob) for glob in globs)


def _relative(file: str, root: Path) -> str:
    path = Path(file).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _per_file(table: dict[str, tuple[str, ...]], rel: str) -> tuple[str, ...]:
    return tuple(c for glob, codes in table.items() if _matches(rel, glob) for c in codes)


def _matches(rel: str, glob: str) -> bool:
    pattern = glob.rstrip("/")
    if fnmatch(rel, pattern) or fnmatch(rel, pattern + "/*"):
        return True
    return "/" not in pattern and fnmatch(rel.rsplit("/", 1)[-1], pattern)


CONFIG_FILES = ("legalog.toml", "pyproject.toml")  # in one folder, the first wins (as Ruff's ruff.toml)


def find(start: str | Path) -> Path | None:
    """The configuration nearest above `start` (a file's folder, or a folder itself)."""
    here = Path(start).resolve()
    return _nearest(here if here.is_dir() else here.parent)


@functools.lru_cache(maxsize=4096)
def _nearest(folder: Path) -> Path | None:
    # cached by folder: a batch of thousands of dumps in a few folders reads each file once
    for name in CONFIG_FILES:
        candidate = folder / name
        try:
            there = _is_config_file(candidate)
        except PermissionError:
            # a folder that cannot be searched: nothing in it can be read either (the batch
            # reports the folder itself), so its own entry is configured from above
            break
        if there and (name == "legalog.toml" or _table(_read_toml(candidate)) is not None):
            return candidate
    return _nearest(folder.parent) if folder.parent != folder else None


def _is_config_file(candidate: Path) -> bool:
    """Whether a configuration file is there to read; a ConfigError for one that is there but
    cannot be (a folder, a FIFO, a device, a link to nothing): never skipped silently."""
    try:
        mode = candidate.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        if candidate.is_symlink():
            raise ConfigError(
                f"{candidate}: a symbolic link to nothing ({os.readlink(candidate)}): "
                "remove it, or point it at the configuration file"
            ) from None
        return False
    if not stat.S_ISREG(mode):
        raise ConfigError(
            f"{candidate}: {kind(mode)}, not a configuration file (legalog reads a regular file)"
        )
    return True


def _table(data: dict[str, Any]) -> Any:
    tool = data.get("tool")
    return tool.get("legalog") if isinstance(tool, dict) else None


@functools.lru_cache(maxsize=256)
def _read_text(path: Path) -> str:
    try:
        return read_regular(path).decode("utf-8")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the configuration: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: cannot read the configuration: {err}") from None


@functools.lru_cache(maxsize=256)
def _read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as `tomllib` reads it; a ConfigError at the file:line of a syntax error."""
    text = _read_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = re.search(r"line (\d+)", str(err))  # tomllib's message is the only place it says (3.11)
        where = line.group(1) if line else max(len(text.splitlines()), 1)  # "at end of document"
        raise ConfigError(f"{path}:{where}: not valid TOML: {err}") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise ConfigError(
            f"{path}:{_deepest_line(text)}: not valid TOML: arrays or inline tables nested "
            "deeper than Python's TOML reader goes"
        ) from None


def _deepest_line(text: str) -> int:
    """The line where brackets first nest deepest (strings not told apart: only a text that
    nests past the reader's depth asks)."""
    depth = deepest = 0
    at = 1
    for number, line in enumerate(text.splitlines(), start=1):
        for char in line.split("#", 1)[0]:
            depth += (char in "[{") - (char in "]}")
            if depth > deepest:
                deepest, at = depth, number
    return at


@functools.lru_cache(maxsize=256)
def load(path: Path, explicit: bool = False) -> Config:
    """Read and validate one configuration file; `explicit` (`--config`) or a `legalog.toml`:
    its `[tool.legalog]` table, or the whole file when it has none."""
    data = _read_toml(path)
    table = _table(data)
    if table is None:
        if not explicit and path.name != "legalog.toml":
            return Config(Settings(), None)
        table, section = data, None
    else:
        section = TABLE
    if not isinstance(table, dict):
        raise ConfigError(f"{path}:1: [{TABLE}] must be a table")
    problem = _validated(table)
    if isinstance(problem, Settings):
        return Config(problem, path)
    key = str(problem["loc"][0]) if problem["loc"] else ""
    text = _read_text(path)
    raise ConfigError(f"{path}:{_line_of(text, section, key, problem)}: {_describe(key, problem)}")


def _describe(key: str, problem: Any) -> str:
    if problem["type"] in (
        "extra_forbidden",
        "unexpected_keyword_argument",
    ):  # the latter: a field's own name, not its key
        close = difflib.get_close_matches(key.replace("_", "-"), _KEYS, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        return f"unknown key `{key}` in [{TABLE}]{hint} (known: {', '.join(_KEYS)})"
    message = str(problem["msg"]).removeprefix("Value error, ")
    return f"`{key}`: {message}"


_KEYS = (
    "runtime",
    "fail-on",
    "select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "respect-gitignore",
)


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


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the command line says over every configuration file (None: the file's own)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] | None = None  # globs relative to the working folder

    def __post_init__(self) -> None:
        for option, codes in (
            ("--select", self.select or ()),
            ("--ignore", self.ignore or ()),
            ("--extend-ignore", self.extend_ignore),
            *(("--per-file-ignores", codes) for codes in (self.per_file_ignores or {}).values()),
        ):
            for code in codes:
                try:
                    _check_code(code)
                except ValueError as err:
                    raise ConfigError(f"{option}: {err}") from None


@dataclass(frozen=True)
class Project:
    """The configuration of a run: each file's own (nearest above it, or `--config`'s), the
    command line over it."""

    explicit: Config | None = None  # --config
    first: Config = Config(Settings())  # the first path's: `runtime` and `fail-on`
    overrides: Overrides = Overrides()
    gitignores: GitIgnores = field(default_factory=GitIgnores, compare=False, repr=False)

    @property
    def settings(self) -> Settings:
        return self.first.settings

    def config_of(self, file: str) -> Config:
        if self.explicit is not None:
            return self.explicit
        found = find(file)
        return load(found) if found is not None else Config(Settings())

    def excluded(self, file: str) -> Config | None:
        """The configuration that excludes `file` (None: it is not excluded)."""
        config = self.config_of(file)
        return config if config.excluded(file) else None

    def skipped(self, path: Path, is_dir: bool) -> bool:
        """Whether a folder search leaves out `path`, found under a folder given: with
        `respect-gitignore`, what its repository's `.gitignore` ignores, and a folder the
        `exclude` / `extend-exclude` of the configuration holding it names (never entered).  A
        file `exclude` names is `excluded`'s, whose callers say what they left out."""
        config = self.config_of(str(path.parent))
        return (is_dir and config.excluded(str(path))) or (
            config.settings.respect_gitignore and self.gitignores.ignored(path, is_dir)
        )

    def hidden(self, file: str, code: str) -> bool:
        """Whether a diagnostic of `code` in `file` is not reported."""
        if code.startswith(NEVER_HIDDEN):
            return False
        config, cli = self.config_of(file), self.overrides
        select = cli.select if cli.select is not None else config.settings.select
        if select and not code.startswith(select):
            return True
        ignore = (cli.ignore if cli.ignore is not None else config.settings.ignore) + cli.extend_ignore
        if cli.per_file_ignores is None:
            per_file = config.per_file_ignored(file)
        else:  # the command line's globs are relative to the working folder
            per_file = _per_file(cli.per_file_ignores, _relative(file, Path.cwd()))
        return code.startswith(ignore + per_file)


def resolve(paths: Iterable[str], config_file: str | None, overrides: Overrides = Overrides()) -> Project:
    """The configuration for a run: `--config FILE` for every file, else each file's nearest."""
    if config_file is not None:
        if _is_devnull(config_file):  # `--config /dev/null`: no configuration, every default
            return Project(Config(Settings()), Config(Settings()), overrides)
        if not os.path.lexists(config_file):
            raise ConfigError(f"{config_file}: no such configuration file")
        config = load(Path(config_file), explicit=True)  # not a regular file: said by the reader
        return Project(config, config, overrides)
    first = next(iter(paths), None)
    found = find(first if first is not None else Path.cwd())
    return Project(None, load(found) if found is not None else Config(Settings()), overrides)


def _is_devnull(name: str) -> bool:
    try:
        return os.path.samefile(name, os.devnull)
    except OSError:
        return False


def without_ignored(files: Iterable[FileModel], project: Project) -> Iterator[FileModel]:
    """The report with every hidden diagnostic removed, entry by entry as `files` yields them (a
    file's status is the analysis's verdict and stays: `fix` still refuses a rejected program);
    `ignored` names the codes hidden, so a rejected file with nothing left to show says why."""
    for f in files:
        source = f.used_dump or f.path
        hidden = {d.code for d in f.diagnostics if project.hidden(source, d.code)}
        if hidden:
            f = replace(
                f, diagnostics=[d for d in f.diagnostics if d.code not in hidden], ignored=sorted(hidden)
            )
        yield f
