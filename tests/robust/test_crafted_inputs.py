"""Any input, round three (issue 36): what is not a dump but is still input — configuration files,
option values, file names, shard reports — built to break legalog, through the real command
line.  None is legalog's bug: each is a usage or input error (exit 2) said on stderr with
nothing half-printed on stdout, or, for a name, a report in which the name is shown safely."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

import pytest

from tests.conftest import CLI_ENV, legalog_cli
from tests.robust.test_not_files import limited_memory

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"
FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")


def run(*args: str, cwd: Path):  # type: ignore[no-untyped-def]
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV, timeout=300, preexec_fn=limited_memory)


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


def _shards(r: dict[str, Any]) -> None:
    r["run"]["shards"] = 10**12  # every missing one was listed: memory without end


def _batch(r: dict[str, Any]) -> None:
    r["run"]["batch_entries"] = 10**12  # a slot was made for each


# how each is changed, and what the refusal says (a report's own fault names it; the batch's,
# which only all the reports together show, names none)
CRAFTED = {
    "unknown code": (_unknown_code, ("crafted.json", "unknown code 'ZZ999'")),
    "non-integer source line": (_source_key, ("crafted.json", "'eleven' is not a line number")),
    "a trillion shards": (_shards, ("missing shards 2/1000000000000, 3/1000000000000",)),
    "a trillion entries": (_batch, ("1 entries in all for a batch of 1000000000000",)),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CRAFTED), ids=str)
def test_merge_refuses_a_crafted_report_in_every_format(
    case: str, fmt: str, shard_report: dict[str, Any], tmp_path: Path
) -> None:
    change, said = CRAFTED[case]
    crafted(shard_report, tmp_path, change)
    refused(run("merge", "crafted.json", "--format", fmt, cwd=tmp_path), *said)


def test_an_untouched_shard_report_merges(shard_report: dict[str, Any], tmp_path: Path) -> None:
    crafted(shard_report, tmp_path, lambda r: None)
    assert run("merge", "crafted.json", "--format", "sarif", cwd=tmp_path).returncode == 0


# ------------------------------------------------------------------------------ file names

NAMES = {
    "escape and bell": "bell\x07and\x1b[31mred.py",
    "not UTF-8": os.fsdecode(b"\xff\xfe.py"),
}
# what every report shows for them: undecodable bytes as U+FFFD (as Ruff shows them), and in the
# text formats each control character as a Python escape
IN_JSON = {"escape and bell": "bell\x07and\x1b[31mred.py", "not UTF-8": "\ufffd\ufffd.py"}
IN_TEXT = {"escape and bell": "bell\\x07and\\x1b[31mred.py", "not UTF-8": "\ufffd\ufffd.py"}
TEXT_FORMATS = ("full", "concise", "github", "junit")
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown_paths(fmt: str, out: str) -> list[str]:
    """The file names a report in `fmt` gives (it must parse as its format says)."""
    if fmt == "json":
        return [f["path"] for f in json.loads(out)["files"]]
    if fmt == "json-lines":
        return [json.loads(line)["path"] for line in out.splitlines()]
    if fmt == "gitlab":
        return [issue["location"]["path"] for issue in json.loads(out)]
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        return [unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results]
    if fmt == "junit":
        return [suite.get("name", "") for suite in ElementTree.fromstring(out)]
    if fmt == "github":
        return [re.search(r"file=([^,]*),", line)[1] for line in out.splitlines()]  # type: ignore[index]
    if fmt == "concise":
        return [line.split(":", 1)[0] for line in out.splitlines() if ": GB" in line]
    return re.findall(r"--> (.*):\d+:\d+", out)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(NAMES), ids=str)
def test_a_hostile_file_name_is_shown_safely_in_every_format(case: str, fmt: str, tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / NAMES[case])
    for given in (NAMES[case], "."):  # named, and found by the folder search
        done = run("check", given, "--format", fmt, cwd=tmp_path)  # the output must decode as UTF-8
        assert done.returncode == 0, done.stderr
        expected = IN_TEXT[case] if fmt in TEXT_FORMATS else IN_JSON[case]
        assert set(shown_paths(fmt, done.stdout)) == {expected}
        if fmt in TEXT_FORMATS:
            assert not RAW_CONTROL.search(done.stdout)


def test_a_hostile_folder_name_is_shown_safely_in_passes_dump_lines(tmp_path: Path) -> None:
    folder = tmp_path / "passes\x1b[2J"
    folder.mkdir()
    shutil.copy(ROW_SHIFT, folder / "05_after_Simplify.py")
    done = run("check", folder.name, cwd=tmp_path)
    assert done.returncode == 0 and not RAW_CONTROL.search(done.stdout)
    assert "passes_dump passes\\x1b[2J: Graph boundaries and SPMD launches checked in" in done.stdout


@pytest.mark.parametrize("fmt", FORMATS)
def test_shards_with_hostile_names_merge_to_the_unsharded_report(fmt: str, tmp_path: Path) -> None:
    for name in NAMES.values():
        shutil.copy(ROW_SHIFT, tmp_path / name)
    whole = run("check", ".", "--format", fmt, cwd=tmp_path)
    for k in (1, 2):
        shard = run("check", ".", "--shard", f"{k}/2", "--format", "json", cwd=tmp_path)
        (tmp_path.parent / f"{tmp_path.name}-{k}.json").write_text(shard.stdout, encoding="utf-8")
    reports = [str(tmp_path.parent / f"{tmp_path.name}-{k}.json") for k in (1, 2)]
    merged = run("merge", *reports, "--format", fmt, cwd=tmp_path)
    assert (merged.returncode, merged.stdout) == (whole.returncode, whole.stdout), merged.stderr


def test_absolute_sarif_uris_of_a_hostile_name(tmp_path: Path) -> None:
    name = tmp_path / NAMES["not UTF-8"]
    shutil.copy(ROW_SHIFT, name)
    done = run("check", str(name), "--format", "sarif", cwd=tmp_path)
    uri = json.loads(done.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"] == (tmp_path / IN_JSON["not UTF-8"]).as_uri()


# ------------------------------------------------------------------------------------ diffs


def test_a_diff_of_a_dump_without_a_final_newline_applies(tmp_path: Path) -> None:
    if shutil.which("patch") is None:
        pytest.skip("needs `patch` to apply the diff")
    (tmp_path / "a.py").write_bytes(ROW_SHIFT.read_bytes().rstrip(b"\n"))
    shutil.copy(ROW_SHIFT, tmp_path / "b.py")
    diff = run("fix", "a.py", "b.py", "--diff", cwd=tmp_path)
    assert diff.returncode == 1 and diff.stdout.endswith("\n")
    assert "\n\\ No newline at end of file\n+" in diff.stdout
    assert all(
        line.startswith(("---", "+++", "@@", " ", "-", "+", "\\")) for line in diff.stdout.splitlines()
    )
    assert run("fix", "a.py", "-o", "want.py", cwd=tmp_path).returncode == 0
    first = diff.stdout[: diff.stdout.index("--- b.py")]
    applied = subprocess.run(
        ["patch", "--quiet", "a.py"], input=first, text=True, cwd=tmp_path, capture_output=True, timeout=60
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert (tmp_path / "a.py").read_bytes() == (tmp_path / "want.py").read_bytes()


@pytest.mark.parametrize("case", sorted(NAMES), ids=str)
def test_a_diff_names_a_hostile_file_quoted_as_git_does(case: str, tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / NAMES[case])
    diff = run("fix", NAMES[case], "--diff", cwd=tmp_path)
    quoted = {"escape and bell": '"bell\\aand\\033[31mred.py"', "not UTF-8": '"\\377\\376.py"'}[case]
    assert diff.returncode == 1 and not RAW_CONTROL.search(diff.stdout)
    assert diff.stdout.startswith(f'--- {quoted}\n+++ {quoted[:-1]} (legalized)"\n')


# ------------------------------------------------------------------ configuration choices


def test_config_dev_null_is_no_configuration(tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    (tmp_path / "legalog.toml").write_text('fail-on = "info"\n')  # GB201 is an info finding
    assert run("check", "d.py", cwd=tmp_path).returncode == 1
    assert run("check", "d.py", "--config", os.devnull, cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(
    "make, what", [(os.mkfifo, "a FIFO"), (Path.mkdir, "a folder")], ids=["fifo", "folder"]
)
def test_config_that_is_not_a_file_says_what_it_is(make, what: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    make(tmp_path / "cfg.toml")
    refused(
        run("check", "d.py", "--config", "cfg.toml", cwd=tmp_path), "cfg.toml", f"not a regular file ({what})"
    )


@pytest.mark.parametrize(
    "codes, reason",
    [
        ("gb201", "unknown code 'gb201' (codes are upper case: 'GB201')"),
        ("gb", "unknown code 'gb' (codes are upper case: 'GB')"),
        ("", "an empty code"),
        ("GB201,", "an empty code"),
        ("GB999", "unknown code 'GB999'"),
    ],
)
def test_the_command_line_and_the_file_refuse_the_same_codes(codes: str, reason: str, tmp_path: Path) -> None:
    shutil.copy(ROW_SHIFT, tmp_path / "d.py")
    for option in ("--select", "--ignore", "--extend-ignore", "--per-file-ignores"):
        value = f"d.py:{codes}" if option == "--per-file-ignores" else codes
        refused(run("check", "d.py", f"{option}={value}", cwd=tmp_path), reason)
    listed = json.dumps([c.strip() for c in codes.split(",")])
    (tmp_path / "legalog.toml").write_text(f"select = {listed}\n")
    refused(run("check", "d.py", cwd=tmp_path), "legalog.toml:1: `select`: ", reason)


# ------------------------------------------------------------------ crafted reports, fuzzed

ODD_VALUES: dict[type, list[Any]] = {
    int: [-1, 0, 10**30, -(2**63), 2**64],
    str: ["", "\x1b[2J\x07", "x" * 5000, "\u2028", "ZZ999", "../../etc/passwd", "\ufffd"],
    bool: [True, False],
    type(None): [0, "x"],
    float: [0.0, -1e308],
}


def _leaves(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*at, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*at, i))]
    return [at]


def test_merge_of_fuzzed_reports_never_fails_inside(
    shard_report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each of 60 reports has three values changed to odd ones of their type (deterministic); in
    every format, merge either renders it (exit 0 or 1) or refuses it (exit 2, nothing printed),
    and never fails inside (INTERNAL, exit 3)."""
    import random

    from legalog.cli import main

    rng = random.Random(36)
    leaves = _leaves(shard_report)
    for _ in range(60):
        data = json.loads(json.dumps(shard_report))
        for at in rng.sample(leaves, 3):
            holder = data
            for key in at[:-1]:
                holder = holder[key]
            holder[at[-1]] = rng.choice(ODD_VALUES.get(type(holder[at[-1]]), [None]))
        path = tmp_path / "fuzzed.json"
        path.write_text(json.dumps(data))
        for fmt in FORMATS:
            status = main(["merge", str(path), "--format", fmt])
            out, err = capsys.readouterr()
            assert status in (0, 1, 2) and "INTERNAL" not in err, (data, fmt, err)
            assert status != 2 or out == "", (fmt, err)
