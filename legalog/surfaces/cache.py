"""A content-hash cache of analysis results, for repeated batch runs over the same dumps.

The key is a SHA-256 of: the dump's bytes, legalog's version, a fingerprint of legalog's own
sources and rule files (so an edited rule never serves a stale answer, version bump or not), and
the options (runtime, the rule engine, and for a passes_dump position its folder and role).  An entry is the JSON
of one `FileModel`.  Entries live under, in order of preference, ``$LEGALOG_CACHE_DIR``,
``$XDG_CACHE_HOME/legalog``, ``~/.cache/legalog``; ``LEGALOG_NO_CACHE=1`` turns the cache off.

Writes are atomic (temp file in the same directory, then ``os.replace``), so a reader sees a whole
entry or none; a corrupt or unreadable entry is ignored (and removed) and the dump re-analysed.
Only deterministic results are stored: an `error` result (a crash, an unreadable file) never is.
A cache failure of any kind (read-only disk, full disk) never fails an analysis.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from legalog.rules.engine import resolve_engine

__all__ = ["cache_dir", "cached", "enabled", "fingerprint", "key", "load", "store"]

_PACKAGE = Path(__file__).resolve().parent.parent
_FORMAT = 1  # bump when the entry layout changes
T = TypeVar("T")


def enabled() -> bool:
    return os.environ.get("LEGALOG_NO_CACHE", "") in ("", "0")


def cache_dir() -> Path:
    if explicit := os.environ.get("LEGALOG_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "legalog"


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """legalog's version plus a hash of every source and rule file of the package (once per process)."""
    from legalog.version import __version__

    digest = hashlib.sha256(f"legalog {__version__} format {_FORMAT}\n".encode())
    for path in sorted(p for ext in ("*.py", "*.pyd") for p in _PACKAGE.rglob(ext)):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def key(data: bytes, options: Mapping[str, Any]) -> str:
    """The entry name for these dump bytes under these options."""
    digest = hashlib.sha256(fingerprint().encode() + b"\0")
    digest.update(json.dumps(dict(options), sort_keys=True, default=str).encode() + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _entry(k: str, root: Path | None = None) -> Path:
    return (root or cache_dir()) / k[:2] / f"{k}.json"


def load(k: str, root: Path | None = None) -> dict | None:
    """The stored payload, or None when absent, unreadable or corrupt (a corrupt entry is removed)."""
    path = _entry(k, root)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        entry = json.loads(text)
        if not isinstance(entry, dict) or entry.get("key") != k or not isinstance(entry.get("payload"), dict):
            raise ValueError("not a cache entry")
        return entry["payload"]
    except ValueError:
        try:
            path.unlink()
        except OSError:
            pass
        return None


def store(k: str, payload: Mapping[str, Any], root: Path | None = None) -> bool:
    """Writes an entry atomically; False (never an exception) when the cache cannot be written."""
    path = _entry(k, root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"key": k, "payload": dict(payload)}, out)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except (OSError, TypeError, ValueError):
        return False
    return True


def cached(target: Any, runtime: str, analyse: Callable[[Any, str], T]) -> T:
    """`analyse(target, runtime)` through the cache; `target` is a path or a batch `Target`.

    The result must be a pydantic model (a `FileModel`); it is stored as `model_dump(mode="json")`
    and read back with `model_validate`.  Results with status `error` are not stored.
    """
    if not enabled():
        return analyse(target, runtime)
    path = str(getattr(target, "path", target))
    try:
        data = Path(path).read_bytes()
    except OSError:
        return analyse(target, runtime)  # let the analysis report the unreadable file
    # the engine the analysis runs on ($LEGALOG_ENGINE, as `check --engine` sets it for its workers)
    options = {"runtime": runtime, "engine": resolve_engine(), "path": path,
               "folder": getattr(target, "folder", None), "role": getattr(target, "role", None)}
    k = key(data, options)
    payload = load(k)
    result = analyse(target, runtime) if payload is None else None
    if result is None:
        from legalog.surfaces.report import FileModel

        try:
            return FileModel.model_validate(payload)  # type: ignore[return-value]
        except ValueError:
            result = analyse(target, runtime)
    if getattr(result, "status", "error") != "error":
        store(k, result.model_dump(mode="json"))  # type: ignore[attr-defined]
    return result
