"""`check --shard K/N`: one of N deterministic parts of a batch, for a CI job matrix.

An entry belongs to shard ``1 + int(sha256(key)[:16], 16) % N``, where the key is the entry's
path (a passes_dump folder's, so both of its pass positions go together) relative to the PATH
argument it was found under, in POSIX form; a file given by itself is keyed by its name.  So the
partition does not depend on where a checkout lives, nor on the other files: adding a dump moves
no other dump to another shard.  Each shard also records where its entries stand in the whole
batch (legalog.surfaces.merge rebuilds the unsharded report from that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from legalog.digest import sha256
from legalog.surfaces.dumps import Target

__all__ = ["Shard", "batch_digest", "entry_key", "parse_shard", "select", "shard_of"]

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Shard:
    number: int  # K, from 1
    count: int  # N

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`K/N` with 1 <= K <= N; a ValueError that says what is wrong otherwise."""
    match = _SPEC.match(text)
    if match is None:
        raise ValueError(f"--shard takes K/N (e.g. 2/5), not {text!r}")
    number, count = int(match[1]), int(match[2])
    if not 1 <= number <= count:
        raise ValueError(f"--shard {text}: K must be between 1 and N")
    return Shard(number, count)


def entry_key(target: Target, roots: Sequence[str | Path]) -> str:
    """The entry's path relative to the first PATH argument that holds it, in POSIX form."""
    entry = PurePath(target.folder or target.path)
    for root in map(PurePath, roots):
        if entry == root:
            return entry.name
        if entry.is_relative_to(root):
            return entry.relative_to(root).as_posix()
    return entry.as_posix()


def shard_of(key: str, count: int) -> int:
    """The shard number (from 1) of an entry key among `count` shards."""
    return 1 + int(sha256(_bytes(key)).hexdigest()[:16], 16) % count


def select(targets: Sequence[Target], roots: Sequence[str | Path], shard: Shard) -> list[tuple[int, Target]]:
    """This shard's targets, each with its index in the whole batch."""
    return [
        (i, t) for i, t in enumerate(targets) if shard_of(entry_key(t, roots), shard.count) == shard.number
    ]


def batch_digest(targets: Sequence[Target], roots: Sequence[str | Path]) -> str:
    """Names the whole batch, so that a merge can tell shards of different inputs apart."""
    rows = sorted(f"{entry_key(t, roots)}\0{t.role}\0{PurePath(t.path).name}" for t in targets)
    return sha256(_bytes("\n".join(rows))).hexdigest()


def _bytes(text: str) -> bytes:
    # a file name's own bytes, those that are not UTF-8 too (each read as a lone surrogate)
    return text.encode("utf-8", "surrogateescape")
