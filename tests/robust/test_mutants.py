"""Classes of hostile input a mutation fuzzer found (statements wrapped in an `if`, names
swapped, literals changed): each is decided with a diagnostic at its line, never a crash, and
what `fix` writes is legal and a fixed point of `fix`."""

from __future__ import annotations

import pytest

from legalog.pipeline import analyze

# A frontend dump (names rebound, so it is versioned as ConvertToSSA would) whose `if` ends in a
# yield; the tests change the `if`'s branches.
ONE_SIDED = """\
# pypto.program: OneSide
import pypto.language as pl

@pl.program
class OneSide:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[128, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32] = pl.tile.load(src, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        dst_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], dst)
        return dst
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[128, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        dst: pl.Tensor[[128, 128], pl.FP32] = self.k(src, dst)
        if n > 0:
BRANCHES
        return r
"""
YIELD_R = "r: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(dst)"


@pytest.mark.parametrize(
    "branches",
    [
        [YIELD_R],  # no else at all
        [YIELD_R, "else:", "    x: pl.Scalar[pl.INDEX] = n"],  # an else that yields nothing
        ["x: pl.Scalar[pl.INDEX] = n", "else:", f"    {YIELD_R}"],  # only the else yields
        [YIELD_R, "else:", "    r, q = pl.yield_(dst, dst)"],  # the branches yield different names
    ],
)
def test_an_if_yielding_in_one_branch_only_is_fe401_at_the_if(branches: list[str]) -> None:
    lines = [f"        {b}" if b == "else:" else f"            {b.strip()}" for b in branches]
    text = ONE_SIDED.replace("BRANCHES", "\n".join(lines))
    analysis = analyze(text, "one_side.py")
    assert analysis.status == "rejected"
    found = [(d.code, d.line, d.subject) for d in analysis.errors]
    assert found[0] == ("FE401", 14, "r"), analysis.diagnostics
    assert "one branch of this `if`" in analysis.errors[0].message


def test_an_if_yielding_in_both_branches_is_versioned() -> None:
    text = ONE_SIDED.replace("BRANCHES", f"            {YIELD_R}\n        else:\n            {YIELD_R}")
    assert analyze(text, "both.py").status in ("legal", "rewritten")
