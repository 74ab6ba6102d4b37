"""What legalog's two passes cost inside a PyPTO compile (issues 16 and 31).

    python bench/pypto_passes.py               # every corpus/graph program, the median of 5 warm runs
    python bench/pypto_passes.py --repeats 3 --json bench/out/pypto_passes.json
    python bench/pypto_passes.py --verify       # with PyPTO's VerificationInstrument(AFTER) as well

Each `corpus/graph/*.frontend.py` is parsed with `pl.parse` and run through
`legalog.pypto.default_pipeline()` (PyPTO's Default strategy with both passes in place) under a
host_build_graph PassContext with PyPTO's default (BASIC) verification, as `ir.compile` runs it,
and through the plain Default strategy for comparison.  At BASIC PyPTO verifies only its
lightweight properties, and legalog's GraphBoundaryLegalized verifier does not run;
`--verify` adds a `VerificationInstrument(AFTER)` to both runs, which verifies every property a
pass produces (PyPTO's and GraphBoundaryLegalized alike).  A CallbackInstrument times each of
legalog's passes from its before- to its after-callback; a rejected program ends in its pass,
whose time counts to the rejection.  Inside the passes, each stage is timed (`stage=`), summed
into the split the issue asks for: reading (the scan of PyPTO's objects for work, the objects
read as legalog's model, or else PyPTO's printing and legalog's reading of it, checks, SSA
versioning and lowering), rules (the rule engine),
deciding (the decisions, Z3 included), rewriting (legalog's plan and its rewrite of the model, and
the PyPTO Program made of it: the plan applied to the objects, or else the changed functions
parsed by PyPTO) and verifying (GraphBoundaryLegalized).  The
first compile of the process also loads legalog's rules: it is run once per program untimed, then
the timed run of median total is reported.  Codegen is not timed: it is outside the passes.

Needs PyPTO: an installed `pypto`, or `$LEGALOG_PYPTO` naming a folder that holds the package
(PyPTO is on no package registry here); without it, says so and exits 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GRAPH = REPO.parent / "shared" / "corpus" / "graph"
sys.path.insert(0, str(REPO))

from tests.oracle.pypto_oracle import WHERE, pypto_folder  # noqa: E402 - after the sys.path setup above

if (_FOLDER := pypto_folder()) is None:
    print(f"bench/pypto_passes.py needs PyPTO: {WHERE}", file=sys.stderr)
    sys.exit(2)
sys.path.insert(1, str(_FOLDER))

import pypto.language as pl  # noqa: E402 - after the sys.path setup above
from pypto import passes  # noqa: E402 - after the sys.path setup above
from pypto.backend import BackendType  # noqa: E402 - after the sys.path setup above
from pypto.ir.pass_manager import OptimizationStrategy, PassManager  # noqa: E402 - after the sys.path setup above
from pypto.pypto_core import backend  # noqa: E402 - after the sys.path setup above

from legalog import pypto as lp  # noqa: E402 - after the sys.path setup above

OURS = (lp.SPMD_PASS, lp.GRAPH_PASS)
# The split of a pass's time, by the stages `pipeline.analyze` and `legalog.pypto` name.
SPLIT = {
    "reading": ("scan", "objects", "print", "parse", "checks", "version", "lower"),
    "rules": ("rules",),
    "deciding": ("decide", "launches"),
    "rewriting": ("rewrite", "apply", "rebuild"),
    "verifying": ("verify",),
}
NOTHING_TO_DECIDE_MS = 0.1  # target 3: a pass with nothing to decide


class Stages:
    """Sums each stage's time, and keeps each stage run in order (`runs`: name, seconds): a pass
    that ran only its scan had nothing to decide."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.runs: list[tuple[str, float]] = []

    def __call__(self, name: str, run: Any, /) -> Any:
        t0 = time.perf_counter()
        try:
            return run()
        finally:
            took = time.perf_counter() - t0
            self.spent[name] = self.spent.get(name, 0.0) + took
            self.runs.append((name, took))

    def split(self) -> dict[str, float]:
        return {part: sum(self.spent.get(n, 0.0) for n in names) for part, names in SPLIT.items()}


