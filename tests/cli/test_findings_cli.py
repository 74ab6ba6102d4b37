"""Issue 13 through the real command line: GB201-GB204 findings in text, JSON and SARIF, SARIF
fixes that reproduce `legalog fix`, `legalog rule`, `[tool.legalog]` configuration, `fix` over
many dumps, and `why --format dot|svg`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import legalog_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CASES = REPO / "tests" / "graph" / "cases"
SARIF_SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())

ROW_SHIFT = EXAMPLES / "row_shift.py"
PARAM_ORDER = CASES / "e01_param_order.py"  # an allocation, a view and a scalar hoisted
RENAMES = CASES / "a08_rename_chain_collapses.py"  # renames deleted
KEPT = CASES / "a12_constant_trip_loop_offset.py"  # a value kept in place (replay-invariant)


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env=env)


def check_json(*args: str) -> list[dict]:
    result = run("check", "--format", "json", "--no-cache", *args)
    return json.loads(result.stdout)["files"]


# ------------------------------------------------------------------------------ findings


def test_the_readme_command_shows_the_hoist_of_base() -> None:
    result = run("check", "--no-cache", str(ROW_SHIFT))
    assert result.returncode == 0, result.stdout  # info findings never fail a check
    out = result.stdout
    assert "info[GB201] [*] derived boundary scalar `base__ssa_v0`" in out
    assert "each call site computes `idx__ssa_v0 * 128`" in out
    assert "row_shift.py:15:9 in `shift`" in out
    assert "graph `shift` (" in out and "parameters 3 -> 4 (+1 scalar), 1 of 1024 nodes" in out
    assert "[*] 1 fixable with `legalog fix`" in out


def test_the_readme_shows_what_its_first_command_prints() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = readme.split("legalog check examples/row_shift.py\n```\n\n```\n", 1)[1].split("\n```", 1)[0]
    assert run("check", "--no-cache", "examples/row_shift.py", cwd=REPO).stdout.rstrip("\n") == shown


@pytest.mark.parametrize(
    ("path", "code", "subject"),
    [
        (PARAM_ORDER, "GB201", "base"),
        (PARAM_ORDER, "GB202", "wl"),
        (PARAM_ORDER, "GB203", "tmp"),
        (RENAMES, "GB204", None),
    ],
)
def test_each_finding_in_text_json_and_sarif(path: Path, code: str, subject: str | None) -> None:
    text = run("check", "--no-cache", str(path))
    assert text.returncode == 0
    assert re.search(rf"^info\[{code}\] \[\*\] ", text.stdout, re.MULTILINE), text.stdout
    [entry] = check_json(str(path))
    found = [d for d in entry["diagnostics"] if d["code"] == code]
    assert found and all(d["severity"] == "info" and d["fixable"] for d in found)
    # the subject is the name the message shows (the dump's own spelling)
    assert subject is None or all(
        f"`{d['subject']}`" in d["message"] and d["subject"].startswith(subject) for d in found
    )
    assert all(entry["graphs"][0]["function"] in d["fix_functions"] for d in found)
    sarif = json.loads(run("check", "--format", "sarif", "--no-cache", str(path)).stdout)
    jsonschema.validate(sarif, SARIF_SCHEMA)
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == code]
    assert len(results) == len(found)
    assert all(r["level"] == "note" for r in results)
    # each is fixed by its own fix, or by the shared one of its Graph it points to
    carriers = {r["guid"] for r in sarif["runs"][0]["results"] if r.get("fixes")}
    assert all(
        r["fixes"][0]["artifactChanges"][0]["replacements"]
        if "fixes" in r
        else r["properties"]["fixedWith"] in carriers
        for r in results
    )
    rule = next(r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == code)
    assert "Before:" in rule["help"]["text"] and "**After:**" in rule["help"]["markdown"]


def test_params_before_and_after_in_json() -> None:
    [entry] = check_json(str(PARAM_ORDER))
    graph = entry["graphs"][0]
    hoisted = len(graph["hoisted_allocs"]) + len(graph["hoisted_views"]) + len(graph["hoisted_scalars"])
    assert graph["params_after"][: len(graph["params_before"])] == graph["params_before"]
    assert (
        len(graph["params_after"]) == len(graph["params_before"]) + hoisted == len(graph["params_before"]) + 3
    )


def test_kept_values_only_with_verbose_and_in_json() -> None:
    [entry] = check_json(str(KEPT))
    kept = entry["graphs"][0]["kept"]
    assert kept and kept[0]["name"] in entry["graphs"][0]["kept_invariant"] + [k["name"] for k in kept]
    assert "replay" in kept[0]["reason"]
    quiet = run("check", "--no-cache", str(KEPT)).stdout
    loud = run("check", "--no-cache", "--verbose", str(KEPT)).stdout
    assert "kept `" not in quiet
    assert f"kept `{kept[0]['name']}` ({kept[0]['kind']}, line {kept[0]['line']}) in place: " in loud


def test_a_rejected_program_has_no_fixable_findings() -> None:
    [entry] = check_json(str(EXAMPLES / "mixed_offsets.py"))
    assert entry["status"] == "rejected"
    assert not [d for d in entry["diagnostics"] if d["fixable"]] and entry["edits"] == []


# ------------------------------------------------------------------------- SARIF fixes


def apply_sarif_fixes(original: str, sarif: dict) -> str:
    """Every distinct replacement of every result's fix, applied to the input by character range."""
    edits = set()
    for result in sarif["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                for rep in change["replacements"]:
                    region = rep["deletedRegion"]
                    edits.add(
                        (
                            region["charOffset"],
                            region["charLength"],
                            rep["insertedContent"]["text"],
                            region["startLine"],
                            region["startColumn"],
                            region["endLine"],
                            region["endColumn"],
                        )
                    )
    out, pos = [], 0
    for offset, length, text, start_line, start_col, end_line, end_col in sorted(edits):
        assert offset >= pos, "fixes overlap"
        # the line/column form names the same region as the character range
        assert (start_line, start_col) == _position(original, offset)
        assert (end_line, end_col) == _position(original, offset + length)
        out += [original[pos:offset], text]
        pos = offset + length
    return "".join(out) + original[pos:]


def _position(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize(
    "path",
    [
        ROW_SHIFT,
        EXAMPLES / "spmd_counts.py",
        PARAM_ORDER,
        RENAMES,
        CASES / "c08_view_of_inplace_rebound_alloc.py",
        CASES / "a15_derived_inside_loop_hoisted.py",
    ],
    ids=lambda p: p.stem,
)
def test_sarif_fixes_applied_to_the_input_give_fix_output(path: Path, tmp_path: Path) -> None:
    sarif = json.loads(run("check", "--format", "sarif", "--no-cache", str(path)).stdout)
    jsonschema.validate(sarif, SARIF_SCHEMA)
    assert all(
        r.get("fixes") or r["properties"]["fixedWith"]
        for r in sarif["runs"][0]["results"]
        if r["level"] == "note"
    )
    out = tmp_path / "fixed.py"
    assert run("fix", str(path), "-o", str(out)).returncode == 0
    assert apply_sarif_fixes(path.read_text(encoding="utf-8"), sarif) == out.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------- rule


def test_rule_documents_a_code() -> None:
    result = run("rule", "GB203")
    assert result.returncode == 0
    for part in (
        "GB203 (graph-alloc-hoisted, info) [*]",
        "What it means:",
        "Why the runtime cares:",
        "What to do instead:",
        "Before:",
        "After:",
        "pl.tensor.create",
    ):
        assert part in result.stdout


def test_rule_all_and_unknown_codes() -> None:
    from legalog.analyzer.codes import CODES

    everything = run("rule", "--all").stdout
    assert all(re.search(rf"^{code} \(", everything, re.MULTILINE) for code in CODES)
    wrong = run("rule", "GB1190")
    assert wrong.returncode == 2 and "unknown code GB1190" in wrong.stderr and "GB119" in wrong.stderr
    assert run("rule").returncode == 2


def test_the_code_table_in_docs_is_the_generated_one() -> None:
    from legalog.surfaces.rule_docs import readme_table

    assert readme_table() in (REPO / "docs" / "codes.md").read_text(encoding="utf-8"), (
        "docs/codes.md's code table is stale: paste legalog.surfaces.rule_docs.readme_table()"
    )


# ----------------------------------------------------------------------------- config


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.legalog]\n{table}\n")
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    shutil.copy(ROW_SHIFT, dumps / "row_shift.py")
    shutil.copy(EXAMPLES / "mixed_offsets.py", dumps / "mixed_offsets.py")
    return dumps


def test_config_is_found_above_the_checked_path(tmp_path: Path) -> None:
    dumps = _project(
        tmp_path, 'fail-on = "never"\nignore = ["GB201"]\nper-file-ignores = {"dumps/mixed_*.py" = ["GB119"]}'
    )
    result = run("check", "--format", "json", "--no-cache", str(dumps))
    assert result.returncode == 0  # fail-on = never, although mixed_offsets is rejected
    codes = {
        Path(f["path"]).name: [d["code"] for d in f["diagnostics"]]
        for f in json.loads(result.stdout)["files"]
    }
    assert codes["row_shift.py"] == []
    assert "GB119" not in codes["mixed_offsets.py"] and "GB118" in codes["mixed_offsets.py"]
    assert (
        run("check", "--no-cache", "--fail-on", "error", str(dumps)).returncode == 1
    )  # the CLI overrides the file


def test_config_runtime_and_exclude(tmp_path: Path) -> None:
    dumps = _project(tmp_path, 'runtime = "tensormap_and_ringbuffer"\nexclude = ["dumps/mixed_offsets.py"]')
    files = json.loads(run("check", "--format", "json", "--no-cache", str(dumps)).stdout)["files"]
    assert [Path(f["path"]).name for f in files] == ["row_shift.py"]
    assert [d["code"] for d in files[0]["diagnostics"]] == ["GB101"]  # a Graph on the wrong runtime
    override = json.loads(
        run("check", "--format", "json", "--no-cache", "--runtime", "host_build_graph", str(dumps)).stdout
    )["files"]
    assert override[0]["status"] == "rewritten"


@pytest.mark.parametrize(
    ("table", "line", "words"),
    [
        ('runtime = "host_build_graph"\nfail_on = "never"', 6, "unknown key `fail_on`"),
        ('ignore = ["GB201",\n  "GB999"]', 6, "unknown code 'GB999'"),
        ('fail-on = "sometimes"', 5, "`fail-on`"),
        ("ignore = [", 5, "not valid TOML"),
    ],
)
def test_config_errors_name_the_file_and_line(tmp_path: Path, table: str, line: int, words: str) -> None:
    dumps = _project(tmp_path, table)
    result = run("check", str(dumps))
    assert result.returncode == 2
    assert f"pyproject.toml:{line}:" in result.stderr and words in result.stderr, result.stderr


def test_explicit_config_file(tmp_path: Path) -> None:
    config = tmp_path / "legalog.toml"
    config.write_text('ignore = ["GB2"]\n')
    files = json.loads(
        run("check", "--format", "json", "--no-cache", "--config", str(config), str(ROW_SHIFT)).stdout
    )["files"]
    assert files[0]["diagnostics"] == [] and files[0]["status"] == "rewritten"
    missing = run("check", "--config", str(tmp_path / "nope.toml"), str(ROW_SHIFT))
    assert missing.returncode == 2 and "no such configuration file" in missing.stderr


# -------------------------------------------------------------------------- batch fix


def test_fix_many_in_place(tmp_path: Path) -> None:
    expected = tmp_path / "expected.py"
    assert run("fix", str(ROW_SHIFT), "-o", str(expected)).returncode == 0
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    for name in ("a.py", "sub/b.py"):
        shutil.copy(ROW_SHIFT, tree / name)
    shutil.copy(EXAMPLES / "mixed_offsets.py", tree / "sub" / "rejected.py")
    (tree / "broken.py").write_text("x = (\n")
    before = {p: p.read_bytes() for p in tree.rglob("*.py")}
    result = run("fix", "--in-place", "--jobs", "2", str(tree))
    assert result.returncode == 2  # an unreadable input is there
    assert (
        "4 files: 2 fixed, 1 rejected, 1 error (nothing written for rejected or failed files)"
        in result.stderr
    )
    assert (tree / "a.py").read_text() == (tree / "sub" / "b.py").read_text() == expected.read_text()
    for name in ("broken.py", "sub/rejected.py"):
        assert (tree / name).read_bytes() == before[tree / name]
    assert sorted(p.name for p in tree.rglob("*")) == [
        "a.py",
        "b.py",
        "broken.py",
        "rejected.py",
        "sub",
    ]  # no temp files
    again = run("fix", "--in-place", str(tree / "a.py"), str(tree / "sub" / "b.py"))
    assert again.returncode == 0 and "2 files: 2 legal" in again.stderr


def test_fix_of_a_passes_dump_folder_writes_the_pass_position(tmp_path: Path) -> None:
    dump = tmp_path / "passes_dump"
    dump.mkdir()
    for name in ("30_after_Simplify.py", "44_after_Simplify.py", "46_after_MaterializeRuntimeScopes.py"):
        shutil.copy(ROW_SHIFT, dump / name)
    result = run("fix", "--in-place", str(dump))
    assert result.returncode == 0, result.stderr
    assert "44_after_Simplify.py" in result.stderr
    changed = sorted(p.name for p in dump.iterdir() if p.read_bytes() != ROW_SHIFT.read_bytes())
    assert changed == ["44_after_Simplify.py"]


def test_fix_many_refuses_one_output(tmp_path: Path) -> None:
    result = run("fix", str(ROW_SHIFT), str(RENAMES), "-o", str(tmp_path / "x.py"))
    assert result.returncode == 2 and "-o names one output" in result.stderr
    diff = run("fix", "--diff", str(ROW_SHIFT), str(RENAMES))
    assert diff.returncode == 1 and diff.stdout.count("+++ ") == 2  # changes pending, as `ruff check --diff`


def test_fix_many_runs_its_batch_as_check_does(tmp_path: Path) -> None:
    """`fix` over many dumps takes check's batch options: the cache it names, the executor, the
    time limit (a file past it is an error, so nothing is written for it)."""
    cache = tmp_path / "cache"
    assert (
        run("fix", "--diff", "--cache-dir", str(cache), str(ROW_SHIFT), str(RENAMES)).returncode == 1
    )  # changes pending
    assert any(p.is_file() for p in cache.rglob("*")), "--cache-dir was not used"
    dask = run(
        "fix",
        "--diff",
        "--executor",
        "dask",
        str(ROW_SHIFT),
        str(RENAMES),
        env={**os.environ, "LEGALOG_DASK_SCHEDULER": ""},
    )
    assert dask.returncode == 2 and "--executor dask needs --scheduler" in dask.stderr
    both = run("fix", "--diff", "--no-cache", "--cache-dir", str(cache), str(ROW_SHIFT), str(RENAMES))
    assert both.returncode == 2 and "exclude each other" in both.stderr


def test_fix_many_honours_the_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from legalog.cli import main
    from tests.robust.test_failures import hang_on

    for src in (ROW_SHIFT, RENAMES):
        shutil.copy(src, tmp_path / src.name)
    hang_on(monkeypatch, ROW_SHIFT.name)
    assert main(["fix", "--in-place", "--no-cache", "--timeout", "0.3", "--jobs", "1", str(tmp_path)]) == 2
    assert (tmp_path / ROW_SHIFT.name).read_bytes() == ROW_SHIFT.read_bytes()  # past the limit: untouched
    assert (tmp_path / RENAMES.name).read_bytes() != RENAMES.read_bytes()


# ------------------------------------------------------------------------- why --format dot


def parse_dot(text: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str]]]:
    """Nodes (id -> attributes) and edges (source, target, label) of the DOT legalog writes."""
    assert text.startswith("digraph ") and text.rstrip().endswith("}")
    attr = r'(\w+)=("(?:[^"\\]|\\.)*"|[\w.]+)'
    nodes, edges = {}, []
    for line in text.splitlines():
        if m := re.fullmatch(r"\s*(n\d+) -> (n\d+) \[(.*)\];", line):
            edges.append((m[1], m[2], dict(re.findall(attr, m[3])).get("label", "")))
        elif m := re.fullmatch(r"\s*(n\d+) \[(.*)\];", line):
            nodes[m[1]] = dict(re.findall(attr, m[2]))
    assert all(s in nodes and t in nodes for s, t, _ in edges), "an edge names an undeclared node"
    return nodes, edges


