"""Where legalog keeps what it writes for itself between runs: the result cache
(legalog.surfaces.cache) and the compiled rule programs (legalog.rules.disk_cache).  A module of its
own, below every room, so that both read one answer.

The trust boundary (docs/input-safety.md): what is kept there is believed.  A result-cache entry
is checksummed against a torn write, not signed, so whoever can write the folder can make legalog
report any result for any dump; a kept rule program is a pickle.  So legalog creates the folder
private (0700, its files 0600), and loads a pickle only from a place no other user can change
(`safe_to_load`); a shared result cache (`check --cache-dir`) is trusted as far as everyone who
can write it is."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def cache_dir() -> Path:
    """``$LEGALOG_CACHE_DIR``, else ``$XDG_CACHE_HOME/legalog``, else ``~/.cache/legalog``."""
    if explicit := os.environ.get("LEGALOG_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "legalog"


def private_folder(folder: Path) -> None:
    """Make `folder`, and each folder missing above it, readable by this user alone (0700, as the
    XDG base directory specification asks of what it creates); a folder already there is left
    as it is (a cache shared on purpose)."""
    missing = [p for p in (folder, *folder.parents) if not p.is_dir()]
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by a concurrent run
            path.mkdir(mode=0o700)


def safe_to_load(path: Path) -> bool:
    """Whether no one but this user (and root) can have written the file at `path`: the file and
    every folder above it, as named and as resolved through links, belong to this user or to
    root, and no one else may write them — but for a sticky folder such as /tmp above, where
    others may add names but not replace this user's."""
    if not hasattr(os, "geteuid"):  # no owners to compare (Windows): the user's own profile
        return True
    me = os.geteuid()
    real = Path(os.path.realpath(path))
    folders = {*real.parents, *Path(os.path.abspath(path)).parents}
    try:
        return _only_ours(real.stat(), me, folder=False) and all(
            _only_ours(p.stat(), me, folder=True) for p in folders
        )
    except OSError:
        return False


def _only_ours(found: os.stat_result, me: int, *, folder: bool) -> bool:
    others_write = found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    sticky = folder and found.st_mode & stat.S_ISVTX
    return found.st_uid in (me, 0) and (not others_write or bool(sticky))
