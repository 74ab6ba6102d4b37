"""Where legalog keeps what it writes for itself between runs: the result cache
(legalog.surfaces.cache) and the compiled rule programs (legalog.rules.kept).  A module of its
own, below every room, so that both read one answer."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$LEGALOG_CACHE_DIR``, else ``$XDG_CACHE_HOME/legalog``, else ``~/.cache/legalog``."""
    if explicit := os.environ.get("LEGALOG_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "legalog"
