"""`validate` over PyPTO's own passes: every entry of `../shared/reference/cases.json` judged.

A `rewritten` entry's output (`.ref.py`, what PyPTO's C++ pass printed) is validated against
its input; a `legal` entry's input against itself (the pass left it as it was); a `rejected`
entry with no output at all (the pass raised).  Each must give exactly the classes the
reference README names, and nothing anywhere else:

* the NameError class (TV511 in the signature, TV512 at the call site), on exactly the outputs
  PyPTO's `pl.parse` cannot read back (`data/name_error_outputs.txt`, derived as it says, and
  checked against PyPTO itself where it is installed), each with the seed reading behind it
  (TV541, class 2: the new parameter carries the view's MemRef);
* the known seed readings (test_reference's KNOWN) as TV541 quoting the seed sentence;
* each of test_reference's READINGS rows as the finding its reading gives (`READING_CODES`).

`python -m tests.reference.test_validate_reference` prints the table the closing note quotes.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from legalog.pipeline import Validation, validate
from tests.reference.test_reference import (
    ENTRIES,
    KNOWN,
    OUT_PARAMETER,
    READINGS,
    REFERENCE,
    STRONGER_PROOF,
    Entry,
)

pytestmark = [pytest.mark.shared, pytest.mark.slow]

NAME_ERRORS = Path(__file__).with_name("data") / "name_error_outputs.txt"
NAME_ERROR_CODES = {"TV511", "TV512", "TV541"}  # the signature, the call site, and the seed reading
SEED_SENTENCES = {
    OUT_PARAMETER: "Out describes write-only access and is legal with caller-supplied storage",
    STRONGER_PROOF: "Proven-positive launches are unchanged",
}
# What validate says where test_reference reads a difference (READINGS has each one's reason).
READING_CODES: dict[str, set[str]] = {
    # PyPTO's parser reads the input otherwise than its text; legalog keeps the text as written
    "m0568__a03_derive_chain.graph_input__odd_statement+indent_unit": {"TV523"},
    "m0793__a14_manual_graph_barrier.spmd_input__byte_near_token": {"TV523"},
    # and here PyPTO printed the input's mid-branch `ya = pl.yield_(y1)` as a bare `pl.yield_(y1)`:
    # read back, its `if` yields from one branch only, which PyPTO's own verifier refuses
    # (SSAVerify: "IfStmt then branch must end with YieldStmt when return_vars exist", e2d0f78)
    "m0966__a14_manual_graph_barrier.spmd_input__swap_stmts": {"TV523", "TV513"},
    "m1376__a14_manual_graph_barrier.spmd_input__tuple_unpack_submit": {"TV523"},
    # the inserted `pl.cast(x, pl.INDEX)` shows at the call site's recomputed scalar
    "m1253__b03_offset_algebra.graph_input__annotation": {"TV522"},
}


@cache
def judged(entry: Entry) -> Validation:
    before = (REFERENCE / entry.input).read_text(encoding="utf-8")
    if entry.verdict == "rewritten":
        assert entry.output is not None
        after: str | None = (REFERENCE / entry.output).read_text(encoding="utf-8")
        where: str | None = entry.output
    else:
        after, where = (before, entry.input) if entry.verdict == "legal" else (None, None)
    return validate(before, after, entry.pass_name, entry.input, where)


def name_error_outputs() -> set[str]:
    return {
        line
        for line in NAME_ERRORS.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }


def signature_name_errors(text: str) -> bool:
    """Whether executing the dump raises NameError at a `def`: a name in a signature's annotation
    that neither the module nor the class body binds before it (Python alone, as the list's
    header says; independent of legalog's own check)."""
    module = ast.parse(text)
    known = set(dir(builtins))
    for node in module.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            known |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            known |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ClassDef):
            scope = set(known)
            for item in (i for i in node.body if isinstance(i, ast.FunctionDef)):
                args = item.args.posonlyargs + item.args.args + item.args.kwonlyargs
                annotations = [a.annotation for a in args if a.annotation] + [item.returns] * bool(
                    item.returns
                )
                if any(
                    isinstance(n, ast.Name) and n.id not in scope for a in annotations for n in ast.walk(a)
                ):
                    return True
                scope.add(item.name)
            known.add(node.name)
    return False


def expected(entry: Entry) -> set[str]:
    if entry.name in READING_CODES:
        codes = READING_CODES[entry.name]
        return codes | NAME_ERROR_CODES if entry.output in name_error_outputs() else codes
    if entry.name in KNOWN:
        return {"TV541"}
    return NAME_ERROR_CODES if entry.output in name_error_outputs() else set()


def test_every_table_row_is_an_entry() -> None:
    names = {e.name for e in ENTRIES}
    assert set(READING_CODES) == set(READINGS), "one expected finding per READINGS row"
    assert set(READING_CODES) <= names


def test_the_name_error_list_is_what_python_says() -> None:
    derived = {
        e.output for e in ENTRIES if e.output and signature_name_errors((REFERENCE / e.output).read_text())
    }
    assert derived == name_error_outputs()
    assert len(derived) == 44  # the reference README's count


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_validate_gives_exactly_the_readmes_classes(entry: Entry) -> None:
    v = judged(entry)
    found = {d.code for d in v.diagnostics}
    assert found == expected(entry), [f"{d.code} {d.line}: {d.message}" for d in v.diagnostics]
    if entry.name in KNOWN:
        (reading,) = v.diagnostics
        assert reading.severity == "warning" and SEED_SENTENCES[KNOWN[entry.name]] in reading.message
    if entry.output in name_error_outputs():
        for reading in (d for d in v.diagnostics if d.code == "TV541"):  # one per Graph
            assert "Step B moves that slice out" in reading.message
            assert "MemRef offset included" in reading.message
        assert all(d.severity == "error" for d in v.diagnostics if d.code in ("TV511", "TV512"))


def test_the_name_error_class_is_pyptos_own_refusal() -> None:
    """Where PyPTO is installed: `pl.parse` refuses exactly the outputs TV511 names, with NameError."""
    from tests.pypto_child import ask

    outputs = sorted(e.output for e in ENTRIES if e.output)
    answers = ask({o: ("parse", (REFERENCE / o).read_text(encoding="utf-8")) for o in outputs})
    if answers is None:
        pytest.skip("PyPTO is not installed: the committed list stands for it (data/name_error_outputs.txt)")
    refused = {o for o, answer in answers.items() if isinstance(answer, dict)}
    assert refused == name_error_outputs()
    assert all("NameError" in answers[o]["error"] for o in refused)  # type: ignore[index]
    by_validate = {
        e.output for e in ENTRIES if e.output and any(d.code == "TV511" for d in judged(e).diagnostics)
    }
    assert by_validate == refused


def table() -> str:
    """Pairs, clean, findings by code, per verdict: the closing note's table."""
    rows = []
    for verdict in ("rewritten", "legal", "rejected"):
        runs = [judged(e) for e in ENTRIES if e.verdict == verdict]
        codes = Counter(d.code for v in runs for d in v.diagnostics)
        clean = sum(not v.diagnostics for v in runs)
        rows.append(
            f"| {verdict} | {len(runs)} | {clean} | {', '.join(f'{c} {n}' for c, n in sorted(codes.items()))} |"
        )
    return "\n".join(["| verdict | pairs | clean | findings by code |", "|---|---|---|---|", *rows])


if __name__ == "__main__":
    print(table())
