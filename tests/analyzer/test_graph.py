"""LegalizeGraphBoundary decisions as the JSON report states them, the boundary-size limits on
generated programs, the GraphBoundaryLegalized verifier, and the real corpus against INDEX.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from legalog.analyzer.verifier import verify
from legalog.ir.parser import parse
from legalog.pipeline import analyze
from legalog.surfaces.file_models import file_model
from legalog.surfaces.report import to_dict
from tests.conftest import CORPUS

CASES = Path(__file__).resolve().parents[1] / "graph" / "cases"


def graph_json(name: str, function: str = "layer") -> dict:
    text = (CASES / f"{name}.py").read_text(encoding="utf-8")
    model = to_dict(file_model(analyze(text, name)))
    return next(g for g in model["graphs"] if g["function"] == function)


# ------------------------------------------------------------------------------ JSON (CONTRACT)


def test_params_after_orders_allocs_then_views_then_scalars() -> None:
    g = graph_json("e01_param_order")
    assert g["params_after"] == ["w", "c", "idx", "tmp", "wl", "base"]
    assert g["hoisted_allocs"] == [{"param": "tmp"}]
    assert g["hoisted_views"] == [{"param": "wl", "source": "w"}]
    assert g["hoisted_scalars"] == [{"param": "base", "value": "idx * 128"}]
    assert g["node_count"] == 2


def test_multi_level_chain_values_are_in_parameter_terms() -> None:
    g = graph_json("a03_multi_level_chain")
    assert g["params_after"] == ["w", "c", "idx", "base", "end"]
    assert g["hoisted_scalars"] == [
        {"param": "base", "value": "idx * 128"},
        {"param": "end", "value": "idx * 128 + 128"},
    ]
    fixed = (CASES / "a03_multi_level_chain.expected.py").read_text(encoding="utf-8")
    main = fixed[fixed.index("def main") :]
    assert re.search(r"i__\w+ \* 128", main) and "base__ssa_v" not in main


def test_rename_chain_is_removed_onto_its_root() -> None:
    g = graph_json("a08_rename_chain_collapses")
    assert g["removed_aliases"] == [{"name": "n", "target": "idx"}, {"name": "m", "target": "idx"}]
    assert g["params_after"] == ["w", "c", "idx"] and g["hoisted_scalars"] == []
    fixed = (CASES / "a08_rename_chain_collapses.expected.py").read_text(encoding="utf-8")
    assert "n__ssa_v0" not in fixed and "m__ssa_v0" not in fixed


@pytest.mark.parametrize(
    "name", ["a06_alias_of_param_no_leak", "a07_passthrough_after_last_hoist", "a09_alias_chain_of_hoisted"]
)
def test_scalar_aliases_never_reach_the_caller(name: str) -> None:
    g = graph_json(name)
    assert [h["param"] for h in g["hoisted_scalars"]] == ["base"]
    assert g["hoisted_scalars"][0]["value"] == "idx * 128"
    fixed = (CASES / f"{name}.expected.py").read_text(encoding="utf-8")
    main = fixed[fixed.index("def main") :]
    for alias in ("alias__", "col__", "a__ssa", "b__ssa", "__FREE_VAR"):
        assert alias not in main


def test_alias_of_a_hoisted_value_lands_on_its_parameter() -> None:
    g = graph_json("a09_alias_chain_of_hoisted")
    assert g["removed_aliases"] == [{"name": "a", "target": "base"}, {"name": "b", "target": "base"}]


def test_constant_trip_offset_is_kept_invariant() -> None:
    g = graph_json("a12_constant_trip_loop_offset")
    assert g["kept_invariant"] == ["off"]
    assert [h["param"] for h in g["hoisted_scalars"]] == ["base"]
    assert g["node_count"] == 3


def test_boundary_dim_is_kept_invariant() -> None:
    g = graph_json("a13_boundary_dim_kept")
    assert g["kept_invariant"] == ["rows", "last"] and g["hoisted_scalars"] == []


def test_intermediates_are_hoisted_like_pypto() -> None:
    g = graph_json("a10_intermediate_value")
    assert g["hoisted_scalars"] == [
        {"param": "base", "value": "idx * 128"},
        {"param": "end", "value": "idx * 128 + 64"},
    ]


def test_views_name_their_sources() -> None:
    assert graph_json("b02_view_of_hoisted_view")["hoisted_views"] == [
        {"param": "wl", "source": "w"},
        {"param": "wr", "source": "wl"},
    ]
    assert graph_json("b04_alias_of_hoisted_view")["params_after"] == ["w", "c", "idx", "wl", "inner"]
    assert graph_json("b10_view_of_inplace_rebound_param")["params_after"] == ["a", "w", "c", "n", "wl"]
    assert graph_json("b11_view_of_prefix_submit_result")["params_after"] == ["a", "w", "c", "n", "wl"]
    assert graph_json("b08_iv_offset_view_kept")["hoisted_views"] == []
    assert graph_json("b07_view_of_region_local_stays")["params_after"] == ["w", "c", "idx"]


def test_view_through_tensor_alias_slices_the_callers_tensor() -> None:
    fixed = (CASES / "b03_view_through_tensor_alias.expected.py").read_text(encoding="utf-8")
    main = fixed[fixed.index("def main") :]
    assert "pl.tensor.slice(w__ssa_v0" in main and "alias__" not in main


def test_hoisted_view_directions_follow_their_roots() -> None:
    fixed = (CASES / "b05_view_takes_root_direction.expected.py").read_text(encoding="utf-8")
    assert "ov__ssa_v0: pl.InOut[" in fixed
    fixed = (CASES / "c08_view_of_inplace_rebound_alloc.expected.py").read_text(encoding="utf-8")
    assert "tmp__ssa_v0: pl.InOut[" in fixed and "tv__ssa_v0: pl.InOut[" in fixed
    layer = fixed[fixed.index("def layer") : fixed.index("def main")]
    assert "pl.tensor.slice" not in layer and "pl.tensor.create" not in layer


def test_allocations_hoisted_and_counted() -> None:
    g = graph_json("c08_view_of_inplace_rebound_alloc")
    assert g["params_after"] == ["a", "c", "n", "tmp", "tv"]
    assert g["hoisted_allocs"] == [{"param": "tmp"}] and g["hoisted_views"] == [
        {"param": "tv", "source": "tmp"}
    ]
    assert g["node_count"] == 2
    assert graph_json("c09_unused_create_hoisted")["hoisted_allocs"] == [{"param": "s"}]
    assert graph_json("c10_view_of_hoisted_alloc_literal")["params_after"] == ["a", "c", "local", "lv"]
    assert graph_json("c02_create_under_const_loop_stays")["hoisted_allocs"] == []


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("c02_create_under_const_loop_stays", 12),
        ("b07_view_of_region_local_stays", 6),
        ("d08_node_limit_2000", 2000),
        ("d09_alloc_nodes_1026", 1026),
        ("d10_interleaved_batch_1069", 1069),
        ("d11_gm_pipe_batch_1031", 1031),
        ("d07_zero_nodes", 0),
        ("a14_task_id_through_array", 2),
    ],
)
def test_node_counts(name: str, count: int) -> None:
    assert graph_json(name)["node_count"] == count
    result = analyze((CASES / f"{name}.py").read_text(encoding="utf-8"), name)
    if count > 1024:
        assert any(d.code == "GB108" and f"launches {count} tasks" in d.message for d in result.diagnostics)


# ---------------------------------------------------------------------------- generated limits

T = "pl.Tensor[[128, 128], pl.FP32]"
S = "pl.Scalar[pl.INDEX]"


def wide_program(tensors: int, scalars: int, derived: int, creates: int = 0) -> str:
    """A Graph with `tensors` tensor and `scalars` scalar parameters that derives `derived` more
    scalars and allocates `creates` buffers, all of which reach its one task."""
    params = [f"t{k}__ssa_v0: {T}" for k in range(tensors - 1)] + [f"c__ssa_v0: pl.InOut[{T}]"]
    params += [f"s{k}__ssa_v0: {S}" for k in range(scalars)]
    body = [f"        d{k}__ssa_v0: {S} = s0__ssa_v0 * {k + 2}" for k in range(derived)]
    body += [
        f"        m{k}__ssa_v0: {T} = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)"
        for k in range(creates)
    ]
    args = (
        ["t0__ssa_v0", "c__ssa_v0"]
        + [f"d{k}__ssa_v0" for k in range(derived)]
        + [f"m{k}__ssa_v0" for k in range(creates)]
    )
    kparams = [f"a__ssa_v0: {T}", f"c__ssa_v0: pl.InOut[{T}]"] + [
        f"x{k}__ssa_v0: {S}" for k in range(derived)
    ]
    kparams += [f"y{k}__ssa_v0: {T}" for k in range(creates)]
    dirs = ", ".join(
        ["pl.adir.input", "pl.adir.inout"] + ["pl.adir.scalar"] * derived + ["pl.adir.input"] * creates
    )
    body.append(f'        c__ssa_v1: {T} = self.k({", ".join(args)}, attrs={{"arg_directions": [{dirs}]}})')
    body.append("        return c__ssa_v1")
    margs = [f"t{k}__ssa_v0" for k in range(tensors - 1)] + ["c__ssa_v0"] + [str(k) for k in range(scalars)]
    mdirs = ", ".join(["pl.adir.input"] * (tensors - 1) + ["pl.adir.inout"] + ["pl.adir.scalar"] * scalars)
    mparams = [f"t{k}__ssa_v0: {T}" for k in range(tensors - 1)] + [f"c__ssa_v0: pl.InOut[{T}]"]
    return "\n".join(
        [
            "# pypto.program: Wide",
            "import pypto.language as pl",
            "",
            "@pl.program",
            "class Wide:",
            "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)",
            f"    def k({', '.join(kparams)}) -> {T}:",
            "        return c__ssa_v0",
            "    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)",
            f"    def layer(self, {', '.join(params)}) -> {T}:",
            *body,
            "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)",
            f"    def main(self, {', '.join(mparams)}) -> {T}:",
            f'        c__ssa_v1: {T} = self.layer({", ".join(margs)}, attrs={{"arg_directions": [{mdirs}]}})',
            "        return c__ssa_v1",
            "",
        ]
    )


def codes(text: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in analyze(text, "wide").diagnostics]


def test_too_many_tensor_parameters() -> None:
    def_line = 10
    assert codes(wide_program(129, 1, 0)) == [(def_line, "GB103")]
    assert codes(wide_program(128, 1, 0)) == []


def test_tensor_count_includes_hoisted_allocations() -> None:
    assert analyze(wide_program(126, 1, 0, creates=2), "wide").status == "rewritten"  # 128 after hoisting
    assert codes(wide_program(127, 1, 0, creates=2)) == [(10, "GB103")]  # 129 after hoisting


def test_scalar_count_is_taken_after_step_a() -> None:
    fits = wide_program(2, 62, 2)  # 62 + 2 = 64
    assert analyze(fits, "wide").status == "rewritten"
    over = wide_program(2, 62, 3)  # 62 + 3 = 65: fit before hoisting, not after
    result = analyze(over, "wide")
    assert [(d.line, d.code) for d in result.diagnostics] == [(10, "GB104")]
    assert "65 scalar parameters" in result.diagnostics[0].message


# ------------------------------------------------------------------------------------ verifier


def verifier_codes(name: str, suffix: str = ".py") -> set[str]:
    return {d.code for d in verify(parse((CASES / f"{name}{suffix}").read_text(encoding="utf-8")))}


def test_verifier_reports_a_surviving_rename() -> None:
    found = verify(parse((CASES / "a08_rename_chain_collapses.py").read_text(encoding="utf-8")))
    assert {(d.code, d.subject) for d in found if d.code == "GB122"} >= {("GB122", "n__ssa_v0")}
    # at the rename's own statement, not at 1:1
    text = (CASES / "a08_rename_chain_collapses.py").read_text(encoding="utf-8").splitlines()
    [rename] = [d for d in found if d.code == "GB122" and d.subject == "n__ssa_v0"]
    assert text[rename.line - 1].strip().startswith("n__ssa_v0: pl.Scalar[pl.INDEX] = idx__ssa_v0")
    assert rename.column == text[rename.line - 1].index("n__ssa_v0") + 1


def test_no_verifier_finding_sits_at_one_one() -> None:
    for name in (
        "a08_rename_chain_collapses",
        "b09_mixed_offset_rejected",
        "c07_view_of_hoisted_alloc_moving",
    ):
        found = verify(parse((CASES / f"{name}.py").read_text(encoding="utf-8")))
        assert found and all((d.line, d.column) != (1, 1) for d in found), name


def test_verifier_reports_a_moving_window() -> None:
    assert "GB119" in verifier_codes("b09_mixed_offset_rejected")
    assert "GB119" in verifier_codes("c07_view_of_hoisted_alloc_moving")


def test_verifier_reports_a_left_allocation_and_a_derivable_value() -> None:
    assert "GB109" in verifier_codes("c01_create_hoisted")
    assert "GB118" in verifier_codes("a01_derived_scalar_hoisted")


def test_verifier_accepts_invariant_windows() -> None:
    assert verifier_codes("b08_iv_offset_view_kept") == set()
    assert verifier_codes("a13_boundary_dim_kept") == set()


def goldens() -> list[Path]:
    """Every fixed program: the rewritten cases' goldens, and the legal cases, their own golden."""
    legal = [p for p in CASES.glob("*.py") if "# expect-status: legal" in p.read_text(encoding="utf-8")]
    return sorted([*CASES.glob("*.expected.py"), *legal])


