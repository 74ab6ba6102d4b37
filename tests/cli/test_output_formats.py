"""`check --output-format` (issue 21, item 2) through the real command line, each format held to
what its consumer reads: GitHub's workflow-command syntax, GitLab's code-quality report fields,
JUnit XML parsed by ElementTree; the severity word, colour on a terminal only, `--quiet`, `-V`,
"did you mean", and control characters escaped in snippets."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from tests.conftest import legalog_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ROW_SHIFT, MIXED = EXAMPLES / "row_shift.py", EXAMPLES / "mixed_offsets.py"
ENV = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | {
    "PYTHONPATH": str(REPO),
    "LEGALOG_NO_CACHE": "1",
}


def run(*args: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env={**ENV, **(env or {})})


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A legal-after-rewrite dump, a rejected one and an unreadable one."""
    folder = tmp_path_factory.mktemp("formats")
    shutil.copy(ROW_SHIFT, folder / "a_row_shift.py")
    shutil.copy(MIXED, folder / "b_mixed.py")
    (folder / "c_broken.py").write_text("x = (\n")
    return folder


def report(dumps: Path, fmt: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return run("check", "--output-format", fmt, "--jobs", "1", *extra, ".", cwd=dumps)


def expected_diagnostics(dumps: Path) -> list[tuple[str, str, int, int, str]]:
    files = json.loads(report(dumps, "json").stdout)["files"]
    return [
        (f["path"], d["code"], d["line"], d["column"], d["severity"]) for f in files for d in f["diagnostics"]
    ]


def test_full_names_the_severity_and_format_is_its_alias(dumps: Path) -> None:
    full = report(dumps, "full")
    assert full.returncode == 2  # the broken dump
    assert re.search(r"^info\[GB201\] \[\*\] derived boundary scalar", full.stdout, re.M)
    assert re.search(r"^error\[GB119\] view `xv__ssa_v0`", full.stdout, re.M)
    assert re.search(r"^error\[PARSE\] ", full.stdout, re.M)
    assert run("check", "--format", "text", "--jobs", "1", ".", cwd=dumps).stdout == full.stdout
    assert "\x1b[" not in full.stdout  # piped: no colour


def test_concise_is_one_line_a_diagnostic(dumps: Path) -> None:
    out = report(dumps, "concise").stdout.splitlines()
    want = expected_diagnostics(dumps)
    lines = out[: len(want)]
    for line, (path, code, row, col, _severity) in zip(lines, want):
        assert re.fullmatch(rf"{re.escape(path)}:{row}:{col}: {code}( \[\*\])? \S.*", line), line
    assert "a_row_shift.py:15:9: GB201 [*] derived boundary scalar `base__ssa_v0`" in lines[0]
    assert out[len(want)] == "3 files: 1 rewritten, 1 rejected, 1 error"  # then check's summary
    assert report(dumps, "concise", "--quiet").stdout.splitlines() == lines


def test_json_lines_is_one_object_a_diagnostic(dumps: Path) -> None:
    rows = [json.loads(line) for line in report(dumps, "json-lines").stdout.splitlines()]
    assert [
        (r["path"], r["code"], r["line"], r["column"], r["severity"]) for r in rows
    ] == expected_diagnostics(dumps)
    assert {r["status"] for r in rows} == {"rewritten", "rejected", "error"}


# docs.github.com, "Workflow commands for GitHub Actions": `::error file={name},line={line},col={col},title={title}::{message}`
ANNOTATION = re.compile(r"::(error|warning|notice) file=([^,:]*),line=(\d+),col=(\d+),title=([^,:]*)::(.*)")


def unescape(text: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def test_github_annotations_follow_the_workflow_command_syntax(dumps: Path) -> None:
    lines = report(dumps, "github").stdout.splitlines()
    parsed = [ANNOTATION.fullmatch(line) for line in lines]
    assert all(parsed), lines
    level = {"error": "error", "warning": "warning", "info": "notice"}
    assert [(unescape(m[2]), m[6].split(" ", 1)[0], int(m[3]), int(m[4]), m[1]) for m in parsed if m] == [
        (path, code, row, col, level[sev]) for path, code, row, col, sev in expected_diagnostics(dumps)
    ]
    first = parsed[0]
    assert first is not None and unescape(first[5]) == "legalog GB201 (fixable with legalog fix)"
    assert first[6].startswith("GB201 [*] derived boundary scalar `base__ssa_v0`")


# GitLab's code-quality report (docs.gitlab.com, "Code Quality", "Code Quality report format"):
# an array of issues, each with these fields; severity one of info, minor, major, critical, blocker.
GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{16,}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def test_gitlab_code_quality_report(dumps: Path) -> None:
    issues = json.loads(report(dumps, "gitlab").stdout)
    jsonschema.validate(issues, GITLAB_SCHEMA)
    assert [(i["location"]["path"], i["check_name"], i["location"]["lines"]["begin"]) for i in issues] == [
        (path, code, row) for path, code, row, _col, _sev in expected_diagnostics(dumps)
    ]
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab shows one issue per fingerprint
    assert {i["check_name"]: i["severity"] for i in issues}["GB201"] == "info"
    assert {i["check_name"]: i["severity"] for i in issues}["GB119"] == "major"
    again = json.loads(report(dumps, "gitlab").stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]  # stable across runs


def test_junit_xml(dumps: Path) -> None:
    root = ElementTree.fromstring(report(dumps, "junit").stdout)
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == ["a_row_shift.py", "b_mixed.py", "c_broken.py"]
    for suite in suites.values():
        cases = suite.findall("testcase")
        assert int(suite.get("tests", "-1")) == len(cases)
        assert int(suite.get("failures", "-1")) == len(suite.findall("testcase/failure"))
        assert int(suite.get("errors", "-1")) == len(suite.findall("testcase/error"))
    assert not suites["a_row_shift.py"].findall("testcase/failure")  # an info finding passes
    failures = suites["b_mixed.py"].findall("testcase/failure")
    assert {f.get("type") for f in failures} == {"GB113", "GB118", "GB119"}
    assert [e.get("type") for e in suites["c_broken.py"].findall("testcase/error")] == ["PARSE"]


def test_sarif_and_json_are_unchanged_by_the_new_flag(dumps: Path) -> None:
    assert (
        report(dumps, "sarif").stdout
        == run("check", "--format", "sarif", "--jobs", "1", ".", cwd=dumps).stdout
    )


def test_colour_on_a_terminal_only_and_as_the_environment_says() -> None:
    plain = run("check", str(ROW_SHIFT)).stdout
    assert "\x1b[" not in plain
    forced = run("check", str(ROW_SHIFT), env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[1;36minfo\x1b[0m\x1b[1m[GB201]\x1b[0m" in forced
    assert re.sub(r"\x1b\[[0-9;]*m", "", forced) == plain  # colour changes nothing else
    assert "\x1b[" not in run("check", str(ROW_SHIFT), env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert "\x1b[" in on_a_terminal("check", "--no-progress", str(ROW_SHIFT))
    assert "\x1b[" not in on_a_terminal("check", "--no-progress", str(ROW_SHIFT), env={"NO_COLOR": "1"})


def on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What legalog prints with its stdout on a pseudo-terminal."""
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "legalog", *args],
            stdout=secondary,
            stderr=subprocess.DEVNULL,
            cwd=REPO,
            env={**ENV, "TERM": "xterm", **(env or {})},
            timeout=600,
            check=False,
        )
        os.close(secondary)
        secondary = -1
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
        if secondary != -1:
            os.close(secondary)
    assert proc.returncode == 0
    return b"".join(chunks).decode("utf-8")


def test_quiet_prints_the_findings_alone(dumps: Path) -> None:
    full, quiet = report(dumps, "full").stdout, report(dumps, "full", "--quiet").stdout
    assert quiet and "graph `" not in quiet and "3 files:" not in quiet
    heads = re.compile(r"^(?:error|warning|info)\[.*", re.M)
    assert heads.findall(quiet) == heads.findall(full) and len(heads.findall(quiet)) == 6
    assert quiet.endswith("\n") and not quiet.endswith("\n\n")
    fixed = run("fix", str(ROW_SHIFT), "-o", str(dumps / "out.py"), "--quiet")
    assert fixed.returncode == 0 and fixed.stderr == "" and (dumps / "out.py").exists()


def test_dash_capital_v_is_the_version() -> None:
    from legalog.version import __version__

    assert run("-V").stdout == run("--version").stdout == f"legalog {__version__}\n"


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (("chek", "x.py"), "did you mean check?"),
        (("check", "--fial-on", "error", "x.py"), "did you mean --fail-on?"),
        (("check", "--output-format", "concis", "x.py"), "did you mean concise?"),
        (("fix", "x.py", "--dif"), None),  # an unambiguous prefix is the option itself (argparse)
    ],
)
def test_a_misspelling_gets_a_suggestion(args: tuple[str, ...], suggestion: str | None) -> None:
    result = run(*args)
    assert result.returncode == 2
    if suggestion is None:
        assert "no such file" in result.stderr
    else:
        assert result.stderr.rstrip().endswith(suggestion), result.stderr


def test_a_binary_files_snippet_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "bin.py").write_bytes(b"x = 1\n\x00\x01\x1b[31mred\x07\n")
    result = run("check", "bin.py", cwd=tmp_path)
    assert result.returncode == 2
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", result.stdout.replace("\n", "")), result.stdout
    assert "2 | \\x00\\x01\\x1b[31mred\\x07\n  | ^\n" in result.stdout
