"""The extractor records what the text says: the facts the SPMD decisions read for the names a
statement binds, a loop's back-edge apart from its initial values, and a scope's TaskId."""

from __future__ import annotations

from legalog.extractor.lower import lower
from legalog.ir.parser import parse

T = "pl.Tensor[[64], pl.FP32]"


def facts(body: str) -> dict[str, set[tuple[str | int, ...]]]:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    text = (
        "import pypto.language as pl\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:\n" + lines
    )
    store = lower(parse(text)).facts
    return {name: set(rows) for name, rows in store.as_mapping().items()}


def test_a_loops_back_edge_is_told_apart_from_its_initial_value() -> None:
    got = facts(
        "for i, (a,) in pl.range(4, init_values=(x,)):\n"
        f"    b: {T} = pl.tensor.add(a, a)\n"
        "    r = pl.yield_(b)\n"
        "return r"
    )
    refs = dict(got["ref"])
    carried = {(v, refs[e]) for v, e in got["carried"]}
    back = {(v, refs[e]) for v, e in got["carried_back"]}
    # the init and the yield flow into names; the back-edge also flows b into a, next trip
    assert carried == {("main/a", "main/x"), ("main/r", "main/b"), ("main/a", "main/b")}
    assert back == {("main/a", "main/b")}


def test_a_list_of_initial_values_is_read_as_the_tuple_is() -> None:
    got = facts("for i, (a,) in pl.range(4, init_values=[x]):\n    r = pl.yield_(a)\nreturn r")
    refs = dict(got["ref"])
    assert ("main/a", "main/x") in {(v, refs[e]) for v, e in got["carried"]}


def test_the_names_a_yield_or_tuple_binding_binds_are_targets() -> None:
    got = facts(
        "for i, (a, b) in pl.range(4, init_values=(x, n)):\n"
        "    c, d = pl.yield_(a, b)\n"
        f"e: {T} = pl.tensor.add(c, c)\n"
        "return e"
    )
    stmt = {s: k for s, _f, k in got["stmt"]}
    targets = {(stmt[s], p, v) for s, p, v in got["target"]}
    assert targets == {
        ("for", 0, "main/a"),
        ("for", 1, "main/b"),
        ("assign", 0, "main/c"),
        ("assign", 1, "main/d"),
    }
    # a one-name binding is `assign`; the bare yield binding is unannotated, the typed one is not
    assert {v for _s, v, _e in got["assign"]} == {"main/e"}
    assert {stmt[s] for (s,) in got["unannotated"]} == {"assign"}
    assert len(got["unannotated"]) == 1


def test_a_scope_names_its_task_id() -> None:
    got = facts(f"with pl.spmd(4) as tid:\n    y: {T} = pl.tensor.add(x, x)\nreturn y")
    ((scope, kind),) = got["scope"]
    assert kind == "spmd" and got["scope_as"] == {(scope, "main/tid")}


def test_a_loop_header_reads_what_it_names_beyond_its_bounds() -> None:
    got = facts('for i in pl.range(4, attrs={"k": n}):\n    b = pl.tensor.add(x, x)\nreturn x')
    stmt = {s: k for s, _f, k in got["stmt"]}
    reads = {(stmt[s], v) for e, v in got["ref"] for e2, s in got["in_stmt"] if e2 == e}
    assert ("for", "main/n") in reads


def test_an_unannotated_launch_binds_the_callees_return_types() -> None:
    """`out, tid = pl.submit(...)` cannot be annotated in Python: PyPTO types the targets with
    the kernel's return type and a TaskId, and so do the facts (a rule reading a tensor's class,
    such as an alias's provenance, must see them)."""
    text = (
        "import pypto.language as pl\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def k(self, x: {T}, y: pl.InOut[{T}]) -> {T}:\n        return y\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        f"    def main(self, x: {T}, y: pl.InOut[{T}]) -> {T}:\n"
        "        out, tid = pl.submit(self.k, x, y)\n"
        "        again = self.k(x, out)\n"
        "        return again\n"
    )
    store = lower(parse(text)).facts.as_mapping()
    classes, dtypes = set(store["var_class"]), set(store["var_dtype"])
    assert {("main/out", "tensor"), ("main/tid", "scalar"), ("main/again", "tensor")} <= classes
    assert ("main/tid", "TASK_ID") in dtypes and ("main/out", "FP32") in dtypes
