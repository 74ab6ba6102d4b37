"""Building a large structure of long-lived objects without the cyclic collector in the way.

CPython's collector runs every few hundred allocations and, as the young objects survive into
older generations, rescans what was built so far: reading a 5 MB dump (`ast.parse` and the IR
model) or lowering it to facts spends most of its time there, and the share grows with the dump
(measured: parse of 1.3 MB 9.5 s with the collector, 2.8 s without).  Those stages build trees and
rows that stay alive and form no reference cycles, so collecting during them frees nothing; so
does the compiled rule engine's evaluation (its rows and indexes live until the answer is read).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
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
