"""Every input checked as PyPTO's parser would, before the rules run: each class a diagnostic at
its line (issue 12), and the reproducers of ../shared/fuzz as regression tests."""

from __future__ import annotations

import pytest

from legalog.ir.parser import parse
from legalog.ir.printer import print_program
from legalog.pipeline import Analysis, analyze
from tests.conftest import CORPUS, FUZZ

# A Graph with a derived scalar, its kernel and a caller: the shape the fuzz reproducers mutate.
ROW_SHIFT = """\
# pypto.program: RowShift
import pypto.language as pl

@pl.program
class RowShift:
    @pl.function(type=pl.FunctionType.InCore)
    def shift_incore_0(self, src: pl.Tensor[[1024, 128], pl.FP32], base: pl.Scalar[pl.INDEX], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32] = pl.tile.load(src, [base, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        dst_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], dst)
        return dst
    @pl.function(type=pl.FunctionType.Graph)
    def shift(self, src: pl.Tensor[[1024, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        base: pl.Scalar[pl.INDEX] = idx * 128
        dst_2: pl.Tensor[[128, 128], pl.FP32] = self.shift_incore_0(src, base, dst)
        return dst
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[1024, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(8):
            dst_3: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, dst, i)
        return dst
"""
CALL = "self.shift(src, dst, i)"
KERNEL_CALL = "self.shift_incore_0(src, base, dst)"


def only(analysis: Analysis, code: str) -> tuple[int, int]:
    """The single diagnostic's (line, column); it must be `code` and the program rejected."""
    assert analysis.status == "rejected", analysis.diagnostics
    assert [d.code for d in analysis.diagnostics] == [code], analysis.diagnostics
    d = analysis.diagnostics[0]
    return d.line, d.column


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_base_program_is_rewritten() -> None:
    assert analyze(ROW_SHIFT).status == "rewritten"


@pytest.mark.parametrize(
    "call, got", [("self.shift(src, dst, i, dst)", 4), ("self.shift(src, dst, i, i, i)", 5)]
)
def test_a_graph_call_with_too_many_arguments_is_rejected(call: str, got: int) -> None:
    text = ROW_SHIFT.replace(CALL, call)
    line, col = only(analyze(text), "IR401")
    assert (line, col) == (line_of(text, call), text.splitlines()[line - 1].index("self.shift") + 1)
    assert f"passes {got}" in analyze(text).diagnostics[0].message


def test_a_kernel_call_with_too_few_or_too_many_arguments_is_rejected() -> None:
    for call in ("self.shift_incore_0(src, base)", "self.shift_incore_0(src, base, dst, dst)"):
        text = ROW_SHIFT.replace(KERNEL_CALL, call)
        assert only(analyze(text), "IR401")[0] == line_of(text, call)


def test_a_graph_call_missing_parameters_stays_gb115() -> None:
    codes = {d.code for d in analyze(ROW_SHIFT.replace(CALL, "self.shift(src, dst)")).diagnostics}
    assert "GB115" in codes and "IR401" not in codes


def test_a_submit_may_omit_outputs_but_never_pass_extra() -> None:
    omitted = ROW_SHIFT.replace(KERNEL_CALL, "pl.submit(self.shift_incore_0, src, base)")
    assert "IR401" not in {d.code for d in analyze(omitted).diagnostics}
    extra = ROW_SHIFT.replace(KERNEL_CALL, "pl.submit(self.shift_incore_0, src, base, dst, dst)")
    assert only(analyze(extra), "IR401")[0] == line_of(extra, "pl.submit")
    too_few = ROW_SHIFT.replace(KERNEL_CALL, "pl.submit(self.shift_incore_0, src)")
    assert "2..3" in analyze(too_few).diagnostics[0].message


@pytest.mark.parametrize("call", ["self.nope(src, dst, i)", "pl.submit(self.nope, src)"])
def test_an_unknown_callee_is_rejected(call: str) -> None:
    text = ROW_SHIFT.replace(CALL, call)
    assert only(analyze(text), "IR402")[0] == line_of(text, "nope")


