"""`validate`: a pass's output judged against legalog's own run of the pass on its input.

The programs are the TV5xx rule examples' inputs (legalog/surfaces/rule_examples), each a small
dump in the printed style; the right output is what legalog itself writes, and each mutation of
it is one mistake a pass can make.  Each mutation must give exactly its own finding; renaming
variables is no mistake (PyPTO's structural equality compares variables by position)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import legalog
from legalog.pipeline import Validation, analyze, validate
from legalog.surfaces.rule_docs import example_path
from tests.graph.test_cases import case_files


def _program(code: str) -> str:
    """A rule example's pass input, without the lines that mark what `legalog rule` shows."""
    text = example_path(code, "input").read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(True) if "# rule-doc" not in line)


SHIFT = _program("TV521")  # a Graph deriving `base` from its scalar parameter
WINDOW = _program("TV511")  # a Graph taking a view `wl` of a boundary tensor
BANDS = _program("TV502")  # an SPMD launch of `n` blocks


def legalized(text: str, pass_name: str) -> str:
    result = analyze(text, passes=(pass_name,)).legalized_text()
    assert result is not None
    return result


def codes(v: Validation) -> list[str]:
    return [d.code for d in v.diagnostics]


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


# ---------------------------------------------------------------------------------- mutations

SHIFT_AFTER = legalized(SHIFT, "graph")
BANDS_AFTER = legalized(BANDS, "spmd")


def _param_dropped() -> str:
    """`base` leaves the Graph, but neither becomes a parameter nor is passed."""
    text = replaced(SHIFT_AFTER, ", base: pl.Scalar[pl.INDEX]) ->", ") ->")
    text = replaced(text, "self.shift(src, d, i, base__graph_arg0, attrs", "self.shift(src, d, i, attrs")
    return replaced(text, "pl.adir.scalar, pl.adir.scalar]})", "pl.adir.scalar]})")


def _renamed(text: str) -> str:
    """Every local of the rewritten program spelled otherwise, consistently."""
    for old, new in (
        ("base__graph_arg0", "offset_arg"),
        ("d_rv", "acc_out"),
        ("dst_1", "written"),
        ("(d,)", "(acc,)"),
    ):
        text = replaced(text, old, new)
    return re.sub(r"\bd\b", "acc", text)


