"""The comparison the reference test relies on: equal up to bound-variable names, as PyPTO's
`ir.structural_equal` compares, and no looser."""

from __future__ import annotations

from legalog.analyzer.structural import structurally_equal
from legalog.ir.parser import parse

T = "pl.Tensor[[64], pl.FP32]"


SCALARS = "a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]"
ORCH = "type=pl.FunctionType.Orchestration, level=pl.Level.CHIP"


def program(body: str, params: str = SCALARS, decorator: str = ORCH) -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return (
        "import pypto.language as pl\n\n@pl.program\nclass P:\n"
        f"    @pl.function({decorator})\n    def main(self, x: {T}, {params}) -> {T}:\n" + lines
    )


def same(a: str, b: str) -> bool:
    return structurally_equal(parse(a), parse(b))


BODY = f"c: pl.Scalar[pl.INDEX] = a + b\ny: {T} = pl.tensor.slice(x, [64], [c])\nreturn y"


def test_bound_names_do_not_matter() -> None:
    renamed = f"off: pl.Scalar[pl.INDEX] = p + q\nv: {T} = pl.tensor.slice(x, [64], [off])\nreturn v"
    assert same(program(BODY), program(renamed, "p: pl.Scalar[pl.INDEX], q: pl.Scalar[pl.INDEX]"))


def test_binding_positions_do() -> None:
    assert not same(program(BODY), program(BODY.replace("a + b", "b + a")))
    assert not same(program(BODY), program(BODY.replace("[c]", "[a]")))


def test_keyword_and_attribute_order_and_memrefs_do_not_matter() -> None:
    kw = f"y: {T} = pl.tensor.create([64], dtype=pl.FP32, layout=pl.TensorLayout.ND)\nreturn y"
    swapped = kw.replace(
        "dtype=pl.FP32, layout=pl.TensorLayout.ND", "layout=pl.TensorLayout.ND, dtype=pl.FP32"
    )
    assert same(program(kw), program(swapped))
    assert same(program(kw), program(kw, decorator="level=pl.Level.CHIP, type=pl.FunctionType.Orchestration"))
    placed = kw.replace(f"y: {T}", 'y: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 256)]')
    assert same(program(kw), program(placed))


def test_values_and_statements_do_matter() -> None:
    assert not same(program(BODY), program(BODY.replace("[64]", "[32]")))
    assert not same(program(BODY), program(BODY.replace("pl.tensor.slice", "pl.tensor.view")))
    extra = BODY.replace("return y", f"z: {T} = pl.tensor.slice(x, [64], [b])\nreturn y")
    assert not same(program(BODY), program(extra))