def test_duplicate_parameters_and_functions_are_rejected() -> None:
    text = ROW_SHIFT.replace(
        "def shift(self, src: pl.Tensor[[1024, 128], pl.FP32], dst:",
        "def shift(self, src: pl.Tensor[[1024, 128], pl.FP32], src:",
    )
    assert only(analyze(text), "IR403")[0] == line_of(text, "def shift(")
    twice = ROW_SHIFT.replace(
        "    @pl.function(type=pl.FunctionType.Orchestration)",
        ROW_SHIFT.split("    @pl.function(type=pl.FunctionType.Graph)")[1]
        .split("    @pl.function")[0]
        .join(["    @pl.function(type=pl.FunctionType.Graph)", ""])
        + "    @pl.function(type=pl.FunctionType.Orchestration)",
    )
    assert "IR403" in {d.code for d in analyze(twice).diagnostics}


@pytest.mark.parametrize(
    "value",
    [
        "9223372036854775808",
        "(4611686018427387904 * 4)",
        "(10 ** 5000)",
        "(2 ** 2 ** 2 ** 2 ** 2)",
        "(-9223372036854775807 - 2)",
    ],
)
def test_an_integer_constant_outside_int64_is_rejected_without_a_crash(value: str) -> None:
    text = ROW_SHIFT.replace("idx * 128", f"idx * {value}")
    assert only(analyze(text), "IR404")[0] == line_of(text, "idx *")


@pytest.mark.parametrize(
    "value", ["9223372036854775807", "-9223372036854775808", "(2 ** 62 + (2 ** 62 - 1))"]
)
def test_an_integer_constant_at_the_int64_bounds_is_accepted(value: str) -> None:
    assert analyze(ROW_SHIFT.replace("idx * 128", f"idx * {value}")).status == "rewritten"


def test_a_literal_python_cannot_read_is_a_parse_error() -> None:
    analysis = analyze(ROW_SHIFT.replace("idx * 128", "idx * " + "9" * 5000))
    assert analysis.status == "error" and analysis.diagnostics[0].code == "PARSE"
    assert analysis.diagnostics[0].line == line_of(ROW_SHIFT, "idx * 128")


@pytest.mark.shared
def test_a_folded_core_num_of_thousands_of_digits_never_raises() -> None:
    # in range operand by operand, far out of range when folded: str() of it would raise ValueError
    huge = " * ".join(["4611686018427387904"] * 240)  # 4,479 digits
    text = (
        (FUZZ / "assertionerror_spmd_guard_py_185.py").read_text().replace("core_num=k", f"core_num=({huge})")
    )
    assert only(analyze(text), "IR404")


def test_an_unannotated_graph_binding_is_rejected_not_silently_kept() -> None:
    text = ROW_SHIFT.replace("base: pl.Scalar[pl.INDEX] = idx * 128", "base = idx * 128")
    analysis = analyze(text)
    assert only(analysis, "IR406")[0] == line_of(text, "base = idx")
    assert analysis.diagnostics[0].subject == "base"


