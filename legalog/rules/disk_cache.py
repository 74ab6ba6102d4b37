"""Rule programs kept between processes.  Reading, linting and stratifying the rule files costs a
fresh process about 35 ms (a whole `check` of a small dump is 0.25 s), so each packaged program is
kept, pickled, in the cache folder (legalog.home) under a key naming legalog's version, this
Python, the rule language's own source and every rule file's name and text; the compiled engine
keeps its generated module (source and code, `read_bytes`/`write_bytes`) the same way.

Never trusted blindly: a kept file is used only when its header names the key asked for and its
SHA-256 matches, it unpickles to the classes its reader allows and nothing else (no other global
can be named, so a planted file cannot run code), and the caller then checks what it holds.
Anything else (absent, torn, corrupt, unreadable, another build's) is ignored and rewritten;
a file is written to a temporary name and renamed (atomic), never deleted; a folder that cannot
be written costs only the time.  A kept file is read only where no other user can write
(legalog.home.safe_to_load: the file and every folder above it this user's or root's); what a
planted file cannot do anyway is run code."""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from legalog.digest import sha256
from legalog.files import REPORT_LIMIT, read_regular
from legalog.home import cache_dir, private_folder, safe_to_load
from legalog.version import __version__

_FORMAT = 1  # bump when the file layout changes
_MAGIC = b"legalog rule program\n"


def key(parts: Iterable[str]) -> str:
    """The name of what `parts` describe, with this build and this Python in it."""
    digest = sha256(f"legalog {__version__} format {_FORMAT} python {sys.version_info[:2]}".encode())
    for part in parts:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def _path(k: str, suffix: str) -> Path:
    return cache_dir() / "rules" / f"{k}{suffix}"


def read_bytes(k: str, suffix: str) -> bytes | None:
    """The bytes kept under `k` (in the file `<k><suffix>`), or None when absent, unreadable,
    torn, another key's, failing its checksum, or in a place another user can write."""
    path = _path(k, suffix)
    if not safe_to_load(path):  # a place another user can write: built again instead
        return None
    try:
        data = read_regular(path, REPORT_LIMIT)
    except OSError:
        return None
    head = _MAGIC + k.encode() + b"\n"
    body = data[len(head) + 64 :]
    if not data.startswith(head) or data[len(head) : len(head) + 64] != sha256(body).hexdigest().encode():
        return None
    return body


def write_bytes(k: str, suffix: str, body: bytes) -> None:
    """Keep `body` under `k`; silently nothing when the folder cannot be written."""
    path = _path(k, suffix)
    tmp = path.with_name(f".tmp-{os.getpid()}-{os.urandom(4).hex()}-{path.name}")
    try:
        private_folder(path.parent)
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            out.write(_MAGIC + k.encode() + b"\n" + sha256(body).hexdigest().encode() + body)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def read(k: str, allowed: Mapping[str, frozenset[str]]) -> object | None:
    """What was kept under `k`, or None; `allowed`: module -> the names its pickle may use."""
    if (body := read_bytes(k, ".pickle")) is None:
        return None
    try:
        return _Restricted(io.BytesIO(body), allowed).load()
    except Exception:  # a stale layout, a name not allowed: built again from the text
        return None


def write(k: str, value: object) -> None:
    """Keep `value` under `k`, pickled; silently nothing when the folder cannot be written."""
    write_bytes(k, ".pickle", pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


class _Restricted(pickle.Unpickler):
    def __init__(self, data: io.BytesIO, allowed: Mapping[str, frozenset[str]]) -> None:
        super().__init__(data)
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> object:
        if name not in self._allowed.get(module, frozenset()):
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a rule program")
        return super().find_class(module, name)
