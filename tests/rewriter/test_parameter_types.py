"""A parameter's annotation is read before any parameter or body local exists, so it may name only
literals and module-level symbols (issue 11, defect 1): what `fix` appends to a signature must too."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.extractor.lower import type_names
from legalog.ir import parse
from legalog.ir.model import Call, Const, Name, TensorType
from legalog.ir.printer import print_type
from legalog.pipeline import analyze
from legalog.rewriter.graph_boundary import parameter_type
from tests.conftest import CORPUS
from tests.graph.test_cases import case_files

# the golden cases `fix` rewrites (their annotation says so, and tests/graph holds them to it),
# and every corpus dump
REWRITTEN = [p for p in case_files() if "# expect-status: rewritten" in p.read_text(encoding="utf-8")]
DUMPS = sorted((CORPUS / "graph").glob("*.py")) + REWRITTEN


def _memref(offset: object) -> Call:
    return Call("pl.MemRef", (Const("mem_ddr_1"), offset, Const(131072)))  # type: ignore[arg-type]


def test_a_body_offset_becomes_offset_zero_and_keeps_base_and_size() -> None:
    t = TensorType("Tensor", (Const(128), Const(256)), "FP32", (_memref(Name("woff__ssa_v0")),))
    assert print_type(parameter_type(t, frozenset(), "pl")) == (
        'pl.Tensor[[128, 256], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)]'
    )


def test_extras_naming_a_local_are_dropped_and_module_symbols_kept() -> None:
    view = Call("pl.TensorView", (), ())
    strided = Call("pl.TensorView", (Name("rows__ssa_v0"),), ())
    t = TensorType("Tensor", (Name("N"), Const(64)), "FP32", (view, strided, _memref(Name("N"))))
    kept = parameter_type(t, frozenset({"N"}), "pl")
    assert isinstance(kept, TensorType)
    assert kept.extras == (view, _memref(Const(0, "INT64")))
    assert kept.shape == t.shape


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: p.name)
def test_every_parameter_fix_writes_names_only_module_symbols(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    analysis = analyze(source, str(path))
    text = analysis.legalized_text()
    if analysis.status != "rewritten":
        # a corpus dump fix leaves alone (legal or rejected) gains no parameter at all
        assert path not in REWRITTEN and text in (None, source), f"{path.name} is {analysis.status}"
        return
    assert text is not None
    program = parse(text)
    module_level = set(program.dynamic_dims)
    for fn in program.functions:
        for p in fn.params:
            assert type_names(p.type) <= module_level, f"{fn.name}({p.name}: {print_type(p.type)})"
