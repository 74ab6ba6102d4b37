"""Every command and format through the real command line (subprocess): batches, passes_dump
folders, why, query, facts, SARIF, --fail-on, fix --diff / --in-place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import GRAPH

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "legalog", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout


# ----------------------------------------------------------------------------- batch


@pytest.mark.slow
def test_a_batch_of_hundreds_with_broken_files_mixed_in(tmp_path: Path) -> None:
    examples = sorted(EXAMPLES.glob("*.py"))
    broken = {"unclosed.py": "x = (\n", "not_a_program.py": "print('hello')\n", "empty.py": ""}
    expected: dict[str, str] = {}
    for i in range(240):
        sub = tmp_path / f"d{i % 7}"
        sub.mkdir(exist_ok=True)
        if i % 20 == 7:
            name, text = sorted(broken.items())[i % 3]
            (sub / f"b{i:03d}_{name}").write_text(text)
            expected[f"b{i:03d}_{name}"] = "error"
        else:
            src = examples[i % len(examples)]
            shutil.copy(src, sub / f"f{i:03d}_{src.name}")
            expected[f"f{i:03d}_{src.name}"] = src.name
    result = run("check", "--format", "json", "--jobs", "2", str(tmp_path))
    clean(result)
    assert result.returncode == 2  # unreadable inputs are there
    files = json.loads(result.stdout)["files"]
    assert [f["path"] for f in files] == sorted(f["path"] for f in files), "stable, sorted order"
    assert len(files) == 240
    status_of = {"row_shift.py": "rewritten", "mixed_offsets.py": "rejected", "spmd_counts.py": None}
    for f in files:
        name = Path(f["path"]).name
        if expected[name] == "error":
            assert f["status"] == "error" and f["diagnostics"][0]["code"] == "PARSE"
            assert f["diagnostics"][0]["message"]
        elif (want := status_of[expected[name]]) is not None:
            assert f["status"] == want, name
    # same answers sequentially: scheduling never changes the result
    again = run("check", "--format", "json", "--jobs", "1", str(tmp_path / "d3"))
    parallel = [f for f in files if Path(f["path"]).parent.name == "d3"]
    assert json.loads(again.stdout)["files"] == parallel


def test_text_summary_and_no_progress_bar_when_piped(tmp_path: Path) -> None:
    for src in EXAMPLES.glob("*.py"):
        shutil.copy(src, tmp_path / src.name)
    (tmp_path / "broken.py").write_text("x = (\n")
    result = run("check", "--jobs", "2", str(tmp_path))
    clean(result)
    summary = result.stdout.strip().splitlines()
    # the three examples (row_shift and spmd_counts rewritten, mixed_offsets rejected) and the broken file
    assert "4 files: 2 rewritten, 1 rejected, 1 error" in summary
    assert "GB113: 1  GB118: 1  GB119: 2  GB201: 1  PARSE: 1  SP310: 1" in summary
    assert "checking" not in result.stderr  # no progress bar: stderr is not a terminal


def test_a_worker_that_dies_loses_only_its_own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from legalog.surfaces import batch

    real = batch.analyse_target

    def dying(target, runtime="host_build_graph", *more):  # type: ignore[no-untyped-def]
        if target.path.endswith("die.py"):
            os._exit(3)
        return real(target, runtime, *more)

    monkeypatch.setattr(batch, "analyse_target", dying)
    files = []
    for i in range(6):
        shutil.copy(EXAMPLES / "row_shift.py", tmp_path / f"ok{i}.py")
        files.append(tmp_path / f"ok{i}.py")
    files.insert(3, tmp_path / "die.py")
    shutil.copy(EXAMPLES / "row_shift.py", files[3])
    results = batch.run(files, jobs=2)
    assert [Path(r.path).name for r in results] == [f.name for f in files]
    assert results[3].status == "error" and "process died" in results[3].diagnostics[0].message
    assert all(r.status == "rewritten" for i, r in enumerate(results) if i != 3)


# ------------------------------------------------------------------------ passes_dump


def make_passes_dump(root: Path, *, with_anchors: bool = True) -> Path:
    folder = root / "prog" / "passes_dump"
    folder.mkdir(parents=True)
    graph, spmd = (
        GRAPH / "a12_reject_mixed_offsets.graph_input.py",
        GRAPH / "a09_orch_spmd_counts.spmd_input.py",
    )
    layout = {
        "00_frontend.py": GRAPH / "a12_reject_mixed_offsets.frontend.py",
        "30_after_Simplify.py": GRAPH / "a12_reject_mixed_offsets.frontend.py",
        "37_after_FuseCreateAssembleToSlice.py": spmd,
        "45_after_Simplify.py": graph,
    }
    if with_anchors:
        layout |= {"38_after_DeriveCallDirections.py": spmd, "46_after_MaterializeRuntimeScopes.py": graph}
    for name, src in layout.items():
        shutil.copy(src, folder / name)
    return folder


@pytest.mark.shared
def test_a_passes_dump_folder_checks_each_pass_at_its_position(tmp_path: Path) -> None:
    folder = make_passes_dump(tmp_path)
    result = run("check", "--format", "json", str(tmp_path))
    clean(result)
    files = json.loads(result.stdout)["files"]
    used = {Path(f["used_dump"]).name: f for f in files}
    assert set(used) == {"45_after_Simplify.py", "37_after_FuseCreateAssembleToSlice.py"}
    graph, spmd = used["45_after_Simplify.py"], used["37_after_FuseCreateAssembleToSlice.py"]
    assert graph["path"] == spmd["path"] == str(folder)
    assert {d["code"] for d in graph["diagnostics"]} == {"GB113", "GB118", "GB119"} and not graph["launches"]
    assert {d["code"] for d in spmd["diagnostics"]} == {"SP310"} and spmd["launches"] and not spmd["graphs"]
    assert "the last Simplify before 46_after_MaterializeRuntimeScopes.py" in result.stderr
    assert "the dump just before 38_after_DeriveCallDirections.py" in result.stderr
    text = run("check", str(tmp_path))
    assert "Graph boundaries checked in 45_after_Simplify.py" in text.stdout
    assert "45_after_Simplify.py:38:13" in text.stdout  # locations point into the dump used


@pytest.mark.shared
def test_all_dumps_and_missing_anchor_fallbacks(tmp_path: Path) -> None:
    make_passes_dump(tmp_path / "a")
    every = json.loads(run("check", "--all-dumps", "--format", "json", str(tmp_path / "a")).stdout)["files"]
    assert len(every) == 6 and all(f["used_dump"] is None for f in every)
    make_passes_dump(tmp_path / "b", with_anchors=False)
    result = run("check", "--format", "json", str(tmp_path / "b"))
    files = json.loads(result.stdout)["files"]
    assert {Path(f["used_dump"]).name for f in files} == {"45_after_Simplify.py"}
    assert "fallback: no MaterializeRuntimeScopes dump; used the last Simplify" in result.stderr
    assert "fallback: no DeriveCallDirections dump" in result.stderr


# A launch to guard (SP310: core_num `n` may be 0), in the style of examples/row_shift.py, whose
# Graph `shift` has a scalar to hoist (GB201): one dump with work for both passes.
_T = "pl.Tensor[[64], pl.FP32]"
_LAUNCH = f"""\
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(x: {_T}, y: pl.Out[{_T}]) -> {_T}:
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def launch(self, x: {_T}, y: pl.InOut[{_T}], n: pl.Scalar[pl.INT32]) -> {_T}:
        y1: {_T} = self.k(x, y, attrs={{"core_num": n, "sync_start": True}})
        return y1
