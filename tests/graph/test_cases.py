"""Golden cases for LegalizeGraphBoundary: one printed-IR program per file in `cases/`.

Each `cases/<name>.py` is a PyPTO dump in the post-outlining printed style (kernels without
`self`, a Graph with level/role, an Orchestration `main` calling it).  Annotations, Semgrep-style:

* `# expect: GB119` (several codes comma-separated allowed) on the line directly above a
  statement: a diagnostic with that code must be reported at that statement's line.  Above a
  decorator, the annotation names the `def` line the decorator belongs to (function-level codes
  such as GB102 or GB108 are reported there).  A missing diagnostic fails, and so does an
  unexpected one: every diagnostic the analysis reports must be annotated.
* `# expect-finding: GB201` above a statement: a finding of the rewrite (GB201-GB204) there.  A
  case with one such annotation must annotate every finding it has, as with `# expect:`.
* `# expect-status: rewritten|legal|rejected` anywhere in the header: the file's status.
* `# expect-runtime: tensormap_and_ringbuffer`: analyse for that runtime instead of
  host_build_graph.

A rewritten case has a sibling `<name>.expected.py` holding the exact output of
`legalog fix <name>.py -o OUT` (a legal case is its own golden: it must come back unchanged); the harness compares it, checks that the output re-analyses
as `legal`, and that fixing it again changes nothing.  The annotations are ordinary comments:
the parser keeps a statement's leading comments, and the expected outputs keep them too.

Regenerate every golden in one command:

    LEGALOG_ACCEPT=1 python -m pytest tests/graph

(then review the diff of `tests/graph/cases/*.expected.py` before committing).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from legalog.cli import main as legalog_main
from legalog.pipeline import analyze

CASES = Path(__file__).resolve().parent / "cases"
ACCEPT = os.environ.get("LEGALOG_ACCEPT") == "1"

_EXPECT = re.compile(
    r"^\s*#\s*expect(?P<finding>-finding)?:\s*(?P<codes>[A-Z]+[0-9]*(?:\s*,\s*[A-Z]+[0-9]*)*)\s*$"
)
_STATUS = re.compile(r"^\s*#\s*expect-status:\s*(?P<status>rewritten|legal|rejected)\s*$")
_RUNTIME = re.compile(r"^\s*#\s*expect-runtime:\s*(?P<runtime>\w+)\s*$")


def case_files() -> list[Path]:
    return sorted(p for p in CASES.glob("*.py") if not p.name.endswith(".expected.py"))


def expected_path(case: Path) -> Path:
    return case.with_name(case.stem + ".expected.py")


Expected = Counter[tuple[int, str]]


def expectations(text: str) -> tuple[Expected, str | None, str, Expected | None]:
    """(line, code) pairs the annotations demand, the expected status, the runtime, and the
    findings (None: the case does not annotate its findings)."""
    lines = text.splitlines()
    wanted: Expected = Counter()
    findings: Expected | None = None
    status, runtime = None, "host_build_graph"
    for i, line in enumerate(lines):
        if m := _STATUS.match(line):
            status = m.group("status")
        if m := _RUNTIME.match(line):
            runtime = m.group("runtime")
        m = _EXPECT.match(line)
        if not m:
            continue
        target = i + 1
        while target < len(lines) and lines[target].strip().startswith("#"):
            target += 1
        while target < len(lines) and lines[target].strip().startswith("@"):
            target += 1  # a decorator: the annotation names its `def` line
        assert target < len(lines), f"line {i + 1}: `# expect:` annotates nothing"
        into = wanted
        if m.group("finding"):
            into = findings = Counter() if findings is None else findings
        for code in m.group("codes").split(","):
            into[(target + 1, code.strip())] += 1
    return wanted, status, runtime, findings


def fix_output(path: Path, out: Path, runtime: str) -> tuple[int, str | None]:
    rc = legalog_main(["fix", str(path), "-o", str(out), "--runtime", runtime])
    return rc, (out.read_text(encoding="utf-8") if out.exists() else None)


@pytest.mark.parametrize("case", case_files(), ids=lambda p: p.stem)
def test_case(case: Path, tmp_path: Path) -> None:
    text = case.read_text(encoding="utf-8")
    wanted, status, runtime, findings = expectations(text)
    analysis = analyze(text, str(case), runtime=runtime)
    # GB201-GB204 say what the rewrite changes: the case's expected output holds them
    got = Counter((d.line, d.code) for d in analysis.diagnostics if d not in analysis.findings)
    missing = wanted - got
    unexpected = got - wanted
    detail = "\n".join(
        f"  {case.name}:{d.line}:{d.column}: {d.code} {d.message}" for d in analysis.diagnostics
    )
    assert not missing and not unexpected, (
        f"missing {sorted(missing.elements())}, unexpected {sorted(unexpected.elements())}\nreported:\n{detail}"
    )
    if status is not None:
        assert analysis.status == status, detail
    if findings is not None:
        assert Counter((f.line, f.code) for f in analysis.findings) == findings, [
            (f.line, f.code) for f in analysis.findings
        ]

    golden = expected_path(case)
    if analysis.status == "rejected":
        assert not golden.exists(), f"{golden.name} exists for a rejected case"
        rc, written = fix_output(case, tmp_path / "out.py", runtime)
        assert rc == 1 and written is None, "fix wrote a rejected program"
        return
    rc, written = fix_output(case, tmp_path / "out.py", runtime)
    assert rc == 0 and written is not None
    if analysis.status == "legal":
        # a legal program is its own golden: it must come back byte-for-byte
        assert not golden.exists(), f"{golden.name} would only repeat {case.name}"
        golden = case
    elif ACCEPT:
        golden.write_text(written, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}: run LEGALOG_ACCEPT=1 python -m pytest tests/graph"
    assert written == golden.read_text(encoding="utf-8"), f"`legalog fix` output differs from {golden.name}"

    again = analyze(written, str(golden), runtime=runtime)
    assert again.status == "legal", "\n".join(f"{d.code} {d.line}: {d.message}" for d in again.diagnostics)
    rc, twice = fix_output(golden, tmp_path / "twice.py", runtime)
    assert rc == 0 and twice == written, "fixing the fixed program changed it"
    # every annotation comment that sat on a surviving statement is still there
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("# note:"):
            assert stripped in written, f"comment lost by the rewrite: {stripped}"


def test_every_case_is_annotated_for_its_status() -> None:
    """A case without `# expect-status:` would let a wrong status through silently."""
    for case in case_files():
        _, status, _, _ = expectations(case.read_text(encoding="utf-8"))
        assert status is not None, f"{case.name} has no `# expect-status:` line"
