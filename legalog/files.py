"""How legalog reads a file it is given (a dump, a configuration, a shard report) or keeps for
itself (a result-cache entry, a kept rule program): a regular file only, up to a size, never
waiting.  A module of its own, below every room, so the reader, the surfaces and the rule cache
read one way (docs/input-safety.md).

A FIFO would block the first `read` (and `--timeout` with it: the read happens before the
time-limited analysis starts), a device such as /dev/zero never ends, and a file of gigabytes
would be read whole before anything looks at it.  So the file is opened without waiting
(`O_NONBLOCK`: opening a FIFO with no writer returns at once), what was opened is checked with
`fstat` (what was checked is what is read, whatever the path points to a moment later), and at
most `limit` bytes are read.  Whatever is refused is an `OSError` naming the path, whose
`strerror` says why, so every caller's existing handling of an unreadable file applies."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MIB = 1 << 20
# What a person writes or PyPTO prints: the largest real dump is 66 KB, the 5 MB synthetic one
# with 1,656 functions is far past any real program; parsing 64 MiB takes minutes and gigabytes.
INPUT_LIMIT = 64 * MIB
# What legalog writes itself: a shard report quotes each file's findings and source lines (about
# half a dump's size an entry), a cache entry is one file's entry.
REPORT_LIMIT = 1024 * MIB

_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def kind(mode: int) -> str:
    """What a non-regular file is, in words: `a FIFO`, `a character device`, ..."""
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def size_text(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit} bytes"


def read_regular(path: str | Path, limit: int = INPUT_LIMIT) -> bytes:
    """The bytes of the regular file at `path` (through symbolic links), at most `limit` of them;
    an OSError naming `path` for anything else (not there, not a regular file, too large)."""
    _regular(os.stat(path), path)  # a device is never even opened (a socket cannot be)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        found = _regular(os.fstat(fd), path)  # what was opened, whatever the path names now
        if found.st_size > limit:
            raise _too_large(path, limit)
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise _too_large(path, limit)
    return data


def _regular(found: os.stat_result, path: str | Path) -> os.stat_result:
    if not stat.S_ISREG(found.st_mode):
        raise OSError(
            errno.EINVAL,
            f"not a regular file ({kind(found.st_mode)}): legalog reads only regular files",
            str(path),
        )
    return found


def _too_large(path: str | Path, limit: int) -> OSError:
    return OSError(
        errno.EFBIG,
        f"larger than {size_text(limit)}, the most legalog reads of one file (docs/input-safety.md)",
        str(path),
    )
