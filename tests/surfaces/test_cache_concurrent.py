"""The result cache shared by many processes: concurrent writers of the same keys never leave a
partial or wrong entry, and a corrupt or torn entry is ignored and rewritten."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest

from legalog.surfaces import batch, cache
from legalog.surfaces.dumps import Target
from legalog.surfaces.report import to_dict

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYS = [cache.key(f"dump {i}".encode(), {"runtime": "host_build_graph"}) for i in range(8)]
WRITERS, ROUNDS = 6, 40


def _payload(k: str) -> dict:
    # large enough that a write takes several syscalls, so a torn read would show
    return {"key_echo": k, "rows": [f"{k}-{n}" for n in range(2000)]}


def _hammer(root: str, seed: int) -> list[str]:
    """Write and read every key, over and over; returns what went wrong (nothing, we hope)."""
    wrong = []
    for r in range(ROUNDS):
        for k in KEYS[seed % len(KEYS) :] + KEYS[: seed % len(KEYS)]:
            if not cache.store(k, _payload(k), root):
                wrong.append(f"store failed for {k}")
            # once any writer has stored a key, every reader sees the whole entry: never a
            # missing one (an unlink or a truncation in flight) nor a partial one
            if cache.load(k, root) != _payload(k):
                wrong.append(f"round {r}: a missing, partial or foreign entry for {k}")
    return wrong


def _check_dumps(args: tuple[str, list[str]]) -> list[dict]:
    root, paths = args
    return [to_dict(batch.analyse_job(batch.Job(Target(p), "host_build_graph", root))) for p in paths]


@pytest.mark.slow
def test_concurrent_writers_of_the_same_keys(tmp_path: Path) -> None:
    root = str(tmp_path / "cache")
    with multiprocessing.get_context("fork").Pool(WRITERS) as pool:
        problems = pool.starmap(_hammer, [(root, s) for s in range(WRITERS)])
    assert problems == [[]] * WRITERS
    assert all(cache.load(k, root) == _payload(k) for k in KEYS)
    assert not list(Path(root).rglob(".tmp-*"))  # no partial entry left behind
    assert len(list(Path(root).rglob("*.json"))) == len(KEYS)


def test_processes_checking_the_same_dumps_share_one_cache(tmp_path: Path) -> None:
    dumps = []
    for name in ("row_shift.py", "mixed_offsets.py"):
        dumps.append(str(tmp_path / name))
        shutil.copy(EXAMPLES / name, dumps[-1])
    root = str(tmp_path / "cache")
    with multiprocessing.get_context("fork").Pool(4) as pool:
        runs = pool.map(_check_dumps, [(root, dumps)] * 4)
    assert all(run == runs[0] for run in runs)
    assert [r["status"] for r in runs[0]] == ["rewritten", "rejected"]
    entries = list(Path(root).rglob("*.json"))
    assert len(entries) == 2 and not list(Path(root).rglob(".tmp-*"))
    assert _check_dumps((root, dumps)) == runs[0]  # and the entries read back as the same results


def test_a_corrupt_or_torn_entry_is_ignored_and_rewritten(tmp_path: Path) -> None:
    dump = tmp_path / "d.py"
    shutil.copy(EXAMPLES / "row_shift.py", dump)
    root = str(tmp_path / "cache")
    calls: list[int] = []

    def analyse(target, runtime):  # type: ignore[no-untyped-def]
        calls.append(1)
        return batch.analyse_target(target, runtime)

    first = cache.cached(Target(str(dump)), "host_build_graph", analyse, root=root)
    (entry,) = Path(root).rglob("*.json")
    whole = json.loads(entry.read_text())
    torn = dict(whole, payload=dict(whole["payload"], status="legal"))  # parses, but not what was written
    for damage in ("{not json", entry.read_text()[: len(entry.read_text()) // 2], json.dumps(torn), "[]"):
        entry.write_text(damage)
        before = len(calls)
        assert cache.cached(Target(str(dump)), "host_build_graph", analyse, root=root) == first
        assert len(calls) == before + 1  # ignored: analysed again ...
        assert json.loads(entry.read_text()) == whole  # ... and rewritten whole
    assert cache.cached(Target(str(dump)), "host_build_graph", analyse, root=root) == first
    assert len(calls) == 5  # the rewritten entry answers
