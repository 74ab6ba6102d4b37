"""`legalog validate` through the real command line: a pair, passes_dump folders in batch, every
report format and `check`'s exit codes; and what a user can get wrong (a missing, unreadable or
unparsable side, two different programs, a pair whose pass no name tells), each a message with
file:line:col and exit 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from legalog.pipeline import analyze
from legalog.surfaces.rule_docs import example_path
from tests.conftest import CLI_ENV, legalog_cli


def _program(code: str) -> str:
    text = example_path(code, "input").read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(True) if "# rule-doc" not in line)


SHIFT = _program("TV521")  # a Graph deriving `base` from its scalar parameter
SHIFT_AFTER = analyze(SHIFT, passes=("graph",)).legalized_text() or ""
WINDOW = _program("TV511")
WINDOW_COPIED = (analyze(WINDOW, passes=("graph",)).legalized_text() or "").replace(
    'pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)', 'pl.MemRef("mem_ddr_0", off * 128 * 4, 65536)'
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return legalog_cli("validate", *args, cwd=cwd, env=CLI_ENV)


def pair(folder: Path, before: str, after: str | bytes, stem: str = "shift") -> tuple[str, str]:
    """BEFORE and AFTER as `<stem>.graph_input.py` and `<stem>.graph_output.py` (the pass named by the first)."""
    b, a = folder / f"{stem}.graph_input.py", folder / f"{stem}.graph_output.py"
    b.write_text(before, encoding="utf-8")
    a.write_bytes(after if isinstance(after, bytes) else after.encode())
    return b.name, a.name


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# --------------------------------------------------------------------------------- one pair


def test_a_correct_output_exits_0_and_says_what_was_judged(tmp_path: Path) -> None:
    result = run(*pair(tmp_path, SHIFT, SHIFT_AFTER), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "validate LegalizeGraphBoundary: shift.graph_output.py against shift.graph_input.py" in result.stdout
    )
    assert result.stdout.rstrip().endswith("1 file: 1 rewritten")


def test_a_wrong_output_exits_1_at_its_line(tmp_path: Path) -> None:
    result = run(*pair(tmp_path, SHIFT, SHIFT), cwd=tmp_path)
    assert result.returncode == 1
    line = line_of(SHIFT, "base: pl.Scalar[pl.INDEX] = idx")
    assert "error[TV521] AFTER keeps `base` inside Graph `shift`; legalog hoists it: Step A" in result.stdout
    assert f"--> shift.graph_output.py:{line}:9 in `shift`" in result.stdout
    assert "TV521: 1" in result.stdout
    assert run(*pair(tmp_path, SHIFT, SHIFT), "--fail-on", "never", cwd=tmp_path).returncode == 0


def test_a_seed_reading_is_a_warning_and_fails_only_when_asked(tmp_path: Path) -> None:
    # the copied MemRef: TV541 (warning) with TV511 (error); --select keeps the reading alone
    names = pair(tmp_path, WINDOW, WINDOW_COPIED, "window")
    assert run(*names, cwd=tmp_path).returncode == 1
    out = run(*names, "--format", "json", cwd=tmp_path)
    codes = [d["code"] for d in json.loads(out.stdout)["files"][0]["diagnostics"]]
    assert sorted(codes) == ["TV511", "TV541"]


def test_every_format_carries_the_finding(tmp_path: Path) -> None:
    names = pair(tmp_path, SHIFT, SHIFT)
    line = line_of(SHIFT, "base: pl.Scalar[pl.INDEX] = idx")
    report = json.loads(run(*names, "--format", "json", cwd=tmp_path).stdout)
    schema = json.loads(legalog_cli("schema", env=CLI_ENV).stdout)
    jsonschema.validate(report, schema)
    (entry,) = report["files"]
    assert entry["pair"] == {
        "pass_name": "LegalizeGraphBoundary",
        "before": "shift.graph_input.py",
        "after": "shift.graph_output.py",
    }
    assert (entry["path"], entry["status"], entry["diagnostics"][0]["line"]) == (
        "shift.graph_output.py",
        "rewritten",
        line,
    )
    sarif = json.loads(run(*names, "--format", "sarif", cwd=tmp_path).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "TV521"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(
        "shift.graph_output.py"
    )
    github = run(*names, "--format", "github", cwd=tmp_path).stdout
    assert (
        f"::error file=shift.graph_output.py,line={line},col=9,title=legalog TV521::TV521 AFTER keeps"
        in github
    )
    junit = ElementTree.fromstring(run(*names, "--format", "junit", cwd=tmp_path).stdout)
    assert any("TV521" in (f.get("message") or "") + (f.text or "") for f in junit.iter("failure"))
    concise = run(*names, "--format", "concise", cwd=tmp_path).stdout
    assert f"shift.graph_output.py:{line}:9: TV521 " in concise


# ------------------------------------------------------------------------------ passes_dump


def test_folders_are_judged_pair_by_pair_in_batch(tmp_path: Path) -> None:
    ran, refused = tmp_path / "ran" / "passes_dump", tmp_path / "refused" / "passes_dump"
    for folder in (ran, refused):
        folder.mkdir(parents=True)
    (ran / "00_frontend.py").write_text(SHIFT)
    (ran / "45_after_Simplify.py").write_text(SHIFT)
    (ran / "46_after_LegalizeGraphBoundary.py").write_text(SHIFT)  # the pass changed nothing
    (refused / "45_before_LegalizeGraphBoundary.py").write_text(SHIFT)  # and wrote no output
    result = run(".", "--jobs", "2", "--format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    files = {f["path"]: f for f in json.loads(result.stdout)["files"]}
    assert set(files) == {"ran/passes_dump", "refused/passes_dump"}
    judged = files["ran/passes_dump"]
    assert judged["used_dump"] == "ran/passes_dump/46_after_LegalizeGraphBoundary.py"
    assert judged["pair"]["before"] == "ran/passes_dump/45_after_Simplify.py"
    assert [d["code"] for d in judged["diagnostics"]] == ["TV521"]
    missing = files["refused/passes_dump"]
    assert missing["pair"]["after"] is None and [d["code"] for d in missing["diagnostics"]] == ["TV532"]
    assert missing["used_dump"] == "refused/passes_dump/45_before_LegalizeGraphBoundary.py"
    assert "validate ran/passes_dump: LegalizeGraphBoundary: 46_after_LegalizeGraphBoundary.py against " in (
        result.stderr
    )


def test_pass_restricts_a_folder_to_one_pass(tmp_path: Path) -> None:
    (tmp_path / "45_after_Simplify.py").write_text(SHIFT)
    (tmp_path / "46_after_LegalizeGraphBoundary.py").write_text(SHIFT_AFTER)
    assert run(".", "--pass", "graph", cwd=tmp_path).returncode == 0
    spmd_only = run(".", "--pass", "spmd", cwd=tmp_path)
    assert spmd_only.returncode == 2 and "NN_after_LegalizeSpmdLaunches.py" in spmd_only.stderr


# ---------------------------------------------------------------------------------- hostile


def test_a_missing_after_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "x.graph_input.py").write_text(SHIFT)
    result = run("x.graph_input.py", "gone.py", cwd=tmp_path)
    assert result.returncode == 2 and "no such file or directory: gone.py" in result.stderr


def test_an_undecodable_after_is_named_with_its_position(tmp_path: Path) -> None:
    names = pair(tmp_path, SHIFT, b"# pypto.program: Shift\nx = '\xff'\n")
    result = run(*names, cwd=tmp_path)
    assert result.returncode == 2
    assert "error[PARSE] not UTF-8 text: byte 0xff cannot be decoded" in result.stdout
    assert "--> shift.graph_output.py:2:6" in result.stdout


def test_an_unparsable_before_is_named_with_its_position(tmp_path: Path) -> None:
    broken = SHIFT.replace("class Shift:", "class Shift(:")
    result = run(*pair(tmp_path, broken, SHIFT_AFTER), cwd=tmp_path)
    assert result.returncode == 2
    assert f"--> shift.graph_input.py:{line_of(broken, 'class Shift(:')}:" in result.stdout
    assert "error[PARSE]" in result.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_before_is_an_error_entry(tmp_path: Path) -> None:
    names = pair(tmp_path, SHIFT, SHIFT_AFTER)
    (tmp_path / names[0]).chmod(0)
    result = run(*names, cwd=tmp_path)
    assert result.returncode == 2 and "cannot read file" in result.stdout


def test_two_different_programs_are_a_usage_error_at_a_line(tmp_path: Path) -> None:
    other = SHIFT_AFTER.replace("class Shift:", "class Other:")
    result = run(*pair(tmp_path, SHIFT, other), cwd=tmp_path)
    assert result.returncode == 2
    assert "error[TV500] AFTER is program `Other`, shift.graph_input.py is program `Shift`" in result.stdout
    assert re.search(r"--> shift.graph_output.py:\d+:5", result.stdout)


def test_a_pair_no_name_places_needs_pass(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHIFT)
    (tmp_path / "b.py").write_text(SHIFT_AFTER)
    result = run("a.py", "b.py", cwd=tmp_path)
    assert result.returncode == 2 and "give --pass graph" in result.stderr
    assert run("a.py", "b.py", "--pass", "graph", cwd=tmp_path).returncode == 0


def test_files_and_folders_do_not_mix(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SHIFT)
    (tmp_path / "d").mkdir()
    result = run("a.py", "d", cwd=tmp_path)
    assert result.returncode == 2 and "give BEFORE AFTER" in result.stderr


def test_a_dask_executor_is_refused_with_why(tmp_path: Path) -> None:
    names = pair(tmp_path, SHIFT, SHIFT_AFTER)
    result = run(*names, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", cwd=tmp_path)
    assert result.returncode == 2 and "validate runs on local processes" in result.stderr


def test_rule_shows_the_pass_input_of_a_validate_code() -> None:
    text = legalog_cli("rule", "TV521", env=CLI_ENV).stdout
    assert "The pass's input (BEFORE):" in text and "base: pl.Scalar[pl.INDEX] = idx * 128" in text