@pytest.mark.parametrize("golden", goldens(), ids=lambda p: p.name.split(".")[0])
def test_every_golden_verifies_empty(golden: Path) -> None:
    assert verify(parse(golden.read_text(encoding="utf-8"))) == []


# -------------------------------------------------------------------------- the real corpus

# INDEX.md, Graph by Graph: status of the file; per Graph the hoisted scalars, views and
# allocations, the kept invariants and views, the node count after hoisting; per rejection the
# codes (and the function reporting them).
CORPUS_EXPECTED: dict[str, dict] = {
    "a01_row_shift": {
        "status": "rewritten",
        "graphs": {"shift": dict(scalars=["base"], views=[], allocs=[], kept=[], kept_views=[], nodes=1)},
    },
    "a02_scalar_aliases": {
        "status": "rewritten",
        "graphs": {
            "fwd": dict(
                scalars=["lim"],
                views=[],
                allocs=[],
                kept=[],
                kept_views=[],
                nodes=3,
                aliases=[("n", "batch"), ("m", "batch")],
            )
        },
    },
    "a03_derive_chain": {
        "status": "rewritten",
        "graphs": {
            "attn_rows": dict(
                scalars=["lbase", "hbase", "qoff", "koff", "wrap"],
                views=[],
                allocs=[],
                kept=["rows", "half"],
                kept_views=[],
                nodes=2,
            )
        },
    },
    "a04_weight_window": {
        "status": "rewritten",
        "graphs": {
            "proj": dict(
                scalars=["woff"], views=["wl", "wr", "bv", "xh"], allocs=[], kept=[], kept_views=[], nodes=2
            )
        },
    },
    "a05_tile_sweep": {
        "status": "legal",
        "graphs": {
            "sweep": dict(
                scalars=[], views=[], allocs=[], kept=["t", "last"], kept_views=["xv", "sv", "tail"], nodes=9
            )
        },
    },
    "a06_scratch_pingpong": {
        "status": "rewritten",
        "graphs": {
            "block": dict(scalars=[], views=[], allocs=["stage", "acc"], kept=[], kept_views=[], nodes=9)
        },
    },
    "a07_two_stage_graphs": {
        "status": "rewritten",
        "graphs": {
            "norm_stage": dict(scalars=["r0"], views=[], allocs=[], kept=[], kept_views=[], nodes=1),
            "proj_stage": dict(scalars=["zr"], views=["wv"], allocs=[], kept=[], kept_views=[], nodes=1),
            "finish": dict(scalars=[], views=[], allocs=[], kept=[], kept_views=[], nodes=1),
        },
    },
    "a08_graph_spmd_chain": {
        "status": "legal",
        "graphs": {"wave": dict(scalars=[], views=[], allocs=[], kept=[], kept_views=[], nodes=3)},
    },
    "a10_decoder_block": {
        "status": "rewritten",
        "graphs": {
            "layer": dict(
                scalars=["wbase", "dbase"],
                views=["wq", "wk", "wv", "wo", "wup", "wdn"],
                allocs=["q", "k", "v", "scores", "ctx", "proj", "up", "act", "down"],
                kept=[],
                kept_views=["xt", "ct", "xt2", "at"],
                nodes=44,
                tensors_after=23,
            )
        },
    },
    "a11_reject_dynamic_control": {
        "status": "rejected",
        "codes": {
            ("rows_dyn", "GB112"),
            ("branchy", "GB112"),
            ("alloc_loop", "GB109"),
            ("alloc_dyn", "GB110"),
        },
    },
    "a12_reject_mixed_offsets": {
        "status": "rejected",
        "codes": {
            ("mixed_view", "GB119"),
            ("mixed_scalar", "GB118"),
            ("inline_arg", "GB113"),
            ("read_offset", "GB119"),
        },
    },
    "a13_reject_boundary_misc": {
        "status": "rejected",
        "codes": {
            ("outer", "GB114"),
            ("filled", "GB111"),
            ("scalars_only", "GB102"),
            ("scalars_only", "GB108"),
            ("main", "GB116"),
            ("main", "GB117"),
        },
    },
    "a14_manual_graph_barrier": {
        "status": "rewritten",
        "graphs": {"fan": dict(scalars=["lo"], views=[], allocs=[], kept=[], kept_views=[], nodes=4)},
    },
}