# name -> (pass, input, AFTER, the codes it must give, exactly)
MUTATIONS = {
    "legalog's own output": ("graph", SHIFT, SHIFT_AFTER, []),
    "a hoist undone": ("graph", SHIFT, SHIFT, ["TV521"]),
    "a parameter dropped": ("graph", SHIFT, _param_dropped(), ["TV522"]),
    "a guard removed": ("spmd", BANDS, BANDS, ["TV521"]),
    "an unrelated function edited": (
        "graph",
        SHIFT,
        replaced(SHIFT_AFTER, "pl.tile.store(t, [0, 0], c)", "pl.tile.store(t, [1, 0], c)"),
        ["TV524"],
    ),
    "a renamed variable": ("graph", SHIFT, _renamed(SHIFT_AFTER), []),
    "a renamed variable (spmd)": (
        "spmd",
        BANDS,
        re.sub(r"\br_nonempty\b", "chunk", BANDS_AFTER).replace("r_guarded_0", "merged"),
        [],
    ),
    "a guard that proves nothing": (
        "spmd",
        BANDS,
        replaced(BANDS_AFTER, "if n > 0:", "if n >= 0:"),
        ["TV502", "TV523"],
    ),
    "a kept rename": (
        "graph",
        replaced(
            SHIFT,
            "base: pl.Scalar[pl.INDEX] = idx * 128",
            "k: pl.Scalar[pl.INDEX] = idx\n        base: pl.Scalar[pl.INDEX] = k * 128",
        ),
        replaced(
            SHIFT_AFTER,
            "-> pl.Tensor[[128, 128], pl.FP32]:\n        dst_1",
            "-> pl.Tensor[[128, 128], pl.FP32]:\n        k: pl.Scalar[pl.INDEX] = idx\n        dst_1",
        ),
        ["TV521"],
    ),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_each_mutation_gives_exactly_its_finding(name: str) -> None:
    pass_name, before, after, expected = MUTATIONS[name]
    assert sorted(codes(validate(before, after, pass_name))) == expected


def test_a_decision_difference_says_what_each_side_did() -> None:
    (found,) = validate(SHIFT, SHIFT, "graph").diagnostics
    assert found.message.startswith("AFTER keeps `base` inside Graph `shift`; legalog hoists it: Step A")
    assert "idx * 128" in found.message  # legalog's reason, as `legalog why` gives it
    assert (found.function, found.subject, found.line) == (
        "shift",
        "base",
        _line_of(SHIFT, "base: pl.Scalar[pl.INDEX] = idx"),
    )


def test_a_guard_removed_names_the_counterexample() -> None:
    (found,) = validate(BANDS, BANDS, "spmd").diagnostics
    assert "AFTER launches `band` unguarded; legalog guards it with `if n > 0`" in found.message
    assert "n = 0" in found.message


def test_the_mutation_counts() -> None:
    """The closing note's numbers: how many mutations there are, and how many are findings."""
    found = [name for name, (p, b, a, _) in MUTATIONS.items() if codes(validate(b, a, p))]
    assert (len(MUTATIONS), len(found)) == (9, 6)


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# ---------------------------------------------------------------------------------- verdicts


def _rejected() -> str:
    """The Graph launches its kernel under a loop whose trip count is a boundary scalar: GB112."""
    text = replaced(
        SHIFT,
        "idx: pl.Scalar[pl.INDEX]) -> pl.Tensor",
        "idx: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]) -> pl.Tensor",
    )
    text = replaced(
        text,
        '        dst_1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(src, base, dst, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})\n        return dst_1',
        "        for j, (dd,) in pl.range(n, init_values=(dst,)):\n"
        '            dd_1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(src, base, dd, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})\n'
        "            dd_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(dd_1)\n        return dd_rv",
    )
    return replaced(text, "self.shift(src, d, i, attrs", "self.shift(src, d, i, i, attrs").replace(
        "pl.adir.inout, pl.adir.scalar]})", "pl.adir.inout, pl.adir.scalar, pl.adir.scalar]})"
    )


def test_an_output_of_a_program_legalog_rejects_is_a_finding() -> None:
    before = _rejected()
    assert analyze(before, passes=("graph",)).status == "rejected"
    judged = validate(before, before, "graph")
    assert "TV531" in codes(judged)
    (let_through,) = [d for d in judged.diagnostics if d.code == "TV531"]
    assert "GB112" in let_through.message and "yet the pass produced AFTER" in let_through.message
    assert codes(validate(before, None, "graph")) == []  # both refuse: they agree


def test_no_output_where_legalog_accepts_is_a_finding() -> None:
    (missing,) = validate(SHIFT, None, "graph").diagnostics
    assert missing.code == "TV532" and "rewrites `shift`, `main`" in missing.message


def test_no_output_for_an_out_graph_parameter_is_a_seed_reading() -> None:
    before = replaced(
        SHIFT,
        "dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx",
        "dst: pl.Out[pl.Tensor[[128, 128], pl.FP32]], idx",
    )
    (reading,) = validate(before, None, "graph").diagnostics
    assert (reading.code, reading.severity, reading.subject) == ("TV541", "warning", "dst")
    assert "Out describes write-only access and is legal with caller-supplied storage" in reading.message


def test_two_different_programs_are_no_pair() -> None:
    judged = validate(SHIFT, replaced(SHIFT_AFTER, "class Shift:", "class Other:"), "graph")
    assert judged.status == "error" and codes(judged) == ["TV500"]
    assert "AFTER is program `Other`" in judged.diagnostics[0].message


@pytest.mark.parametrize("side", ["before", "after"])
def test_an_unreadable_side_stops_the_validation_with_where(side: str) -> None:
    broken = SHIFT_AFTER.replace("class Shift:", "class Shift(:")
    before, after = (broken, SHIFT_AFTER) if side == "before" else (SHIFT, broken)
    judged = validate(before, after, "graph", f"{side}.py" if side == "before" else "b.py", "after.py")
    assert judged.status == "error" and codes(judged) == ["PARSE"]
    assert judged.path == f"{side}.py" and judged.diagnostics[0].line == _line_of(broken, "class Shift(:")


# ---------------------------------------------------------------------------------- readability


def test_a_signature_reading_a_local_is_pyptos_name_error() -> None:
    after = legalized(WINDOW, "graph")
    copied = replaced(
        after,
        'pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)',
        'pl.MemRef("mem_ddr_0", off * 128 * 4, 65536)',
    )
    judged = validate(WINDOW, copied, "graph")
    assert sorted(codes(judged)) == ["TV511", "TV541"]
    name_error = next(d for d in judged.diagnostics if d.code == "TV511")
    assert name_error.subject == "off" and "NameError" in name_error.message
    assert "Step B moves that slice out" in next(d for d in judged.diagnostics if d.code == "TV541").message


def test_a_moved_type_reading_the_callees_local_dangles() -> None:
    after = legalized(WINDOW, "graph")
    dangling = replaced(after, "off__graph_arg0 * 128 * 4", "off * 128 * 4")
    (found,) = validate(WINDOW, dangling, "graph").diagnostics
    assert (found.code, found.function, found.subject) == ("TV512", "main", "off")
    assert "is bound in `win`" in found.message


# ---------------------------------------------------------------------------- legalog vs itself


@pytest.mark.parametrize("case", case_files(), ids=lambda p: p.stem)
@pytest.mark.parametrize("pass_name", ["graph", "spmd"])
def test_legalogs_own_result_validates_clean(case: Path, pass_name: str) -> None:
    """Whatever legalog decides for a golden case (rewrite, leave, reject), its own output (or
    none, where it rejects) is a correct result: validating it finds nothing."""
    text = case.read_text(encoding="utf-8")
    result = analyze(text, str(case), passes=(pass_name,))
    judged = validate(text, result.legalized_text(), pass_name, str(case))
    assert codes(judged) == [], [f"{d.code} {d.line}: {d.message}" for d in judged.diagnostics]


# ---------------------------------------------------------------------------------- library


def test_the_library_reads_paths_and_tells_the_pass_by_their_names(tmp_path: Path) -> None:
    before, after = tmp_path / "x.graph_input.py", tmp_path / "x.graph_input.ref.py"
    before.write_text(SHIFT, encoding="utf-8")
    after.write_text(SHIFT, encoding="utf-8")
    judged = legalog.validate(before, after)
    assert judged.pass_name == "graph" and codes(judged) == ["TV521"] and judged.path == str(after)
    with pytest.raises(ValueError, match="pass_='graph' or pass_='spmd'"):
        legalog.validate(SHIFT, SHIFT)
    assert codes(legalog.validate(before, tmp_path / "missing.py")) == ["PARSE"]
