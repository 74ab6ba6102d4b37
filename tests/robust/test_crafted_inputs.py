"""Any input, round three (issue 36): what is not a dump but is still input — configuration files,
option values, file names, shard reports — built to break legalog, through the real command
line.  None is legalog's bug: each is a usage or input error (exit 2) said on stderr with
nothing half-printed on stdout, or, for a name, a report in which the name is shown safely."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI_ENV, legalog_cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"
FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")


def run(*args: str, cwd: Path):  # type: ignore[no-untyped-def]
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV, timeout=300)


def refused(done: Any, *needles: str) -> None:
    """A usage or input error: exit 2, every needle on stderr, nothing on stdout."""
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "INTERNAL" not in done.stderr
    for needle in needles:
        assert needle in done.stderr


# ------------------------------------------------------------------------- nested TOML


@pytest.mark.parametrize("opening", ["[", "{"])
@pytest.mark.parametrize("name", ["pyproject.toml", "legalog.toml", "--config"])
def test_toml_nested_past_the_readers_depth_is_a_configuration_error(
    name: str, opening: str, tmp_path: Path
) -> None:
    closing = {"[": "]", "{": "}"}[opening]
    value = (opening + ("x = " if opening == "{" else "")) * 500 + "1" + closing * 500
    table = "[tool.legalog]\n" if name == "pyproject.toml" else ""
    config = tmp_path / ("custom.toml" if name == "--config" else name)
    config.write_text(f'{table}runtime = "host_build_graph"\nselect = {value}\n')
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    argv = ["check", "d.py", *(["--config", "custom.toml"] if name == "--config" else [])]
    line = 3 if table else 2
    refused(run(*argv, cwd=tmp_path), f"{config.name}:{line}: not valid TOML", "nested")


# --------------------------------------------------------------------------- option values


@pytest.mark.parametrize("seconds", ["2147484", "1e10", "1e300"])
def test_a_time_limit_too_long_to_wait_for_is_a_usage_error(seconds: str, tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    for command in ("check", "fix"):
        extra = ["--diff"] if command == "fix" else []
        refused(run(command, "d.py", *extra, "--timeout", seconds, cwd=tmp_path), "--timeout", "at most")


def test_the_longest_time_limit_is_accepted(tmp_path: Path) -> None:
    from legalog.surfaces.batch import MAX_TIMEOUT

    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    done = run("check", "d.py", "--timeout", f"{MAX_TIMEOUT:g}", "--format", "concise", cwd=tmp_path)
    assert done.returncode == 0 and "1 rewritten" in done.stdout


# ----------------------------------------------------------------------- crafted reports


@pytest.fixture(scope="module")
def shard_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("shard")
    shutil.copy(ROW_SHIFT, folder / "d.py")
    done = run("check", "d.py", "--shard", "1/1", "--format", "json", cwd=folder)
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["run"]["sources"], "the report quotes no source line"
    return report


def crafted(report: dict[str, Any], folder: Path, change) -> Path:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(report))
    change(data)
    path = folder / "crafted.json"
    path.write_text(json.dumps(data))
    return path


def _unknown_code(r: dict[str, Any]) -> None:
    r["files"][0]["diagnostics"][0]["code"] = "ZZ999"


def _source_key(r: dict[str, Any]) -> None:
    lines = next(iter(r["run"]["sources"].values()))
    lines["eleven"] = "x = 1"


CRAFTED = {
    "unknown code": (_unknown_code, "unknown code 'ZZ999'"),
    "non-integer source line": (_source_key, "'eleven' is not a line number"),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CRAFTED), ids=str)
def test_merge_refuses_a_crafted_report_in_every_format(
    case: str, fmt: str, shard_report: dict[str, Any], tmp_path: Path
) -> None:
    change, reason = CRAFTED[case]
    crafted(shard_report, tmp_path, change)
    refused(run("merge", "crafted.json", "--format", fmt, cwd=tmp_path), "crafted.json", reason)


def test_an_untouched_shard_report_merges(shard_report: dict[str, Any], tmp_path: Path) -> None:
    crafted(shard_report, tmp_path, lambda r: None)
    assert run("merge", "crafted.json", "--format", "sarif", cwd=tmp_path).returncode == 0
