"""legalog.ir.allocation: the collector paused for a block, and freed C heap handed back."""

from __future__ import annotations

import ctypes
import gc
import sys
from pathlib import Path

import pytest

from legalog.ir.allocation import _malloc_trim, bulk_allocation, return_freed_memory


def test_bulk_allocation_pauses_the_collector_and_restores_it_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), bulk_allocation():
        assert not gc.isenabled()
        with bulk_allocation():  # nested: still paused inside, still paused after the inner block
            assert not gc.isenabled()
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()


def _resident_mib() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or _malloc_trim() is None, reason="glibc's malloc_trim only"
)
def test_freed_heap_pages_go_back_to_the_system() -> None:
    """What a freed clingo Control leaves: 64 MiB of small blocks freed under one still in use at
    the heap's top, which glibc keeps resident until it is asked to trim."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(4096) for _ in range(16_384)]
    for block in blocks:
        ctypes.memset(block, 1, 4096)  # touched: resident
    top = libc.malloc(4096)
    for block in blocks:
        libc.free(block)
    before = _resident_mib()
    return_freed_memory()
    after = _resident_mib()
    libc.free(top)
    assert before - after > 32, (before, after)


def test_returning_freed_memory_is_harmless_anywhere() -> None:
    return_freed_memory()
    return_freed_memory()  # twice, with nothing freed in between