def compile_once(program: Any, with_legalog: bool, verify: bool = False) -> dict[str, Any]:
    """One pipeline run: wall time, each legalog pass's time, and how it ended."""
    spent = dict.fromkeys(OURS, 0.0)
    # a pass that ran its scan and nothing else: the Program it was given, else None
    idle: dict[str, Any] = {f"{name} idle": None for name in OURS}
    given: dict[str, Any] = {}
    detail = ""  # a failure's message, for the JSON
    running: dict[str, float] = {}  # the legalog pass under way, and when it started
    stages = Stages()
    began: dict[str, int] = {}  # where each legalog pass's stages start in `stages.names`

    def before(p: Any, prog: Any) -> None:
        if p.get_name() in spent:
            given[p.get_name()] = prog
            running[p.get_name()] = time.perf_counter()
            began[p.get_name()] = len(stages.runs)

    def after(p: Any, _prog: Any) -> None:
        if p.get_name() in running:
            spent[p.get_name()] += time.perf_counter() - running.pop(p.get_name())
            ran = stages.runs[began[p.get_name()] :]
            if [n for n, _ in ran] == ["scan"]:
                idle[f"{p.get_name()} idle"] = given[p.get_name()]

    timer = passes.CallbackInstrument(before_pass=before, after_pass=after, name="legalog-timer")
    verifier = [passes.VerificationInstrument(passes.VerificationMode.AFTER)] if verify else []
    with passes.PassContext([timer, *verifier], runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
        pipeline = (
            lp.default_pipeline(stage=stages)
            if with_legalog
            else PassManager.get_strategy(OptimizationStrategy.Default)
        )
        run = pipeline.run if with_legalog else pipeline.run_passes
        t0 = time.perf_counter()
        try:
            run(program)
            outcome = "compiled"
        except lp.PassRejected as err:
            outcome = "rejected " + " ".join(sorted({d.code for d in err.diagnostics}))
        except Exception as err:  # a failure is a row of the table, not a crash of the run
            outcome = f"failed: {type(err).__name__}"
            detail = str(err)
        # A pass that raised never reaches its after-callback: its time runs to the raise.
        for name, t in running.items():
            spent[name] += time.perf_counter() - t
        total = time.perf_counter() - t0
    return {"total": total, **spent, **idle, **stages.split(), "outcome": outcome, "detail": detail}


def measure(name: str, repeats: int, verify: bool = False) -> dict[str, Any]:
    program = pl.parse((GRAPH / f"{name}.frontend.py").read_text(), filename=f"{name}.frontend.py")
    compile_once(program, True, verify)  # warm: rule loading and first-call caches
    runs = [compile_once(program, True, verify) for _ in range(repeats)]
    plain = [compile_once(program, False, verify)["total"] for _ in range(repeats)]
    # The run of median total, whole: medians taken column by column would not add up.
    middle = sorted(runs, key=lambda r: r["total"])[len(runs) // 2]
    row: dict[str, Any] = {"program": name, **middle, "default_only": statistics.median(plain)}
    for one in OURS:  # target 3, timed alone: one pipeline run's single call is scheduling noise
        if (given := row[f"{one} idle"]) is not None:
            row[f"{one} idle"] = alone(one, given)
    ours = row[lp.SPMD_PASS] + row[lp.GRAPH_PASS]
    row["rest"] = row["total"] - ours  # every other pass of the same run
    row["ratio"] = ours / row["rest"] if row["rest"] > 0 else float("inf")
    return row


def alone(name: str, program: Any, calls: int = 101) -> float:
    """The median time of one call of legalog's pass `name` on `program`, under the bench's
    PassContext."""
    with passes.PassContext([], runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
        one = lp.legalize_spmd_launches() if name == lp.SPMD_PASS else lp.legalize_graph_boundary()
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            one(program)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def table(rows: list[dict[str, Any]]) -> str:
    parts = " | ".join(f"{part} (ms)" for part in SPLIT)
    head = (
        "| program | result | LegalizeSpmdLaunches (ms) | LegalizeGraphBoundary (ms) | rest of the pipeline (ms) "
        f"| passes / rest | {parts} |"
    )
    out = [head, "|" + "---|" * (6 + len(SPLIT))]
    for r in rows:
        split = " | ".join(f"{r[part] * 1e3:.1f}" for part in SPLIT)
        out.append(
            f"| {r['program']} | {r['outcome']} | {r[lp.SPMD_PASS] * 1e3:.2f} | {r[lp.GRAPH_PASS] * 1e3:.2f} "
            f"| {r['rest'] * 1e3:.1f} | {r['ratio']:.2f}x | {split} |"
        )
    ours = sum(r[lp.SPMD_PASS] + r[lp.GRAPH_PASS] for r in rows)
    rest = sum(r["rest"] for r in rows)
    split = " | ".join(f"{sum(r[part] for r in rows) * 1e3:.1f}" for part in SPLIT)
    ratio = ours / rest if rest > 0 else float("inf")
    out.append(
        f"| all {len(rows)} | | {sum(r[lp.SPMD_PASS] for r in rows) * 1e3:.1f} "
        f"| {sum(r[lp.GRAPH_PASS] for r in rows) * 1e3:.1f} | {rest * 1e3:.1f} | {ratio:.2f}x | {split} |"
    )
    worst = max(rows, key=lambda r: r["ratio"])
    idle = [r[f"{p} idle"] * 1e3 for r in rows for p in OURS if r[f"{p} idle"] is not None]
    out += [
        "",
        f"target 1: the two passes / the rest of the Default pipeline = {ratio:.2f}x ({ours:.3f} s / "
        f"{rest:.3f} s; goal <= 1.0x, stretch 0.25x): {'met' if ratio <= 1.0 else 'MISSED'}",
        f"target 2: the worst program, {worst['program']}, {worst['ratio']:.2f}x its rest (goal <= 3x): "
        f"{'met' if worst['ratio'] <= 3.0 else 'MISSED'}",
        (
            f"target 3: a pass with nothing to decide ({len(idle)} of the passes above), called alone on the "
            f"program it was given, median of 101 calls: {min(idle):.3f}-{max(idle):.3f} ms "
            f"(goal <= {NOTHING_TO_DECIDE_MS} ms): {'met' if max(idle) <= NOTHING_TO_DECIDE_MS else 'MISSED'}"
            if idle
            else "target 3: no pass without anything to decide among these programs"
        ),
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repeats", type=int, default=5, help="timed runs per program (the median one is reported)"
    )
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument(
        "--verify",
        action="store_true",
        help="run under PyPTO's VerificationInstrument(AFTER): every produced property verified",
    )
    args = ap.parse_args(argv)
    backend.set_backend_type(BackendType.Ascend910B)  # platform a2a3, as the corpus was printed
    names = sorted(p.name.removesuffix(".frontend.py") for p in GRAPH.glob("*.frontend.py"))
    rows = [measure(name, args.repeats, args.verify) for name in names]
    print(table(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
