"""legalog.surfaces.cache: hits, misses, corrupt entries, options in the key."""

from __future__ import annotations

from pathlib import Path

from legalog.surfaces import batch, cache

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "row_shift.py"


def test_hit_miss_corrupt_and_options(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("LEGALOG_NO_CACHE", raising=False)
    dump = tmp_path / "d.py"
    dump.write_bytes(EXAMPLE.read_bytes())
    calls = []

    def analyse(target, runtime):
        calls.append(runtime)
        return batch.analyse_file(target, runtime)

    first = cache.cached(str(dump), "host_build_graph", analyse)
    again = cache.cached(str(dump), "host_build_graph", analyse)
    assert again == first and len(calls) == 1
    cache.cached(str(dump), "tensormap_and_ringbuffer", analyse)  # options are part of the key
    assert len(calls) == 2
    for entry in (tmp_path / "c").rglob("*.json"):
        entry.write_text("{not json")
    assert cache.cached(str(dump), "host_build_graph", analyse) == first and len(calls) == 3
    dump.write_bytes(EXAMPLE.read_bytes() + b"\n# changed\n")  # new bytes: a miss
    cache.cached(str(dump), "host_build_graph", analyse)
    assert len(calls) == 4
    assert not list((tmp_path / "c").rglob(".tmp-*"))  # writes are atomic, no leftovers


def test_disabled(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")
    calls = []
    for _ in range(2):
        cache.cached(
            str(EXAMPLE), "host_build_graph", lambda t, r: calls.append(1) or batch.analyse_file(t, r)
        )
    assert len(calls) == 2 and not (tmp_path / "c").exists()
