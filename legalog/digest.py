"""SHA-256 for legalog's own keys and checksums (the result cache, the kept rule programs, fix
and shard fingerprints), without OpenSSL where the interpreter has its own.

`hashlib` loads OpenSSL's libcrypto on import: 2-3 ms of a one-file `check` and 3.6 MiB of a
process's resident size (at 200 Graphs, the margin of the peak-RSS goal), for a digest legalog
takes of a few kilobytes.  CPython builds the same SHA-256 in (`_sha2` from 3.12, `_sha256`
before; `hashlib` itself falls back to it): the digests are identical, bit for bit.  What reaching
for that private module buys, measured on 3.11.7 (`python -X importtime -c "import hashlib"`, and
`ru_maxrss` before and after a digest): `hashlib` 2.7-2.9 ms and 3.6 MiB, `_sha256` 0.2 ms and
nothing measurable; a `check` imports `hashlib` nowhere else.  A leaf
module: it knows nothing of legalog.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...


def _builtin() -> Callable[[bytes], Digest]:
    for name in ("_sha2", "_sha256"):  # CPython 3.12 and later; 3.11
        try:
            sha: Callable[[bytes], Digest] = importlib.import_module(name).sha256
            return sha
        except (ImportError, AttributeError):
            continue
    import hashlib  # an interpreter without either: the standard library's own choice

    return hashlib.sha256


sha256: Callable[[bytes], Digest] = _builtin()
