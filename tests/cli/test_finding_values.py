"""Finding values (issue 21, item 5) through the real command line: `why` lists candidates with
their lines in the dump's names, `query` reads the names the dump shows and says which id it
used, JSON `subject` is the name the message shows, and call-site diagnostics name the callee
and the parameter."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CLI_ENV, CORPUS, legalog_cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"
FRONTEND = CORPUS / "graph" / "a04_weight_window.frontend.py"  # a frontend dump: `y` is bound three times


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=REPO, env=CLI_ENV)


def test_why_an_unknown_variable_lists_every_value_with_its_line() -> None:
    result = run("why", str(ROW_SHIFT), "-f", "shift", "-v", "nosuch")
    assert result.returncode == 2
    assert result.stderr == (
        "legalog: no variable `nosuch` in `shift`; candidates: dst__ssa_v0 (parameter, line 14), "
        "idx__ssa_v0 (parameter, line 14), src__ssa_v0 (parameter, line 14), "
        "base__ssa_v0 (line 15), dst__ssa_v2 (line 16)\n"
    )
    close = run("why", str(ROW_SHIFT), "-f", "shift", "-v", "bse")  # close to the name without its suffix
    assert close.stderr == "legalog: no variable `bse` in `shift`; candidates: base__ssa_v0 (line 15)\n"


@pytest.mark.shared
def test_why_candidates_are_in_the_dumps_own_names() -> None:
    close = run("why", str(FRONTEND), "-f", "proj", "-v", "wof")
    assert close.stderr == "legalog: no variable `wof` in `proj`; candidates: woff (line 8)\n"
    unknown = run("why", str(FRONTEND), "-f", "proj", "-v", "nosuch").stderr
    assert "y (lines 7, 17, 22)" in unknown and "wl (line 9)" in unknown and "__ssa_v" not in unknown
    ambiguous = run("why", str(FRONTEND), "-f", "proj", "-v", "y").stderr
    assert ambiguous == (
        "legalog: `y` is ambiguous in `proj`: it names 3 SSA values; candidates: "
        "y__ssa_v0 (parameter, line 7), y__ssa_v1 (line 17), y__ssa_v2 (line 22)\n"
    )
    assert (
        run("why", str(FRONTEND), "-f", "proj", "-v", "y__ssa_v1").returncode == 0
    )  # a candidate as given works
    function = run("why", str(FRONTEND), "-f", "prj", "-v", "y").stderr
    assert function.endswith("; candidates: proj (line 7)\n")


@pytest.mark.shared
def test_query_reads_the_names_the_dump_shows_and_says_which_id() -> None:
    text = run("query", str(FRONTEND), 'hoisted_view("wl")')
    assert (text.returncode, text.stdout, text.stderr) == (
        0,
        "yes\n",
        'legalog: "wl" read as "proj/wl__ssa_v0"\n',
    )
    assert run("query", str(FRONTEND), 'hoisted_view("proj/wl")').stdout == "yes\n"
    answer = json.loads(run("query", str(ROW_SHIFT), 'hoisted_scalar("base")', "--format", "json").stdout)
    assert answer["matched"] == 1 and answer["resolved"] == {
        "base": "shift/base__ssa_v0"
    }  # the Graph's, not its kernel's
    ambiguous = run("query", str(FRONTEND), 'hoisted_view("y")')
    assert ambiguous.returncode == 2 and '"y" names 5 values: main/y__ssa_v0' in ambiguous.stderr
    kind = run("query", str(FRONTEND), 'blocking(R, X, "call")')  # a constant the column holds is left alone
    assert kind.returncode == 0 and kind.stderr == ""


@pytest.mark.shared
def test_json_subject_is_the_name_the_message_shows() -> None:
    files = json.loads(
        run(
            "check",
            "--format",
            "json",
            str(ROW_SHIFT),
            str(FRONTEND),
            str(REPO / "examples" / "mixed_offsets.py"),
        ).stdout
    )["files"]
    subjects = [(d["subject"], d["message"]) for f in files for d in f["diagnostics"] if d["subject"]]
    assert len(subjects) >= 8 and all(f"`{s}`" in m for s, m in subjects), subjects
    first = {Path(f["path"]).name: f["diagnostics"][0]["subject"] for f in files}
    assert (
        first["row_shift.py"] == "base__ssa_v0" and first[FRONTEND.name] == "woff"
    )  # as each dump spells it


def test_call_site_diagnostics_name_the_callee_and_the_parameter() -> None:
    cases = REPO / "tests" / "graph" / "cases"
    out = run(
        "check",
        "--output-format",
        "concise",
        *(
            str(cases / f"{c}.py")
            for c in (
                "d16_missing_argument",
                "d03_call_site_output",
                "a04_inline_computed_arg",
                "h01_host_read_and_device",
            )
        ),
    ).stdout
    assert "GB115 this Graph call does not supply parameter 2 (`n__ssa_v0` of `layer`)" in out
    assert "GB105 argument 1 (`c__ssa_v0` of `layer`) of this Graph launch has direction `output`" in out
    assert "GB113 argument 1 (`off__ssa_v0` of `kload`) `idx__ssa_v0 * 128` is computed inline" in out
    assert "passed to a device kernel, as argument 0 (`f__ssa_v0` of `kflag`)" in out