def test_recursion_is_found_before_the_rules() -> None:
    graph_self = ROW_SHIFT.replace(KERNEL_CALL, "self.shift(src, dst, idx)")
    assert only(analyze(graph_self), "GB114")[0] == line_of(graph_self, "self.shift(src, dst, idx)")
    # main -> helper -> main, neither a Graph: the new code, at both calls of the cycle
    mutual = ROW_SHIFT.replace(CALL, "self.helper(src, dst)").replace(
        "    @pl.function(type=pl.FunctionType.Orchestration)\n    def main",
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def helper(self, src: pl.Tensor[[1024, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:\n"
        "        d: pl.Tensor[[128, 128], pl.FP32] = self.main(src, dst)\n"
        "        return dst\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n    def main",
    )
    analysis = analyze(mutual)
    assert analysis.status == "rejected" and [d.code for d in analysis.diagnostics] == ["IR405", "IR405"]
    assert "`helper` -> `main` -> `helper`" in analysis.diagnostics[0].message


def test_a_long_call_chain_is_not_recursion() -> None:
    # 400 functions calling the next: Tarjan's walk is iterative, and a chain has no cycle
    header, _, _ = ROW_SHIFT.partition("    @pl.function(type=pl.FunctionType.InCore)")
    sig = "(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]"
    chain = [
        f"    @pl.function(type=pl.FunctionType.Orchestration)\n    def f{i}{sig}:\n"
        f"        y: pl.Tensor[[16], pl.FP32] = self.f{i + 1}(x)\n        return x\n"
        for i in range(400)
    ]
    chain.append(
        f"    @pl.function(type=pl.FunctionType.Orchestration)\n    def f400{sig}:\n        return x\n"
    )
    assert not {d.code for d in analyze(header + "".join(chain)).diagnostics} & {"IR405", "GB114"}


def test_a_bom_is_accepted_and_not_written_back() -> None:
    analysis = analyze("\ufeff" + ROW_SHIFT)
    assert analysis.status == "rewritten"
    assert not print_program(analysis.legalized).startswith("\ufeff")  # type: ignore[arg-type]


def test_columns_are_characters_not_utf8_bytes() -> None:
    text = ROW_SHIFT.replace("dst_3:", "dst_ñandú_3:").replace(CALL, "self.nope(src, dst, i)")
    line = text.splitlines()[line_of(text, "nope") - 1]
    assert only(analyze(text), "IR402") == (line_of(text, "nope"), line.index("self.nope") + 1)
    program = parse(text)
    assert (
        program.function("main").params[0].span.col
        == text.splitlines()[line_of(text, "def main") - 1].index("src") + 1
    )


# ------------------------------------------------------------------------------ reproducers


@pytest.mark.shared
def test_reproducer_extra_graph_argument_is_rejected() -> None:
    text = (FUZZ / "verdict_graph_call_extra_arg_rewritten.py").read_text()
    assert only(analyze(text), "IR401")[0] == line_of(text, "self.shift(src, dst, i, dst)")


@pytest.mark.shared
def test_reproducer_self_launch_is_rejected_before_the_rules() -> None:
    text = (FUZZ / "timeout_engine_py_769_self_launch.py").read_text()
    analysis = analyze(text)
    assert only(analysis, "IR405")[0] == line_of(text, "pl.spmd_submit(self.main")
    assert analysis.derived is None  # the rules never ran


@pytest.mark.shared
def test_reproducer_rebound_launch_tuple_guards_only_the_spmd_launch() -> None:
    text = (FUZZ / "assertionerror_spmd_guard_py_185.py").read_text()
    analysis = analyze(text)
    assert analysis.status == "rewritten" and [d.code for d in analysis.diagnostics] == ["SP310"]
    printed = analysis.legalized_text()
    assert printed is not None
    reread = parse(printed)
    main = reread.function("main")
    assert main is not None and type(main.body[0]).__name__ == "If"
    # the second launch, which rebinds the tuple name, is left as it was
    assert (
        "_submit_tmp: pl.Tuple[pl.Tensor[[256, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.spread, x, o)"
        in printed
    )
    assert analyze(printed).status in ("legal", "rewritten")


@pytest.mark.shared
def test_reproducer_rebound_launch_tuple_reads_the_new_value() -> None:
    # a read of the rebound name after the second launch is that launch's, not the guarded one's
    text = (
        (FUZZ / "assertionerror_spmd_guard_py_185.py")
        .read_text()
        .replace(
            "        return o\n    @pl.function(type=pl.FunctionType.Orchestration)",
            "        return o\n    @pl.function(type=pl.FunctionType.Orchestration)",
            1,
        )
    )
    text = text.replace(
        "pl.submit(self.spread, x, o)\n        return o",
        "pl.submit(self.spread, x, o)\n        r: pl.Tensor[[256, 64], pl.FP32] = _submit_tmp[0]\n        return r",
    )
    printed = analyze(text).legalized_text()
    assert printed is not None and "r: pl.Tensor[[256, 64], pl.FP32] = _submit_tmp[0]" in printed


def test_constant_folding_beyond_int64_is_not_a_constant() -> None:
    from legalog.ir.fold import fold_constant
    from legalog.ir.model import BinOp, Call, Const

    big = Const(4611686018427387904)
    product = BinOp("*", Call("max", (big, Const(1))), Call("max", (big, Const(1))))
    for _ in range(240):
        product = BinOp("*", product, Call("max", (big, Const(1))))
    assert fold_constant(product) is None
    assert fold_constant(BinOp("*", Const(-4), Const(8))) == -32


@pytest.mark.parametrize("iterable", ["range(8)", "xs", "self.shift(src, dst, 0)", "[0, 1, 2]"])
def test_a_loop_over_a_python_value_is_refused_as_pyptos_parser_refuses_it(iterable: str) -> None:
    text = ROW_SHIFT.replace("for i in pl.range(8):", f"for i in {iterable}:")
    line = line_of(text, "for i in")
    assert only(analyze(text), "IR411") == (line, text.splitlines()[line - 1].index(iterable) + 1)


@pytest.mark.parametrize("iterator", ["range", "parallel", "unroll", "pipeline"])
def test_every_pypto_loop_iterator_is_read(iterator: str) -> None:
    text = ROW_SHIFT.replace("for i in pl.range(8):", f"for i in pl.{iterator}(8):")
    assert analyze(text).status == "rewritten"


CARRIED = """\
        for i, (d,) in pl.range(8, init_values=(dst,)):
            d_1: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, d, i)
            d_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(d_1)
        return d_rv
"""
SIMPLE_LOOP = """\
        for i in pl.range(8):
            dst_3: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, dst, i)
        return dst
"""


@pytest.mark.parametrize(
    ("old", "new", "at"),
    [
        ("for i, (d,) in", "for i in", "init_values"),  # init_values without iteration arguments
        (
            "(d,) in pl.range(8, init_values=(dst,))",
            "(d, e) in pl.range(8, init_values=(dst,))",
            "init_values",
        ),
        ("pl.range(8, init_values=(dst,))", "pl.range(8)", "pl.range"),  # carried without init_values
        (
            "d_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(d_1)",
            "d_rv, d_x = pl.yield_(d_1, d_1)",
            "init_values",
        ),
        (
            "d_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(d_1)",
            "pl.yield_(d_1)",
            "pl.yield_",
        ),  # bare yield
    ],
)
def test_a_loop_whose_carried_values_do_not_pair_up_is_refused(old: str, new: str, at: str) -> None:
    carried = ROW_SHIFT.replace(SIMPLE_LOOP, CARRIED)
    assert analyze(carried).status == "rewritten"  # the loop as PyPTO prints it
    text = carried.replace(old, new)
    line, _col = only(analyze(text), "IR412")
    assert at in text.splitlines()[line - 1]


def test_a_yield_in_a_loop_without_init_values_is_no_carry_mismatch() -> None:
    """PyPTO's parser takes it (a simple loop's yield binds no carried value): no IR412."""
    text = ROW_SHIFT.replace(
        "            dst_3: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, dst, i)\n",
        "            dst_3: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, dst, i)\n"
        "            dst_4: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(dst_3)\n",
    )
    assert "IR412" not in {d.code for d in analyze(text).diagnostics}


def _undefined(text: str) -> list[tuple[str | None, int]]:
    return [(d.subject, d.line) for d in analyze(text).diagnostics if d.code == "IR413"]


def test_a_name_read_before_anything_binds_it_is_a_warning_at_the_read() -> None:
    text = ROW_SHIFT.replace("        base: pl.Scalar[pl.INDEX] = idx * 128\n", "")
    result = analyze(text)
    assert _undefined(text) == [("base", line_of(text, KERNEL_CALL))]
    assert all(d.severity == "warning" for d in result.diagnostics if d.code == "IR413")
    swapped = ROW_SHIFT.replace(
        "        base: pl.Scalar[pl.INDEX] = idx * 128\n        dst_2: pl.Tensor[[128, 128], pl.FP32] = self.shift_incore_0(src, base, dst)\n",
        "        dst_2: pl.Tensor[[128, 128], pl.FP32] = self.shift_incore_0(src, base, dst)\n        base: pl.Scalar[pl.INDEX] = idx * 128\n",
    )
    assert _undefined(swapped) == [("base", line_of(swapped, KERNEL_CALL))]


@pytest.mark.parametrize(
    ("module", "read"),
    [
        ("ROWS = pl.dynamic('ROWS')\n", "ROWS"),  # a dimension
        ("STRIDE = 128\n", "STRIDE"),  # a module constant PyPTO's parser resolves
        ("import math as STRIDE\n", "STRIDE"),
    ],
)
def test_a_name_the_module_binds_is_no_undefined_name(module: str, read: str) -> None:
    text = ROW_SHIFT.replace(
        "import pypto.language as pl\n", f"import pypto.language as pl\n{module}"
    ).replace("idx * 128", f"idx * {read}")
    assert _undefined(text) == []


def test_a_carried_loops_result_without_a_yield_is_bound_as_pyptos_parser_names_it() -> None:
    text = ROW_SHIFT.replace(
        SIMPLE_LOOP,
        "        for i, (d,) in pl.range(8, init_values=(dst,)):\n"
        "            d_1: pl.Tensor[[128, 128], pl.FP32] = self.shift(src, d, i)\n"
        "        return d_out\n",
    )
    assert _undefined(text) == []
    assert _undefined(text.replace("return d_out", "return e_out")) == [
        ("e_out", line_of(text, "return d_out"))
    ]


@pytest.mark.shared
def test_an_older_dumps_group_name_is_no_read_but_its_unbound_return_is() -> None:
    """corpus/06 (an older printer): `self.call_group(<group>, ...)` names a function group, not
    a variable; its AIC kernel returns its caller's result, which nothing in it binds."""
    path = CORPUS / "06_predicate_test_legacy_after_AllocateMemoryAddr.py"
    text = path.read_text(encoding="utf-8")
    assert _undefined(text) == [("out_iter_1_outer_l1_rv", 50)]
    assert analyze(text).status == "legal"


def test_a_host_subworkers_python_body_is_no_ir_to_check() -> None:
    """PyPTO keeps a HOST SubWorker's body as Python source (an InlineStmt): a Python loop over
    a list and a builtin read there are neither IR411 nor IR413; the same body elsewhere is."""
    worker = """\
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def report(rows: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        total = 0
        for row in [rows, rows]:
            total = total + abs(row) + offset
        return total
"""
    text = ROW_SHIFT.replace(
        "    @pl.function(type=pl.FunctionType.Orchestration)\n",
        worker + "    @pl.function(type=pl.FunctionType.Orchestration)\n",
    )
    codes = {d.code for d in analyze(text).diagnostics}
    assert not codes & {"IR411", "IR413"}, codes
    device = text.replace(
        "level=pl.Level.HOST, role=pl.Role.SubWorker", "level=pl.Level.AIV, role=pl.Role.SubWorker"
    )
    assert [d.code for d in analyze(device).diagnostics] == ["IR411"]  # an error stops there
    counted = device.replace("for row in [rows, rows]:", "for row in pl.range(rows):")
    assert "IR413" in {d.code for d in analyze(counted).diagnostics}
