"""legalog.collector: the collector paused for a block."""

from __future__ import annotations

import gc

import pytest

from legalog.collector import bulk_allocation


def test_bulk_allocation_pauses_the_collector_and_restores_it_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), bulk_allocation():
        assert not gc.isenabled()
        with bulk_allocation():  # nested: still paused inside, still paused after the inner block
            assert not gc.isenabled()
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()
