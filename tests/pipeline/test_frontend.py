"""Frontend dumps are real input: each corpus `*.frontend.py` gets the verdicts of the dump PyPTO
writes for it at the pass's own position, and `fix` writes a program PyPTO reads, in the dump's
own (frontend) style."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from legalog.analyzer.graph import plain_name, plain_text
from legalog.facts.ids import var_id
from legalog.ir.parser import parse
from legalog.ir.transform import bound_names
from legalog.pipeline import Analysis, analyze
from legalog.surfaces.file_models import file_model
from tests import pypto_child
from tests.conftest import CORPUS, FUZZ, GRAPH, REPO, on_shared
from tests.oracle.pypto_oracle import WHERE

FRONTENDS = sorted(GRAPH.glob("*.frontend.py"))
HERE = Path(__file__).parent / "frontend"
REPRODUCER = FUZZ / "keyerror_graph_py_111.py"
_SSA_SUFFIX = re.compile(r"__(?:ssa|idx|iter|rv|phi)_v\d+")


def _pairs() -> list[tuple[Path, Path]]:
    out = []
    for frontend in FRONTENDS:
        stem = frontend.name.split(".")[0]
        for position in ("graph_input", "spmd_input"):
            other = GRAPH / f"{stem}.{position}.py"
            if other.exists():
                out.append((frontend, other))
    return out


def _dead(a: Analysis, function: str, name: str) -> bool:
    """A binding nothing reads: Simplify deletes it before the graph_input position."""
    assert a.derived is not None
    return not any(v == var_id(function, name) for v, _s in a.derived["use"])


def _verdicts(a: Analysis, position: str) -> dict:
    graphs = {}
    for g in a.graphs if position == "graph_input" else ():
        scalars = [h for h in g.hoisted if h.kind == "scalar" and not _dead(a, g.function, h.name)]
        graphs[g.function] = {
            "hoisted scalars": sorted(plain_name(h.name) for h in scalars),
            "hoisted views": sorted(plain_name(h.name) for h in g.hoisted if h.kind == "view"),
            "hoisted allocs": sorted(plain_name(h.name) for h in g.hoisted if h.kind == "alloc"),
            "removed aliases": sorted((plain_name(n), plain_name(t)) for n, t in g.aliases),
            "node count": g.node_count,
        }
    codes = sorted(
        (d.code, d.function, plain_text(d.subject or ""))
        for d in a.diagnostics
        if position == "graph_input" or d.code.startswith("SP")
    )
    launches = (
        sorted((x.function, x.callee, x.outcome) for x in a.launches) if position == "spmd_input" else []
    )
    return {"status": a.status, "graphs": graphs, "diagnostics": codes, "launches": launches}


@pytest.mark.shared
@pytest.mark.parametrize(("frontend", "other"), _pairs(), ids=lambda p: p.name)
def test_frontend_verdicts_match_the_pass_position_dump(frontend: Path, other: Path) -> None:
    """Hoists, renames, node counts, rejections by code and subject, and SPMD outcomes agree.  The
    graph_input dump is 45 passes later; two of its differences are not verdicts: Simplify has
    deleted dead bindings (a dead hoistable scalar is not compared), and FlattenCallExpr names
    nested calls (their temporaries are only ever kept, and kept values are not compared)."""
    position = other.name.split(".")[1]
    mine = analyze(frontend.read_text(), str(frontend))
    theirs = analyze(other.read_text(), str(other))
    assert not [d for d in mine.diagnostics if d.code in ("PARSE", "INTERNAL", "FE401")]
    if position == "spmd_input":
        mine_v, theirs_v = _verdicts(mine, position), _verdicts(theirs, position)
        mine_v["status"] = theirs_v["status"] = None  # the Graph verdicts belong to graph_input
        assert mine_v == theirs_v
    else:
        assert _verdicts(mine, position) == _verdicts(theirs, position)


@pytest.mark.shared
def test_every_frontend_dump_analyses() -> None:
    for path in [*FRONTENDS, CORPUS / "04_qwen3_single_layer_prefill_frontend.py"]:
        a = analyze(path.read_text(), str(path))
        assert a.status != "error", path.name
        assert not [d for d in a.diagnostics if d.code in ("PARSE", "INTERNAL", "FE401")], path.name


def _names(text: str) -> dict[str, set[str]]:
    program = parse(text)
    return {f.name: bound_names(f.body) | {p.name for p in f.params} for f in program.functions}


def _fixed(path: Path) -> tuple[str, str] | None:
    source = path.read_text()
    text = analyze(source, str(path)).legalized_text()
    return None if text is None or text == source else (source, text)


@pytest.mark.parametrize(
    "path", [*on_shared([*FRONTENDS, REPRODUCER]), *sorted(HERE.glob("*.py"))], ids=lambda p: p.name
)
def test_fix_keeps_frontend_style_and_is_final(path: Path) -> None:
    """A rewritten frontend dump binds no SSA-suffixed name the dump did not have, except a new
    parameter; and analysing the fixed dump finds nothing more to do."""
    fixed = _fixed(path)
    if fixed is None:
        pytest.skip("nothing to rewrite")
    source, text = fixed
    before, after = _names(source), _names(text)
    new_params = {f.name: {p.name for p in f.params} for f in parse(text).functions}
    old_params = {f.name: {p.name for p in f.params} for f in parse(source).functions}
    for fn, names in after.items():
        invented = {n for n in names - before[fn] if _SSA_SUFFIX.search(n)} - (
            new_params[fn] - old_params[fn]
        )
        assert not invented, (fn, invented)
    again = analyze(text, str(path))
    assert again.status == "legal", [d.message for d in again.diagnostics]


def test_a_rebound_hoisted_scalar_gets_its_own_parameter() -> None:
    path = HERE / "rebound_offset.py"
    text = analyze(path.read_text(), str(path)).legalized_text()
    assert text is not None
    win = parse(text).function("win")
    assert [p.name for p in win.params] == ["x", "y", "idx", "off__ssa_v0", "off__ssa_v1"]  # type: ignore[union-attr]
    assert "off__graph_arg0: pl.Scalar[pl.INDEX] = i * 128" in text
    assert "off__graph_arg1: pl.Scalar[pl.INDEX] = i * 64 + 512" in text


def test_an_alias_whose_root_is_rebound_reads_the_version_it_named() -> None:
    """`n = batch` then `batch = batch + 1`: readers of `n` get the parameter `batch`, the
    rebound `batch` its own parameter; `a = a` (a parameter rebound to itself) stays."""
    path = HERE / "alias_root_rebound.py"
    text = analyze(path.read_text(), str(path)).legalized_text()
    assert text is not None
    g = parse(text).function("g")
    assert [p.name for p in g.params] == ["a", "c", "batch", "v", "batch__ssa_v1"]  # type: ignore[union-attr]
    assert "c: pl.Tensor[[128, 128], pl.FP32] = self.k(a, c, batch)\n" in text
    assert "c: pl.Tensor[[128, 128], pl.FP32] = self.k(a, c, batch__ssa_v1)\n" in text
    assert "v__graph_arg1: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(a, [128, 128], [j, 0])" in text


def test_the_report_names_each_new_parameter_as_the_written_output_does() -> None:
    """JSON `params_after` and `hoisted_scalars` of a frontend dump: the parameters `fix` writes,
    two distinct ones for a name bound twice (never `off` twice)."""
    for name in ("rebound_offset.py", "alias_root_rebound.py"):
        analysis = analyze((HERE / name).read_text(), name)
        text = analysis.legalized_text()
        assert text is not None
        for graph in file_model(analysis).graphs:
            written = parse(text).function(graph.function)
            assert written is not None and graph.params_after == [p.name for p in written.params], name
    [win] = file_model(analyze((HERE / "rebound_offset.py").read_text())).graphs
    assert [h.param for h in win.hoisted_scalars] == ["off__ssa_v0", "off__ssa_v1"]


# rebound_offset.py with a column count `cw` (kept: tensor.dim of a boundary tensor) the first
# `off` reads: `off` is bound twice
COLUMN_WINDOW = (
    (HERE / "rebound_offset.py")
    .read_text()
    .replace(
        "        off: pl.Scalar[pl.INDEX] = idx * 128\n",
        "        cw: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 1) // 4\n        off: pl.Scalar[pl.INDEX] = idx * cw\n",
    )
)


def _outside_evidence(text: str) -> str:
    return text.split("evidence (relation rows):")[0]


def test_why_on_a_frontend_dump_speaks_the_dumps_names() -> None:
    """`why` names values as the dump does (`cw`, never `cw__ssa_v0`) in its text, JSON and
    picture; only the evidence and the picture's node ids keep the rules' ids, which `query` reads."""
    assert "pl.tensor.dim(x, 1) // 4" in COLUMN_WINDOW
    analysis = analyze(COLUMN_WINDOW, "cw.py")
    why = analysis.explain("win", "cw")
    text = why.render_text()
    assert text.startswith("why `cw` in `win` (cw.py:8)\n  cw = pl.tensor.dim(x, 1) // 4\n"), text
    assert "__ssa_v" not in _outside_evidence(text) and 'kept_invariant("win/cw__ssa_v0")' in text
    shown = why.to_json()
    assert shown["var"] == shown["name"] == "cw"
    graph = shown.pop("graph")
    del shown["evidence"]
    assert "__ssa_v" not in str(shown)
    assert "__ssa_v" not in str(
        [(n["label"], n["notes"]) for n in graph["nodes"]] + [e["label"] for e in graph["edges"]]
    )
    # a name bound twice: the value asked for, and only its own diagnostic
    second = analyze((HERE / "rebound_offset.py").read_text(), "r.py").explain("win", "off__ssa_v1")
    assert second.render_text().startswith("why `off` in `win` (r.py:12)\n  off = idx * 64 + 512\n")
    assert [d.split(":")[0] for d in second.diagnostics] == ["GB201 line 12"]


def test_a_rewrite_the_dumps_names_cannot_spell_prints_that_function_in_ssa_form() -> None:
    """A hoisted view carried through a loop: its two versions are both live in the loop, so no
    frontend spelling means the rewrite; the function prints as ConvertToSSA's form instead (the
    others keep their own text), and the result is final."""
    path = HERE / "ssa_fallback" / "carried_hoisted_view.py"
    text = analyze(path.read_text(), str(path)).legalized_text()
    assert text is not None
    g, main = parse(text).function("g"), parse(text).function("main")
    assert [p.name for p in g.params] == ["a__ssa_v0", "c__ssa_v0", "batch__ssa_v0", "v__ssa_v0", "v__ssa_v3"]  # type: ignore[union-attr]
    assert [p.name for p in main.params] == ["a", "c", "m"]  # type: ignore[union-attr]
    assert analyze(text).status == "legal"


@pytest.mark.shared
def test_parameter_rebound_by_a_call_then_viewed(tmp_path: Path) -> None:
    """../shared/fuzz/keyerror_graph_py_111.py: a KeyError in analyzer/graph.py before versioning."""
    a = analyze(REPRODUCER.read_text(), str(REPRODUCER))
    assert a.status == "rewritten" and not a.errors
    (view,) = [h for g in a.graphs for h in g.hoisted if h.kind == "view"]
    assert (plain_name(view.name), view.source) == ("win", "w__ssa_v1")  # the refreshed `w`, the same buffer
    out = tmp_path / "fixed.py"
    run = subprocess.run(
        [sys.executable, "-m", "legalog", "fix", str(REPRODUCER), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "n: pl.Scalar[pl.INDEX], win: pl.InOut[pl.Tensor[[128, 128], pl.FP32]])" in text
    assert "pl.tensor.slice" not in text and "w: pl.Tensor[[512, 128], pl.FP32] = self.refresh(a, w)" in text


@pytest.mark.shared
def test_diagnostics_speak_the_dumps_names() -> None:
    path = GRAPH / "a12_reject_mixed_offsets.frontend.py"
    a = analyze(path.read_text(), str(path))
    assert a.errors and not any("__ssa_v" in d.message or "__idx_v" in d.message for d in a.diagnostics)
    assert {d.subject for d in a.diagnostics} >= {"xv", "mix", "lidx * 64 + 8"}


def test_a_read_with_no_binding_on_every_path_is_declined_on_its_line() -> None:
    path = Path(__file__).parents[1] / "ir" / "frontend" / "own_iter_args_one_branch.py"
    a = analyze(path.read_text(), str(path))
    assert a.status == "rejected" and a.legalized_text() is None
    (fe,) = [d for d in a.diagnostics if d.code == "FE401"]
    assert (fe.line, fe.function, fe.subject) == (15, "main", "w")


@pytest.mark.shared
def test_fixed_frontend_dumps_parse_in_pypto() -> None:
    paths = [*FRONTENDS, *sorted(HERE.rglob("*.py")), REPRODUCER]
    texts = {str(p): fixed[1] for p in paths if (fixed := _fixed(p)) is not None}
    assert len(texts) >= 10
    answer = pypto_child.ask({key: ("parse", text) for key, text in texts.items()})
    if answer is None:
        pytest.skip(f"PyPTO is not importable here: these tests need {WHERE}")
    assert {k: v for k, v in answer.items() if v != ""} == {}
