"""What a Ruff user types on a first day, through the real command line: `check --fix`,
`--exit-zero`, `--statistics`, `--output-file`, `--show-fixes`, `rule NAME`, a misspelt config
key, a bad `--jobs`; and the words of what comes back (plurals, SP310's quoting, SARIF's
`informationUri`, `facts`' schema)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.conftest import CLI_ENV, REPO, legalog_cli

EXAMPLES = REPO / "examples"
ROW_SHIFT, MIXED, SPMD = EXAMPLES / "row_shift.py", EXAMPLES / "mixed_offsets.py", EXAMPLES / "spmd_counts.py"


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV)


def test_check_fix_points_to_legalog_fix() -> None:
    result = run("check", "--fix", str(ROW_SHIFT))
    assert result.returncode == 2
    assert "fixes are written by `legalog fix PATH... --in-place`" in result.stderr, result.stderr


def test_exit_zero_whatever_the_findings_but_not_for_an_unreadable_dump(tmp_path: Path) -> None:
    assert run("check", str(MIXED)).returncode == 1
    assert run("check", "--exit-zero", str(MIXED)).returncode == 0
    (tmp_path / "broken.py").write_text("x = (\n")
    assert run("check", "--exit-zero", str(tmp_path / "broken.py")).returncode == 2


def test_statistics_count_each_code_instead_of_the_findings() -> None:
    result = run("check", "--statistics", str(EXAMPLES))
    assert result.returncode == 1  # the exit status is the report's
    assert result.stdout.splitlines() == [
        "2\tGB119\t[ ] graph-view-offset-varies",
        "1\tGB113\t[ ] graph-inline-varying-arg",
        "1\tGB118\t[ ] graph-scalar-not-replayable",
        "1\tGB201\t[*] graph-scalar-hoisted",
        "1\tSP310\t[*] spmd-launch-guarded",
    ]


def test_output_file_takes_the_report_and_show_fixes_lists_what_fix_changes(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    result = run("check", "--show-fixes", "--output-file", str(out), str(ROW_SHIFT), str(SPMD))
    assert result.returncode == 0 and result.stdout == ""
    report = out.read_text(encoding="utf-8")
    assert "2 files: 2 rewritten" in report
    assert report.endswith(
        "Fixable with `legalog fix`:\n"
        f"- {ROW_SHIFT}:\n    1 x GB201 (graph-scalar-hoisted)\n"
        f"- {SPMD}:\n    1 x SP310 (spmd-launch-guarded)\n"
    )
    sarif = run("check", "--output-format", "sarif", "-o", str(out), str(MIXED))
    assert sarif.stdout == "" and json.loads(out.read_text())["version"] == "2.1.0"


def test_rule_takes_a_codes_name_and_suggests_by_name() -> None:
    assert run("rule", "graph-view-offset-varies").stdout == run("rule", "GB119").stdout
    wrong = run("rule", "graph-view-ofset-varies")
    assert wrong.returncode == 2 and "did you mean GB119 (graph-view-offset-varies)" in wrong.stderr


def test_a_config_key_in_snake_case_gets_did_you_mean(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.legalog]\nfail_on = "warning"\n')
    (tmp_path / "d.py").write_bytes(ROW_SHIFT.read_bytes())
    result = run("check", "d.py", cwd=tmp_path)
    assert result.returncode == 2
    assert (
        f"{tmp_path / 'pyproject.toml'}:2: unknown key `fail_on` in [tool.legalog]; did you mean `fail-on`?"
        in (result.stderr)
    )


def test_jobs_that_is_no_number_says_so() -> None:
    result = run("check", "--jobs", "abc", str(ROW_SHIFT))
    assert result.returncode == 2 and "argument --jobs: not a whole number: 'abc'" in result.stderr
    assert "_positive" not in result.stderr


def test_counts_of_errors_take_the_plural(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("x = (\n")
    assert "3 files: 3 errors" in run("check", str(tmp_path)).stdout
    assert "3 files: 3 errors (nothing written" in run("fix", "--in-place", str(tmp_path)).stderr
    (tmp_path / "b.py").unlink(), (tmp_path / "c.py").unlink()
    assert "1 file: 1 error\n" in run("check", str(tmp_path)).stdout


def test_sp310_quotes_and_ends_as_the_other_messages() -> None:
    [entry] = json.loads(run("check", "--format", "json", str(SPMD)).stdout)["files"]
    [message] = [d["message"] for d in entry["diagnostics"] if d["code"] == "SP310"]
    assert message.startswith("launch `band` may have a non-positive core_num `n__ssa_v0`")
    assert not message.endswith(".") and "'band'" not in message


def test_sarif_names_no_other_projects_page_and_facts_cite_no_seeds(tmp_path: Path) -> None:
    driver = json.loads(run("check", "--output-format", "sarif", str(ROW_SHIFT)).stdout)["runs"][0]["tool"][
        "driver"
    ]
    assert "pypto" not in driver.get("informationUri", "")
    assert run("facts", str(ROW_SHIFT), "-o", str(tmp_path / "facts")).returncode == 0
    schema = (tmp_path / "facts" / "schema.dl").read_text()
    assert not re.search(r"seeds|\.en\.txt", schema) and "[LegalizeGraphBoundary, Step A]" in schema
