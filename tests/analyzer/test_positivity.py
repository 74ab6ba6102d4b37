"""The Z3 positivity prover (`core_num >= 1`), on goals built directly from IR nodes.

The corpus cases are a09_orch_spmd_counts and a14_manual_graph_barrier (see the corpus INDEX).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from legalog.analyzer.positivity import (
    CORE_NUM,
    LoopRange,
    PositivityGoal,
    prove,
    smt2,
    value_domain,
)
from legalog.ir.fold import fold_constant
from legalog.ir.model import BinOp, BoolOp, Call, Compare, Const, Dotted, Expr, Name, Opaque, UnaryOp

n = Name("n")


def c(v: int) -> Const:
    return Const(v)


def blocks(x: Expr) -> Expr:
    """((x + 15) // 16) * 4, the a09 count."""
    return BinOp("*", BinOp("//", BinOp("+", x, c(15)), c(16)), c(4))


# ------------------------------------------------------------------------------------ literals


def test_literal_positive_is_proven() -> None:
    v = prove(PositivityGoal(c(8)))
    assert v.outcome == "proven" and not v.literal_nonpositive


def test_literal_zero_is_reported_distinctly() -> None:
    v = prove(PositivityGoal(c(0)))
    assert v.outcome == "refuted" and v.literal_nonpositive
    assert v.counterexample == {CORE_NUM: 0}


def test_folded_literal_is_a_literal() -> None:
    v = prove(PositivityGoal(BinOp("-", c(4), c(4))))
    assert v.literal_nonpositive and v.counterexample == {CORE_NUM: 0}


def test_symbolic_zero_is_not_a_literal() -> None:
    v = prove(PositivityGoal(Name("z"), bindings={"z": c(0)}))
    assert v.outcome == "refuted" and not v.literal_nonpositive


# ------------------------------------------------------------------------------ a09 / a14 cases


def test_bare_param_is_refuted_with_nonpositive_n() -> None:
    v = prove(PositivityGoal(n))
    assert v.outcome == "refuted" and not v.literal_nonpositive
    assert set(v.counterexample) == {"n", CORE_NUM}
    assert v.counterexample["n"] <= 0 and v.counterexample[CORE_NUM] == v.counterexample["n"]


def test_rounded_blocks_under_branch_is_proven() -> None:
    v = prove(PositivityGoal(blocks(n), facts=[(Compare("<", c(0), n), True)]))
    assert v.outcome == "proven"
    assert v.used == ("0 < n",)


def test_rounded_blocks_without_branch_is_refuted() -> None:
    v = prove(PositivityGoal(blocks(n)))
    assert v.outcome == "refuted"
    assert v.counterexample["n"] <= -15 and v.counterexample[CORE_NUM] <= 0


def test_loop_index_plus_one_is_proven() -> None:
    loop = LoopRange("i", c(0), c(4), c(1))
    v = prove(PositivityGoal(BinOp("+", Name("i"), c(1)), loops=[loop]))
    assert v.outcome == "proven"


def test_loop_index_alone_is_refuted_at_zero() -> None:
    loop = LoopRange("i", c(0), c(4), c(1))
    v = prove(PositivityGoal(Name("i"), loops=[loop]))
    assert v.outcome == "refuted" and v.counterexample == {CORE_NUM: 0, "i": 0}


def test_negative_and_strided_loops() -> None:
    down = LoopRange("i", c(4), c(0), c(-1))  # i in 4, 3, 2, 1
    assert prove(PositivityGoal(Name("i"), loops=[down])).outcome == "proven"
    odd = LoopRange("i", c(1), c(9), c(2))  # i in 1, 3, 5, 7
    assert prove(PositivityGoal(BinOp("%", Name("i"), c(2)), loops=[odd])).outcome == "proven"
    sym = LoopRange("i", c(1), n, Name("s"))  # symbolic step: either direction
    assert prove(PositivityGoal(Name("i"), loops=[sym])).outcome == "refuted"


def test_min_under_branch_is_proven() -> None:
    core = Call("pl.min", (n, c(8)))
    v = prove(PositivityGoal(core, facts=[(Compare("<=", c(1), n), True)]))
    assert v.outcome == "proven"


def test_minus_one_under_branch_is_proven() -> None:
    core = Name("c2")
    v = prove(
        PositivityGoal(core, bindings={"c2": BinOp("-", n, c(1))}, facts=[(Compare("<", c(1), n), True)])
    )
    assert v.outcome == "proven"
    assert v.used == ("1 < n", "c2 = n - 1")


def test_half_under_branch_is_refuted_with_n_one() -> None:
    core = Name("c3")
    goal = PositivityGoal(core, bindings={"c3": BinOp("//", n, c(2))}, facts=[(Compare("<", c(0), n), True)])
    v = prove(goal)
    assert v.outcome == "refuted"
    assert v.counterexample == {CORE_NUM: 0, "n": 1}  # bound names (c3) are not free symbols
    assert v.describe_counterexample() == "core_num = 0 when n = 1"


def test_else_path_polarity_is_proven() -> None:
    # if n <= 0: ... else: launch(core_num=n)
    v = prove(PositivityGoal(n, facts=[(Compare("<=", n, c(0)), False)]))
    assert v.outcome == "proven"
    v_then = prove(PositivityGoal(n, facts=[(Compare("<=", n, c(0)), True)]))
    assert v_then.outcome == "refuted"


def test_ssa_chain_is_proven() -> None:
    bindings = {"a": BinOp("+", n, c(1)), "b": BinOp("*", Name("a"), c(2))}
    v = prove(PositivityGoal(Name("b"), bindings=bindings, facts=[(Compare(">=", n, c(0)), True)]))
    assert v.outcome == "proven"


def test_guard_survives_on_symbolic_name() -> None:
    # The spec's example: a fact about `remaining` still proves the rounded count bound to a name.
    bindings = {"remaining": BinOp("-", Name("total"), Name("done")), "cnt": blocks(Name("remaining"))}
    facts = [(Compare(">", Name("remaining"), c(0)), True)]
    assert prove(PositivityGoal(Name("cnt"), bindings=bindings, facts=facts)).outcome == "proven"


def test_nonneg_names_and_dims() -> None:
    assert prove(PositivityGoal(BinOp("+", Name("d"), c(1)), nonneg=frozenset({"d"}))).outcome == "proven"
    assert prove(PositivityGoal(BinOp("+", Name("d"), c(1)))).outcome == "refuted"
    dim = Call("pl.tensor.dim", (Name("x"), c(0)))
    assert prove(PositivityGoal(BinOp("+", dim, c(1)))).outcome == "proven"
    # The same shape query twice is one value.
    assert prove(PositivityGoal(BinOp("+", BinOp("-", dim, dim), c(1)))).outcome == "proven"


def test_bool_facts_and_bool_bindings() -> None:
    bindings = {"ok": Compare(">", n, c(2))}
    facts = [(BoolOp("and", (Name("ok"), UnaryOp("not", Compare("==", n, c(5))))), True)]
    assert prove(PositivityGoal(n, bindings=bindings, facts=facts)).outcome == "proven"
    cond_or = BoolOp("or", (Compare(">", n, c(0)), Const(False)))
    assert prove(PositivityGoal(n, facts=[(cond_or, True)])).outcome == "proven"


def test_cast_max_abs() -> None:
    cast = Call("pl.cast", (n, Dotted("pl.INDEX")))
    assert prove(PositivityGoal(cast, facts=[(Compare(">", n, c(0)), True)])).outcome == "proven"
    assert prove(PositivityGoal(Call("max", (n, c(1))))).outcome == "proven"
    abs_plus = BinOp("+", Call("abs", (n,)), c(1))
    assert prove(PositivityGoal(abs_plus)).outcome == "proven"
    float_cast = Call("pl.cast", (n, Dotted("pl.FP32")))
    assert prove(PositivityGoal(float_cast, facts=[(Compare(">", n, c(0)), True)])).outcome == "refuted"


# ---------------------------------------------------------------------------- floor semantics


def test_floor_division_of_negative_operands_matches_python() -> None:
    assert fold_constant(BinOp("//", c(-7), c(2))) == -4
    # Through the solver: with a == -7 known only as a fact, a // 2 == -4 exactly.
    a = Name("a")
    facts = [(Compare("==", a, c(-7)), True)]
    q = BinOp("//", a, c(2))
    assert prove(PositivityGoal(BinOp("+", q, c(5)), facts=facts)).outcome == "proven"  # q >= -4
    assert prove(PositivityGoal(BinOp("+", q, c(4)), facts=facts)).outcome == "refuted"  # q <= -4


small = st.integers(min_value=-20, max_value=20)


@settings(max_examples=60, deadline=None)
@given(small, small.filter(lambda b: b != 0), st.sampled_from(["//", "%"]), st.booleans())
def test_floor_ops_match_python(x: int, y: int, op: str, literal_divisor: bool) -> None:
    expected = x // y if op == "//" else x % y
    a = Name("a")
    divisor: Expr = c(y) if literal_divisor else Name("b")
    facts = [(Compare("==", a, c(x)), True), (Compare("==", Name("b"), c(y)), True)]
    value = BinOp(op, a, divisor)  # type: ignore[arg-type]
    # value - expected + 1 >= 1 holds and value - expected >= 1 does not: value == expected.
    at_least = BinOp("+", BinOp("-", value, c(expected)), c(1))
    above = BinOp("-", value, c(expected))
    assert prove(PositivityGoal(at_least, facts=facts)).outcome == "proven"
    v = prove(PositivityGoal(above, facts=facts))
    assert v.outcome == "refuted" and v.counterexample[CORE_NUM] == 0


@settings(max_examples=60, deadline=None)
@given(small, small.filter(lambda b: b != 0), st.sampled_from(["//", "%"]))
def test_constant_folding_matches_python(x: int, y: int, op: str) -> None:
    assert fold_constant(BinOp(op, c(x), c(y))) == (x // y if op == "//" else x % y)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ determinism, soundness


def test_determinism() -> None:
    goal = PositivityGoal(
        BinOp("-", BinOp("*", Name("p"), Name("q")), Name("r")),
        facts=[(Compare(">", Name("p"), c(3)), True)],
    )
    first, second = prove(goal), prove(goal)
    assert first == second
    assert list(first.counterexample) == sorted(first.counterexample)
    assert smt2(goal) == smt2(goal)


def test_unencodable_leaf_is_never_proven() -> None:
    read = Call("pl.tensor.read", (Name("t"), c(0)))
    v = prove(PositivityGoal(read))
    assert v.outcome in ("refuted", "unknown")
    if v.outcome == "refuted":
        assert "pl.tensor.read(t, 0)" in v.counterexample
    for leaf in (
        Opaque("x if c else y", ("x", "c", "y")),
        Const(2.5),
        BinOp("/", n, c(2)),
        BinOp("&", n, c(1)),
    ):
        assert prove(PositivityGoal(leaf, facts=[(Compare(">", n, c(0)), True)])).outcome != "proven"
    # Two occurrences of the same read are not assumed equal: the tensor may change in between.
    guarded = PositivityGoal(read, facts=[(Compare(">", read, c(0)), True)])
    assert prove(guarded).outcome != "proven"


def test_unencodable_leaf_proven_when_facts_suffice() -> None:
    read = Call("pl.tensor.read", (Name("t"), c(0)))
    # Bound to a name, the guard and the count refer to one SSA value.
    goal = PositivityGoal(Name("k"), bindings={"k": read}, facts=[(Compare(">", Name("k"), c(0)), True)])
    assert prove(goal).outcome == "proven"
    assert prove(PositivityGoal(Call("pl.max", (read, c(1))))).outcome == "proven"
    # Contradictory facts: the launch is dead code, vacuously fine.
    contra = [(Compare(">", n, c(0)), True), (Compare("<", n, c(0)), True)]
    assert prove(PositivityGoal(read, facts=contra)).outcome == "proven"


def test_resource_limit_gives_unknown_not_a_guess() -> None:
    # A tiny budget cannot finish a nonlinear goal; the answer must be "unknown".
    x, y, z = Name("x"), Name("y"), Name("z")
    cube = BinOp("+", BinOp("*", BinOp("*", x, x), x), BinOp("*", BinOp("*", y, y), y))
    facts = [
        (Compare("==", cube, BinOp("*", BinOp("*", z, z), z)), True),
        (Compare(">", x, c(0)), True),
        (Compare(">", y, c(0)), True),
    ]
    v = prove(PositivityGoal(BinOp("-", z, BinOp("+", x, y)), facts=facts), rlimit=1)
    assert v.outcome == "unknown" and v.counterexample == {}


def test_smt2_dump() -> None:
    text = smt2(PositivityGoal(blocks(n), facts=[(Compare("<", c(0), n), True)]))
    assert "; assume: 0 < n" in text
    assert "(declare-fun n () Int)" in text and "(check-sat)" in text


# ------------------------------------------------------------------------ PyPTO's value domains


def test_value_domains_follow_pypto_dtypes() -> None:
    assert value_domain("INDEX") == (0, None)
    assert value_domain("UINT8") == (0, 255)
    assert value_domain("INT8") == (-128, 127)
    assert value_domain("INT32") == (-(2**31), 2**31 - 1)
    assert value_domain("BOOL") == (0, 1)
    assert value_domain("FP32") == (None, None)


def test_an_index_parameter_plus_one_is_proven() -> None:
    m = Name("m")
    assert prove(PositivityGoal(BinOp("+", m, c(1)), dtypes={"m": "INDEX"})).proven
    assert not prove(PositivityGoal(BinOp("+", m, c(1)))).proven  # without the domain: m = -1


def test_an_index_parameter_alone_stays_unprovable_at_zero() -> None:
    v = prove(PositivityGoal(n, dtypes={"n": "INDEX"}))
    assert v.outcome == "refuted" and v.counterexample == {CORE_NUM: 0, "n": 0}


def test_an_unsigned_upper_bound_proves_and_refutes() -> None:
    u = Name("u")
    assert prove(PositivityGoal(BinOp("-", c(256), u), dtypes={"u": "UINT8"})).proven
    v = prove(PositivityGoal(BinOp("-", c(255), u), dtypes={"u": "UINT8"}))
    assert v.counterexample == {CORE_NUM: 0, "u": 255}


def test_a_bound_name_takes_its_definition_not_its_dtype() -> None:
    # d = k - 5 declared INDEX: the analyzer binds d to k - 5; only the free k has a domain.
    goal = PositivityGoal(
        Name("d"), bindings={"d": BinOp("-", Name("k"), c(5))}, dtypes={"d": "INDEX", "k": "INT8"}
    )
    v = prove(goal)
    assert v.outcome == "refuted" and v.counterexample["k"] <= 5 and v.counterexample["k"] >= -128


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["INDEX", "UINT8", "UINT16", "INT8", "INT16", "BOOL"]),
    st.integers(-300, 300),
    st.integers(-3, 3),
)
def test_a_counterexample_never_leaves_the_dtype(dtype: str, offset: int, scale: int) -> None:
    x = Name("x")
    v = prove(PositivityGoal(BinOp("+", BinOp("*", c(scale), x), c(offset)), dtypes={"x": dtype}))
    if v.outcome == "refuted" and "x" in v.counterexample:
        low, high = value_domain(dtype)
        assert low is None or v.counterexample["x"] >= low
        assert high is None or v.counterexample["x"] <= high


