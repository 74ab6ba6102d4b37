"""Classes of hostile input a mutation fuzzer found (statements wrapped in an `if`, names
swapped, literals changed): each is decided with a diagnostic at its line, never a crash, and
what `fix` writes is legal and a fixed point of `fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.cli import main
from legalog.pipeline import analyze
from tests.robust.test_inputs import ROW_SHIFT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def fixed(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str) -> str:
    """What `legalog fix NAME -o out.py` writes for `text` (it must succeed)."""
    source, out = tmp_path / name, tmp_path / "out.py"
    source.write_text(text, encoding="utf-8")
    assert main(["fix", str(source), "-o", str(out)]) == 0, capsys.readouterr().err
    return out.read_text(encoding="utf-8")


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
def test_an_if_yielding_in_one_branch_only_is_ir414_at_the_if(branches: list[str]) -> None:
    """Refused before versioning, as in an SSA dump: PyPTO's parser gives the `if` the results
    either branch yields, and the path without them is what its SSA verifier and codegen refuse."""
    lines = [f"        {b}" if b == "else:" else f"            {b.strip()}" for b in branches]
    text = ONE_SIDED.replace("BRANCHES", "\n".join(lines))
    analysis = analyze(text, "one_side.py")
    assert analysis.status == "rejected"
    found = [(d.code, d.line, d.subject) for d in analysis.errors]
    assert found == [("IR414", 14, "r")], analysis.diagnostics
    assert "needs a value on both paths" in analysis.errors[0].message


def test_an_if_yielding_in_both_branches_is_versioned() -> None:
    text = ONE_SIDED.replace("BRANCHES", f"            {YIELD_R}\n        else:\n            {YIELD_R}")
    assert analyze(text, "both.py").status in ("legal", "rewritten")


# The derived scalar alone in a block: hoisting it leaves the block with no statement.
LONE_BINDING = "        base: pl.Scalar[pl.INDEX] = idx * 128\n"


@pytest.mark.parametrize(
    "block",
    [
        "        if idx > 0:\n            base: pl.Scalar[pl.INDEX] = idx * 128\n",
        "        if 1 < 2:\n            base: pl.Scalar[pl.INDEX] = idx * 128\n        else:\n            pass\n",
        "        with pl.scope(mode=pl.ScopeMode.MANUAL):\n            base: pl.Scalar[pl.INDEX] = idx * 128\n",
    ],
)
def test_a_hoist_that_empties_a_block_writes_a_program_fix_reads_back(
    block: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ROW_SHIFT.replace(LONE_BINDING, block)
    analysis = analyze(text, "lone.py")
    assert analysis.status == "rewritten", analysis.diagnostics
    written = analysis.legalized_text()  # was PrintError: the emptied block printed as `pass`
    assert written is not None and "            pass\n" in written
    again = analyze(written, "lone.py")
    assert again.status == "legal" and not again.errors
    assert again.legalized_text() in (None, written)  # fix of fix's output changes nothing
    assert fixed(tmp_path, capsys, "lone.py", text) == written


@pytest.mark.parametrize(
    "call, shown",
    [
        ("self.shift(*src, dst, i)", "*src"),  # a Graph call
        ("self.shift(src, dst, i, **extra)", "**extra"),
        ("self.shift(src, dst, pl.min(*i))", "*i"),  # inside an argument
    ],
)
def test_an_unpacked_argument_is_a_parse_error_at_it_never_a_hidden_call(
    call: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: the call read as an opaque value, so the Graph was rewritten (a new parameter) while
    # this call site, hidden, kept the old arguments; a hidden launch was never proven or guarded
    text = ROW_SHIFT.replace("self.shift(src, dst, i)", call)
    analysis = analyze(text, "unpacked.py")
    assert analysis.status == "error" and analysis.legalized_text() is None
    [d] = analysis.diagnostics
    line = next(n for n, row in enumerate(text.splitlines(), 1) if call in row)
    assert (d.code, d.line, d.column) == ("PARSE", line, text.splitlines()[line - 1].index(shown) + 1)
    source, out = tmp_path / "unpacked.py", tmp_path / "out.py"
    source.write_text(text, encoding="utf-8")
    assert main(["fix", str(source), "-o", str(out)]) == 2
    assert f"unpacked.py:{d.line}:{d.column}: a" in capsys.readouterr().err
    assert not out.exists()


def test_an_unpacked_launch_argument_is_a_parse_error() -> None:
    launch = "pl.spmd_submit(self.band, x__ssa_v0, y__ssa_v0, core_num=n__ssa_v0)"
    text = (EXAMPLES / "spmd_counts.py").read_text(encoding="utf-8")
    assert launch in text
    analysis = analyze(text.replace(launch, launch.replace("x__ssa_v0", "*x__ssa_v0", 1)), "launch.py")
    assert [d.code for d in analysis.diagnostics] == ["PARSE"]


def test_returning_a_guarded_launchs_whole_tuple_writes_a_program_fix_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `return t` of a launch tuple the guard rewrites: the rewrite returned the tuple expression
    # `(t_guarded_0, t_guarded_1)`, printed `return a, b`, which reads back as two values
    # (PrintError: INTERNAL, nothing written)
    text = (EXAMPLES / "spmd_counts.py").read_text(encoding="utf-8")
    assert "        return y__rv_v5\n" in text
    text = text.replace("        return y__rv_v5\n", "        return _submit_tmp__ssa_v0\n")
    analysis = analyze(text, "whole.py")
    assert analysis.status == "rewritten"
    written = analysis.legalized_text()
    assert written is not None
    assert "        return _submit_tmp__ssa_v0_guarded_0, _submit_tmp__ssa_v0_guarded_1\n" in written
    again = analyze(written, "whole.py")
    assert again.status == "legal" and again.legalized_text() in (None, written)
    assert fixed(tmp_path, capsys, "whole.py", text) == written


def test_a_graph_call_in_a_return_is_a_call_site_fix_rewrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `return self.shift(...)`: the rewrite extended only calls bound by an assignment or an
    # expression statement, so its own verifier rejected the program (GB115 "verifier: ...
    # does not supply parameter 3"), blaming the user for the call it had not rewritten
    loop = "        for i in pl.range(8):\n            dst_3: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, dst, i)\n        return dst\n"
    assert loop in ROW_SHIFT
    text = ROW_SHIFT.replace(loop, "        return self.shift(src, dst, 3)\n")
    analysis = analyze(text, "ret.py")
    assert analysis.status == "rewritten", analysis.diagnostics
    written = analysis.legalized_text()
    assert written is not None
    assert (
        "        base__graph_arg0: pl.Scalar[pl.INDEX] = 3 * 128\n        return self.shift(src, dst, 3, base__graph_arg0)\n"
        in written
    )
    assert analyze(written, "ret.py").status == "legal"
    assert fixed(tmp_path, capsys, "ret.py", text) == written


@pytest.mark.parametrize(
    "value",
    [
        "self.shift(src, dst, i) if i > 0 else dst",  # a conditional expression
        "0 < self.shift(src, dst, i) < 4",  # a chained comparison
        "self.shift(src, dst, i)[0:1]",  # a slice
    ],
)
def test_a_graph_call_inside_an_unread_expression_is_a_parse_error_at_the_call(value: str) -> None:
    # was: the expression read as an opaque value, its Graph call a call site nothing saw, so
    # fix wrote the Graph with a new parameter and this call with the old arguments (exit 0)
    text = ROW_SHIFT.replace("self.shift(src, dst, i)", value)
    analysis = analyze(text, "hidden.py")
    assert analysis.status == "error" and analysis.legalized_text() is None
    [d] = analysis.diagnostics
    line = next(n for n, row in enumerate(text.splitlines(), 1) if value in row)
    column = text.splitlines()[line - 1].index("self.shift(src, dst, i)") + 1
    assert (d.code, d.line, d.column) == ("PARSE", line, column)
    assert "`self.shift` is called inside an expression legalog does not read" in d.message