def _plain(name: str) -> str:
    return re.sub(r"__(ssa|tmp|idx|iter|rv|phi)_v\d+(_\d+)?$", "", name)


@pytest.mark.shared
@pytest.mark.parametrize("stem", sorted(CORPUS_EXPECTED))
def test_corpus_graph_dump_decided_as_index_says(stem: str) -> None:
    path = CORPUS / "graph" / f"{stem}.graph_input.py"
    assert path.exists(), f"missing corpus dump {path}"
    want = CORPUS_EXPECTED[stem]
    result = analyze(path.read_text(encoding="utf-8"), str(path))
    assert result.status == want["status"], [(d.code, d.function, d.message) for d in result.diagnostics]
    errors = {(d.function, d.code) for d in result.diagnostics if d.severity == "error"}
    assert errors == want.get("codes", set())
    decisions = {g.function: g for g in result.graphs}
    model = {g.function: g for g in file_model(result).graphs}
    for fn, exp in want.get("graphs", {}).items():
        g, m = decisions[fn], model[fn]
        assert [h.param for h in m.hoisted_scalars] == exp["scalars"], fn
        assert [h.param for h in m.hoisted_views] == exp["views"], fn
        assert [h.param for h in m.hoisted_allocs] == exp["allocs"], fn
        assert m.kept_invariant == exp["kept"], fn
        assert [_plain(v) for v in g.kept_views] == exp["kept_views"], fn
        assert m.node_count == exp["nodes"], fn
        if "aliases" in exp:
            assert [(a.name, a.target) for a in m.removed_aliases] == exp["aliases"]
        if "tensors_after" in exp:
            fn_ir = result.program.function(fn)
            tensors = [p for p in fn_ir.params if "Scalar" not in str(p.type)]
            assert len(tensors) + len(exp["views"]) + len(exp["allocs"]) == exp["tensors_after"]
    if result.status == "rewritten":
        again = analyze(result.legalized_text(), str(path))
        assert again.status == "legal", [(d.code, d.message) for d in again.diagnostics]


@pytest.mark.shared
def test_corpus_graph_dumps_all_covered() -> None:
    stems = {p.name.removesuffix(".graph_input.py") for p in (CORPUS / "graph").glob("*.graph_input.py")}
    assert stems == set(CORPUS_EXPECTED)


@pytest.mark.shared
def test_a01_call_site_matches_the_worked_example() -> None:
    path = CORPUS / "graph" / "a01_row_shift.graph_input.py"
    text = analyze(path.read_text(encoding="utf-8"), str(path)).legalized_text()
    assert "idx__ssa_v0: pl.Scalar[pl.INDEX], base__ssa_v0: pl.Scalar[pl.INDEX])" in text
    assert "base__graph_arg0: pl.Scalar[pl.INDEX] = i__idx_v0 * 128" in text
    assert "pl.adir.inout, pl.adir.scalar, pl.adir.scalar]" in text