def reachable(edges: list[tuple[str, str, str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for s, t, _ in edges:
            if s == here and t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_why_dot_of_a_rejected_view_marks_the_blocking_leaf() -> None:
    result = run(
        "why", str(EXAMPLES / "mixed_offsets.py"), "-f", "read_offset", "-v", "xv", "--format", "dot"
    )
    assert result.returncode == 0
    nodes, edges = parse_dot(result.stdout)
    [value] = [n for n, a in nodes.items() if a["shape"] == "doubleoctagon"]
    assert "rejected (view)" in nodes[value]["label"] and nodes[value]["fillcolor"] == "lightpink"
    [blocking] = [n for n, a in nodes.items() if a.get("fillcolor") == "red"]
    assert "pl.tensor.read(sel__ssa_v0, [0])" in nodes[blocking]["label"]
    assert blocking in reachable(edges, value)
    # provenance: the view's source is the boundary parameter
    params = [n for n, a in nodes.items() if a["shape"] == "ellipse" and "boundary tensor" in a["label"]]
    assert any((value, p) == (s, t) and "a view" in label for p in params for s, t, label in edges)


def test_why_dot_of_a_hoisted_scalar_reaches_its_leaves() -> None:
    result = run("why", str(ROW_SHIFT), "-f", "shift", "-v", "base", "--format", "dot")
    nodes, edges = parse_dot(result.stdout)
    [value] = [n for n, a in nodes.items() if a["shape"] == "doubleoctagon"]
    labels = {nodes[n]["label"].split("\\n")[0].strip('"') for n in reachable(edges, value) - {value}}
    assert labels == {"idx__ssa_v0 * 128", "idx__ssa_v0", "128"}
    assert not [a for a in nodes.values() if a.get("fillcolor") == "red"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_why_svg_renders_with_graphviz() -> None:
    result = run("why", str(ROW_SHIFT), "-f", "shift", "-v", "base", "--format", "svg")
    assert result.returncode == 0 and "<svg" in result.stdout and "idx__ssa_v0 * 128" in result.stdout


def test_why_svg_without_graphviz_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no `dot` there
    result = run("why", str(ROW_SHIFT), "-f", "shift", "-v", "base", "--format", "svg", env=env)
    assert result.returncode == 2 and "needs Graphviz's `dot`" in result.stderr
