"""The per-rule grounding profile (bench/rule_ground.py) times the rules an evaluation grounds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "bench" / "rule_ground.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("verifier", [(), ("--verifier",)], ids=["pass", "verifier"])
def test_it_lists_the_slowest_rules_with_their_rule_file_and_rows(verifier: tuple[str, ...]) -> None:
    done = _run(str(REPO / "examples" / "row_shift.py"), "--top", "3", *verifier)
    assert done.returncode == 0, done.stderr
    head, *rules = done.stdout.splitlines()
    assert head.startswith("loaded ") and " rules, " in head
    assert len(rules) == 3
    for line in rules:
        assert re.fullmatch(r"\s*\d+\.\d ms  \w+\.pyd:\d+\s+[a-z_]\w* \(\d+ rows\)", line), line


def test_a_missing_or_unreadable_dump_is_a_clear_error(tmp_path: Path) -> None:
    missing = _run(str(tmp_path / "absent.py"))
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    broken = _run(str(bad))
    assert missing.returncode == 1 and "absent.py: cannot read it" in missing.stderr
    assert broken.returncode == 1 and "bad.py: error, nothing to profile (1:" in broken.stderr
    assert "Traceback" not in missing.stderr + broken.stderr
