"""Rule programs kept between processes (legalog.rules.disk_cache): a kept program is the program the
rule files give, and a kept file is never trusted blindly — a torn, corrupt, stale or planted file
is ignored, the program is read from the text again, and the file is rewritten."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

import pytest

from legalog.rules import disk_cache
from legalog.rules.language import RuleProgram, _packaged_program
from legalog.rules.programs import PASS_RULES

load_fresh = _packaged_program.__wrapped__  # what a fresh process does (the per-process cache skipped)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(tmp_path))
    return tmp_path / "rules"


def _same(a: RuleProgram, b: RuleProgram) -> bool:
    return (a.sources, a.rules, a.strata, dict(a.inputs)) == (b.sources, b.rules, b.strata, dict(b.inputs))


def test_a_kept_program_is_the_one_its_files_give(folder: Path) -> None:
    first = load_fresh(PASS_RULES)
    [file] = folder.iterdir()
    again = load_fresh(PASS_RULES)
    assert again is not first and _same(again, first)
    assert _same(again, RuleProgram.from_texts(dict(first.sources)))
    assert list(folder.iterdir()) == [file]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # torn
        lambda data: data[:-10] + b"0123456789",  # corrupt: the checksum fails
        lambda data: b"",
        lambda data: b"not a kept program at all",
    ],
)
def test_a_damaged_file_is_ignored_and_rewritten(folder: Path, damage) -> None:  # type: ignore[no-untyped-def]
    good = load_fresh(PASS_RULES)
    [file] = folder.iterdir()
    whole = file.read_bytes()
    file.write_bytes(damage(whole))
    assert _same(load_fresh(PASS_RULES), good)
    assert file.read_bytes() == whole  # rewritten


def test_a_planted_pickle_runs_nothing(folder: Path, tmp_path: Path) -> None:
    load_fresh(PASS_RULES)
    [file] = folder.iterdir()
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, (f"touch {marker}",))

    body = pickle.dumps(Planted())
    head = file.read_bytes().split(b"\n", 2)  # magic line, key line, then the checksum and body
    file.write_bytes(head[0] + b"\n" + head[1] + b"\n" + hashlib.sha256(body).hexdigest().encode() + body)
    assert _same(load_fresh(PASS_RULES), RuleProgram.from_texts(dict(load_fresh(PASS_RULES).sources)))
    assert not marker.exists()


def test_a_program_kept_for_other_files_is_not_used(folder: Path) -> None:
    program = load_fresh(PASS_RULES)
    [file] = folder.iterdir()
    k = file.stem
    other = RuleProgram.from_texts({"other.pyd": "# a test program\na(X) <= b(X)\n"})
    disk_cache.write(k, other)  # a key collision, or a file copied from elsewhere
    assert _same(load_fresh(PASS_RULES), program)


def test_a_folder_that_cannot_be_written_costs_only_the_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(blocker))  # its `rules` folder cannot be made
    assert load_fresh(PASS_RULES).rules
