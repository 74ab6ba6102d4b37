"""A content-addressed cache of analysis results, shareable by many processes and machines.

The key is a SHA-256 of: the dump's bytes, legalog's version, a fingerprint of legalog's own
sources and rule files (so an edited rule never serves a stale answer, version bump or not), and
the options that change a result (`key_options`: the runtime, the path the entry is reported
under as given on the command line, and for a passes_dump position its folder and role; the
rule engine).  Paths as given are relative in CI, so machines that check the same checkout the
same way share entries.  An entry is the JSON of one `FileModel` with a SHA-256 of it.
Entries live under ``check --cache-dir DIR`` or, in order of preference, ``$LEGALOG_CACHE_DIR``,
``$XDG_CACHE_HOME/legalog``, ``~/.cache/legalog``; ``LEGALOG_NO_CACHE=1`` turns the cache off.

Safe with concurrent writers: an entry is written to a temporary file in its own directory and
renamed over the entry (atomic on POSIX file systems, NFS included), so a reader sees a whole
entry or none, and two writers of one key write the same bytes.  An entry that does not parse,
names another key or fails its checksum (a torn write after a machine crash) is ignored and
rewritten by the next analysis; it is never deleted, which could race a writer's fresh entry.
Only deterministic results are stored: an `error` result (a crash, an unreadable file) never is.
A cache failure of any kind (read-only disk, full disk) never fails an analysis.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from legalog.digest import sha256
from legalog.files import REPORT_LIMIT, read_regular
from legalog.home import cache_dir, private_folder
from legalog.rules.engine_names import resolve_engine

if TYPE_CHECKING:
    from legalog.surfaces.dumps import Target

__all__ = [
    "cache_dir",
    "cached",
    "default_root",
    "enabled",
    "fingerprint",
    "key",
    "key_options",
    "load",
    "store",
]

_PACKAGE = Path(__file__).resolve().parent.parent
_FORMAT = 2  # bump when the entry layout changes
T = TypeVar("T")


def enabled() -> bool:
    return os.environ.get("LEGALOG_NO_CACHE", "") in ("", "0")


def default_root() -> str | None:
    """The cache directory this process's environment asks for; None when the cache is off."""
    return str(cache_dir()) if enabled() else None


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """legalog's version plus a hash of every source and rule file of the package (once per process)."""
    from legalog.version import __version__

    digest = sha256(f"legalog {__version__} format {_FORMAT}\n".encode())
    for path in sorted(p for ext in ("*.py", "*.pyd") for p in _PACKAGE.rglob(ext)):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + sha256(data).digest())
    return digest.hexdigest()


def key(data: bytes, options: Mapping[str, Any]) -> str:
    """The entry name for these dump bytes under these options."""
    digest = sha256(fingerprint().encode() + b"\0")
    digest.update(json.dumps(dict(options), sort_keys=True, default=str).encode() + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _entry(k: str, root: Path | str | None = None) -> Path:
    return Path(root or cache_dir()) / k[:2] / f"{k}.json"


def load(k: str, root: Path | str | None = None) -> dict | None:
    """The stored payload, or None when absent, unreadable, corrupt or torn (left for a rewrite)."""
    try:
        entry = json.loads(read_regular(_entry(k, root), REPORT_LIMIT))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(entry, dict)
        or entry.get("key") != k
        or not isinstance(payload := entry.get("payload"), dict)
    ):
        return None
    return payload if entry.get("sha256") == _checksum(payload) else None


def _checksum(payload: Mapping[str, Any]) -> str:
    return sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def store(k: str, payload: Mapping[str, Any], root: Path | str | None = None) -> bool:
    """Writes an entry atomically; False (never an exception) when the cache cannot be written."""
    path = _entry(k, root)
    try:
        private_folder(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"key": k, "sha256": _checksum(payload), "payload": dict(payload)}, out)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except (OSError, TypeError, ValueError):
        return False
    return True


def key_options(target: Target, runtime: str, engine: str | None = None) -> dict[str, Any]:
    """What besides the dump's bytes decides a result: one entry per option (an engine, a config
    hash: one line each).  A passes_dump position keeps only its pass's findings, hence the role;
    a `validate` pair's result depends on BEFORE's bytes too."""
    # the engine the analysis runs on (`engine`, else $LEGALOG_ENGINE as `check --engine` sets it)
    options: dict[str, Any] = {
        "runtime": runtime,
        "path": target.path,
        "folder": target.folder,
        "role": target.role,
        "engine": resolve_engine(engine),
    }
    if target.before is not None:  # `validate`: the input judged against is part of the question
        options |= {"before": target.before, "before_bytes": _digest_of(target.before)}
        options |= {"after_missing": target.after_missing}
    return options


def _digest_of(path: str) -> str | None:
    try:
        return sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None  # unreadable: an `error` entry, which is never stored


def cached(
    target: Any,
    runtime: str,
    analyse: Callable[[Any, str], T],
    *,
    root: Path | str | None = None,
    data: bytes | None = None,
    engine: str | None = None,
) -> T:
    """`analyse(target, runtime)` through the cache; `target` is a path or a batch `Target`.

    `root` is the cache directory (default: `default_root()`; no caching when that is None);
    `data` the dump's bytes when the caller has them (default: read from the target's path);
    `engine` the one `analyse` runs on (default: $LEGALOG_ENGINE, else compiled).
    The result must be a report entry (a `FileModel`); it is stored as `report.to_dict`
    and read back with `report.from_own` (the key names this build).  `error` results are not stored.
    """
    from legalog.surfaces.dumps import Target
    from legalog.surfaces.report import FileModel, from_own, to_dict

    root = root if root is not None else default_root()
    where = target if isinstance(target, Target) else Target(str(target))
    if root is None:
        return analyse(target, runtime)
    if data is None:
        try:
            data = read_regular(where.path)
        except OSError:
            return analyse(target, runtime)  # let the analysis report the unreadable file
    k = key(data, key_options(where, runtime, engine))
    if (payload := load(k, root)) is not None:
        try:
            hit = from_own(FileModel, payload)
        except (TypeError, KeyError, ValueError):
            pass  # a stale layout: analysed again and rewritten below
        else:
            return hit  # type: ignore[return-value]
    result = analyse(target, runtime)
    if getattr(result, "status", "error") != "error":
        store(k, to_dict(result), root)  # type: ignore[arg-type]
    return result