"""


def test_each_passes_dump_position_runs_its_own_pass_only(tmp_path: Path) -> None:
    """The same dump at both positions: the SPMD position reports, rewrites and offers to fix only
    the launch guard, the Graph position only the hoist (status, diagnostics, edits, SARIF fixes,
    `fix --diff`)."""
    both = (EXAMPLES / "row_shift.py").read_text(encoding="utf-8") + _LAUNCH
    folder = tmp_path / "passes_dump"
    folder.mkdir()
    for name in ("37_after_Simplify.py", "38_after_DeriveCallDirections.py"):
        (folder / name).write_text(both, encoding="utf-8")
    for name in ("45_after_Simplify.py", "46_after_MaterializeRuntimeScopes.py"):
        (folder / name).write_text(both, encoding="utf-8")
    result = run("check", "--no-cache", "--format", "json", str(folder))
    clean(result)
    entries = {Path(f["used_dump"]).name: f for f in json.loads(result.stdout)["files"]}
    graph, spmd = entries["45_after_Simplify.py"], entries["37_after_Simplify.py"]
    assert graph["status"] == spmd["status"] == "rewritten"
    assert [d["code"] for d in graph["diagnostics"]] == ["GB201"] and graph["launches"] == []
    assert [d["code"] for d in spmd["diagnostics"]] == ["SP310"] and spmd["graphs"] == []
    assert {e["function"] for e in graph["edits"]} == {"shift", "main"}
    assert {e["function"] for e in spmd["edits"]} == {"launch"}

    diff = run("fix", "--no-cache", "--diff", str(folder))
    clean(diff)
    by_file = {Path(part.split("\n", 1)[0].strip()).name: part for part in diff.stdout.split("--- ")[1:]}
    assert set(by_file) == {"45_after_Simplify.py", "37_after_Simplify.py"}
    assert (
        "base__graph_arg0" in by_file["45_after_Simplify.py"] and "> 0" not in by_file["45_after_Simplify.py"]
    )
    assert (
        "if n > 0:" in by_file["37_after_Simplify.py"] and "graph_arg" not in by_file["37_after_Simplify.py"]
    )

    sarif = json.loads(run("check", "--no-cache", "--output-format", "sarif", str(folder)).stdout)
    fixes: dict[str, list[str]] = {}
    for r in sarif["runs"][0]["results"]:
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        fixes.setdefault(Path(uri).name, []).append(json.dumps(r.get("fixes", [])))
    assert {name: len(found) for name, found in fixes.items()} == {
        "45_after_Simplify.py": 1,
        "37_after_Simplify.py": 1,
    }
    assert (
        "base__graph_arg0" in fixes["45_after_Simplify.py"][0]
        and "> 0" not in fixes["45_after_Simplify.py"][0]
    )
    assert "> 0" in fixes["37_after_Simplify.py"][0] and "graph_arg" not in fixes["37_after_Simplify.py"][0]


# ------------------------------------------------------------------------------ formats


def test_json_validates_against_legalog_schema() -> None:
    schema = json.loads(run("schema").stdout)
    examples = sorted(EXAMPLES.glob("*.py"))
    reports = [json.loads(run("check", "--format", "json", str(src)).stdout) for src in examples]
    assert {f["status"] for r in reports for f in r["files"]} == {"rewritten", "rejected"}, (
        "the examples changed"
    )
    for report in reports:
        jsonschema.validate(report, schema)
    # the schema is no blank check: a report with a status legalog never writes is refused
    bad = json.loads(json.dumps(reports[0]))
    bad["files"][0]["status"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("x = (\n")
    for src in EXAMPLES.glob("*.py"):
        shutil.copy(src, tmp_path / src.name)
    result = run("check", "--format", "sarif", str(tmp_path))
    clean(result)
    sarif = json.loads(result.stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    results = sarif["runs"][0]["results"]
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert {"GB119", "SP310", "PARSE"} <= {r["ruleId"] for r in results}
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert all(r["help"]["text"] for r in rules)
    loc = next(r for r in results if r["ruleId"] == "GB119")["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].startswith("file://") and loc["region"]["startLine"] == 38


def test_text_is_in_ruffs_shape() -> None:
    out = run("check", str(EXAMPLES / "mixed_offsets.py")).stdout
    assert "error[GB119] view `xv__ssa_v0`" in out
    assert "  --> " in out and "mixed_offsets.py:38:13" in out
    assert "38 |" in out and "   |             ^" in out
    assert "= help:" in out and "= note:" in out
    spmd = run("check", str(EXAMPLES / "spmd_counts.py")).stdout
    assert "info[SP310] [*]" in spmd and "fixable with `legalog fix`" in spmd


@pytest.mark.parametrize(("fail_on", "code"), [("error", 1), ("warning", 1), ("never", 0)])
def test_fail_on(fail_on: str, code: int) -> None:
    assert run("check", "--fail-on", fail_on, str(EXAMPLES / "mixed_offsets.py")).returncode == code


def test_fail_on_info_findings_never_fail() -> None:
    assert run("check", "--fail-on", "warning", str(EXAMPLES / "spmd_counts.py")).returncode == 0


# ---------------------------------------------------------------------------------- why


def test_why_text_and_json() -> None:
    text = run("why", str(EXAMPLES / "row_shift.py"), "--function", "shift", "--var", "base")
    clean(text)
    assert text.returncode == 0 and "verdict: hoisted (scalar)" in text.stdout
    assert 'hoisted_scalar("shift/base__ssa_v0")' in text.stdout
    data = json.loads(
        run(
            "why",
            str(EXAMPLES / "mixed_offsets.py"),
            "-f",
            "read_offset",
            "-v",
            "xv__ssa_v0",
            "--format",
            "json",
        ).stdout
    )
    assert data["verdict"] == "rejected" and data["kind"] == "view"
    assert any(op["decided"] for op in data["operands"])
    assert {"relation": "moving_view", "row": ["read_offset/xv__ssa_v0"]} in data["evidence"]


def test_why_errors_exit_two_with_candidates(tmp_path: Path) -> None:
    result = run("why", str(EXAMPLES / "row_shift.py"), "-f", "shift", "-v", "bse")
    assert result.returncode == 2 and "candidates: base" in result.stderr
    clean(result)
    missing = run("why", str(tmp_path / "nope.py"), "-f", "shift", "-v", "base")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    (tmp_path / "broken.py").write_text("x = (\n")
    broken = run("why", str(tmp_path / "broken.py"), "-f", "shift", "-v", "base")
    assert broken.returncode == 2 and "PARSE" in broken.stderr and "broken.py:1:" in broken.stderr
    clean(broken)


# -------------------------------------------------------------------------------- query


def test_query_rows_table_and_json() -> None:
    f = str(EXAMPLES / "mixed_offsets.py")
    table = run("query", f, 'blocking(R, X, "loop_index")')
    clean(table)
    assert table.returncode == 0
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["R", "X"] and lines[-1].startswith("(")
    data = json.loads(run("query", f, "moving_view(V)", "--format", "json").stdout)
    assert data["rows"] == [["mixed_view/xv__ssa_v0"], ["read_offset/xv__ssa_v0"]]
    assert run("query", f, 'function("mixed_view", "Graph")').stdout.strip() == "yes"
    same = json.loads(run("query", f, "buffer_root(V, V)", "--format", "json").stdout)
    assert (
        same["columns"] == ["V"] and same["rows"]
    )  # names that are their own root: a repeated variable joins
    assert all(r[0] not in {w for (w,) in data["rows"]} for r in same["rows"])  # a view is never its own root


def test_query_errors_are_clear_and_exit_two() -> None:
    f = str(EXAMPLES / "mixed_offsets.py")
    unknown = run("query", f, "hoisted_scalr(V)")
    assert unknown.returncode == 2 and "did you mean hoisted_scalar" in unknown.stderr
    arity = run("query", f, "view(V)")
    assert arity.returncode == 2 and "view(V, Src, E)" in arity.stderr
    lower = run("query", f, "view(v, S, E)")
    assert lower.returncode == 2 and 'write "v"' in lower.stderr
    syntax = run("query", f, "view(V,")
    assert syntax.returncode == 2
    for r in (unknown, arity, lower, syntax):
        clean(r)


def test_query_list_names_every_relation_with_columns() -> None:
    out = run("query", str(EXAMPLES / "row_shift.py"), "--list").stdout
    assert "blocking(R, L, Why)" in out and "param(F, Pos, V)" in out and "varying_leaf(E, X, Why)" in out
    data = json.loads(run("query", str(EXAMPLES / "row_shift.py"), "--list", "--format", "json").stdout)
    kinds = {r["name"]: r["kind"] for r in data}
    assert kinds["assign"] == "input" and kinds["hoisted_scalar"] == "derived"


# -------------------------------------------------------------------------------- facts


def test_facts_writes_every_relation_and_the_schema(tmp_path: Path) -> None:
    from legalog.facts.schema import INPUT_RELATIONS

    out = tmp_path / "facts"
    result = run("facts", str(EXAMPLES / "row_shift.py"), "-o", str(out))
    clean(result)
    assert result.returncode == 0
    assert {p.name for p in out.iterdir()} == {f"{r.name}.facts" for r in INPUT_RELATIONS} | {"schema.dl"}
    assert ".decl assign(s:symbol, v:symbol, e:symbol)" in (out / "schema.dl").read_text()
    rows = [line.split("\t") for line in (out / "param.facts").read_text().splitlines()]
    assert ["shift", "2", "shift/idx__ssa_v0"] in rows
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".legalog-facts-")]  # staging removed


# ---------------------------------------------------------------------------------- fix


def test_fix_diff_writes_nothing_and_in_place_rewrites(tmp_path: Path) -> None:
    dump = tmp_path / "row_shift.py"
    shutil.copy(EXAMPLES / "row_shift.py", dump)
    before = dump.read_text()
    diff = run("fix", str(dump), "--diff")
    clean(diff)
    assert diff.returncode == 1 and diff.stdout.startswith("---") and "+++" in diff.stdout
    assert dump.read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == ["row_shift.py"]
    inplace = run("fix", str(dump), "--in-place")
    assert inplace.returncode == 0 and dump.read_text() != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["row_shift.py"]  # no temporary left
    assert json.loads(run("check", "--format", "json", str(dump)).stdout)["files"][0]["status"] == "legal"


def test_usage_errors_never_show_a_traceback(tmp_path: Path) -> None:
    for args in (
        ("check", str(tmp_path / "missing.py")),
        ("fix", str(tmp_path / "missing.py"), "--diff"),
        ("facts", str(tmp_path / "missing.py"), "-o", str(tmp_path / "o")),
        ("query", str(EXAMPLES / "row_shift.py")),
    ):
        result = run(*args)
        assert result.returncode == 2, args
        clean(result)
