"""`legalog check` and `legalog fix` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "legalog", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_check_a_legal_example_exits_zero() -> None:
    result = run("check", str(EXAMPLES / "row_shift.py"))
    assert result.returncode == 0, result.stderr
    assert "1 rewritten" in result.stdout
    assert "Traceback" not in result.stderr


def test_check_a_rejected_example_exits_one_with_located_diagnostics() -> None:
    result = run("check", str(EXAMPLES / "mixed_offsets.py"))
    assert result.returncode == 1
    assert "GB119" in result.stdout and "mixed_offsets.py:38:13" in result.stdout
    assert "= help:" in result.stdout and "= note:" in result.stdout


def test_bad_files_do_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("x = (\n")
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00")
    good = tmp_path / "good.py"
    good.write_text((EXAMPLES / "row_shift.py").read_text())
    result = run("check", "--format", "json", "--jobs", "2", str(tmp_path))
    assert result.returncode == 2
    files = {Path(f["path"]).name: f for f in json.loads(result.stdout)["files"]}
    assert files["broken.py"]["status"] == "error" and files["broken.py"]["diagnostics"][0]["code"] == "PARSE"
    assert files["broken.py"]["diagnostics"][0]["line"] == 1
    assert files["binary.py"]["status"] == "error"
    assert files["good.py"]["status"] == "rewritten"
    assert "Traceback" not in result.stderr


def test_json_matches_the_worked_example() -> None:
    result = run("check", "--format", "json", str(EXAMPLES / "row_shift.py"))
    entry = json.loads(result.stdout)["files"][0]
    assert entry["status"] == "rewritten"
    graph = entry["graphs"][0]
    assert graph["function"] == "shift"
    assert graph["params_after"] == ["src", "dst", "idx", "base"]
    assert graph["hoisted_scalars"] == [{"param": "base", "value": "idx * 128"}]
    assert graph["node_count"] == 1


def test_fix_writes_a_program_that_rechecks_legal_and_is_idempotent(tmp_path: Path) -> None:
    out = tmp_path / "fixed.py"
    assert run("fix", str(EXAMPLES / "row_shift.py"), "-o", str(out)).returncode == 0
    check = run("check", "--format", "json", str(out))
    assert json.loads(check.stdout)["files"][0]["status"] == "legal", check.stdout
    again = tmp_path / "again.py"
    assert run("fix", str(out), "-o", str(again)).returncode == 0
    assert again.read_text() == out.read_text()


def test_fix_of_a_rejected_program_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "fixed.py"
    result = run("fix", str(EXAMPLES / "mixed_offsets.py"), "-o", str(out))
    assert result.returncode == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert "nothing written" in result.stderr


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run("check").returncode == 2
    assert run("check", str(tmp_path)).returncode == 2  # no dumps there