# ------------------------------------------------------------------------------ verdict cache


def test_a_goal_is_remembered_by_the_names_it_reads_only(monkeypatch) -> None:
    """A function's dtype table and non-negative names are shared by all its launches; the cache
    key holds only the entries of the names a goal reads (else N launches cost N^2 to key and to
    keep), so goals differing elsewhere are one goal, and a differing entry that is read is not."""
    import legalog.analyzer.positivity as positivity

    decided: list[PositivityGoal] = []
    real = positivity._decide

    def counting(goal: PositivityGoal, rlimit: int, seed: int):  # type: ignore[no-untyped-def]
        decided.append(goal)
        return real(goal, rlimit, seed)

    monkeypatch.setattr(positivity, "_decide", counting)
    monkeypatch.setattr(positivity, "_VERDICTS", {})
    count = BinOp("+", Name("m"), c(1))
    unrelated = {f"other{i}": "INT64" for i in range(1000)}
    first = prove(PositivityGoal(count, dtypes={"m": "UINT8", **unrelated}, nonneg=frozenset(unrelated)))
    again = prove(PositivityGoal(count, dtypes={"m": "UINT8"}))
    assert first.outcome == again.outcome == "proven" and len(decided) == 1
    signed = prove(PositivityGoal(count, dtypes={"m": "INT8", **unrelated}))
    assert signed.outcome == "refuted" and len(decided) == 2
    bound = prove(PositivityGoal(Name("k"), bindings={"k": count}, dtypes={"m": "UINT8", "k": "INDEX"}))
    assert bound.outcome == "proven" and len(decided) == 3
