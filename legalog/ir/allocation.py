"""Building a large structure of long-lived objects without the cyclic collector in the way, and
handing a large evaluation's freed memory back to the system.

CPython's collector runs every few hundred allocations and, as the young objects survive into
older generations, rescans what was built so far: reading a 5 MB dump (`ast.parse` and the IR
model) or lowering it to facts spends most of its time there, and the share grows with the dump
(measured: parse of 1.3 MB 9.5 s with the collector, 2.8 s without).  Those stages build trees and
rows that stay alive and form no reference cycles, so collecting during them frees nothing.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (nested use is fine), then restore it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Everything allocated meanwhile sits in the youngest generation, and the first
        # collection after `enable` would scan it all.  freeze + unfreeze moves every tracked
        # object into the oldest generation without a scan: it is collected (cycles too) by the
        # next full collection, which CPython runs only once the old generation grew by 25%.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's `malloc_trim`; elsewhere nothing).
    A freed clingo `Control` leaves its grounder's memory in the allocator's arenas, where the
    process's resident size keeps it: at 200 Graphs 40 MiB after each evaluation, which the
    stages after it (the verifier's evaluation, printing and reading back the output) stacked
    their own peaks on.  It walks the heap (about 2 ms at 200 Graphs), so callers use it after
    large evaluations only."""
    if (trim := _malloc_trim()) is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes  # only a process with a large evaluation pays for it

    try:
        process = ctypes.CDLL(None)  # the symbols the process has loaded, its C library's among them
    except OSError:  # no dynamic loader to ask (a static build): nothing to give back
        return None
    return getattr(process, "malloc_trim", None)  # glibc's alone
