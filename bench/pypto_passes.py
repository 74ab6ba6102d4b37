"""What legalog's two passes cost inside a PyPTO compile (issue 16).

    python bench/pypto_passes.py               # every corpus/graph program, the median of 5 warm runs
    python bench/pypto_passes.py --repeats 3 --json bench/out/pypto_passes.json

Each `corpus/graph/*.frontend.py` is parsed with `pl.parse` and run through
`legalog.pypto.default_pipeline()` (PyPTO's Default strategy with both passes in place) under a
host_build_graph PassContext with PyPTO's default (BASIC) verification, as `ir.compile` runs it,
and through the plain Default strategy for comparison.  A CallbackInstrument times each of
legalog's passes from its before- to its after-callback (the transform: print, legalog, `pl.parse`
of the rewrite); a rejected program ends in its pass, whose time counts to the rejection.  The
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


def compile_once(program: Any, with_legalog: bool) -> dict[str, Any]:
    """One pipeline run: wall time, each legalog pass's time, and how it ended."""
    spent = dict.fromkeys(OURS, 0.0)
    detail = ""  # a failure's message, for the JSON
    running: dict[str, float] = {}  # the legalog pass under way, and when it started

    def before(p: Any, _prog: Any) -> None:
        if p.get_name() in spent:
            running[p.get_name()] = time.perf_counter()

    def after(p: Any, _prog: Any) -> None:
        if p.get_name() in running:
            spent[p.get_name()] += time.perf_counter() - running.pop(p.get_name())

    timer = passes.CallbackInstrument(before_pass=before, after_pass=after, name="legalog-timer")
    with passes.PassContext([timer], runtime=passes.RuntimeKind.HOST_BUILD_GRAPH):
        pipeline = (
            lp.default_pipeline() if with_legalog else PassManager.get_strategy(OptimizationStrategy.Default)
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
    return {"total": total, **spent, "outcome": outcome, "detail": detail}


def measure(name: str, repeats: int) -> dict[str, Any]:
    program = pl.parse((GRAPH / f"{name}.frontend.py").read_text(), filename=f"{name}.frontend.py")
    compile_once(program, True)  # warm: rule loading and first-call caches
    runs = [compile_once(program, True) for _ in range(repeats)]
    plain = [compile_once(program, False)["total"] for _ in range(repeats)]
    # The run of median total, whole: medians taken column by column would not add up.
    middle = sorted(runs, key=lambda r: r["total"])[len(runs) // 2]
    row: dict[str, Any] = {"program": name, **middle, "default_only": statistics.median(plain)}
    row["share"] = (row[lp.SPMD_PASS] + row[lp.GRAPH_PASS]) / row["total"]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| program | result | pipeline with legalog (s) | LegalizeSpmdLaunches (s) | LegalizeGraphBoundary (s) "
        "| legalog share | Default alone (s) |"
    )
    out = [head, "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['program']} | {r['outcome']} | {r['total']:.3f} | {r[lp.SPMD_PASS]:.3f} "
            f"| {r[lp.GRAPH_PASS]:.3f} | {r['share']:.0%} | {r['default_only']:.3f} |"
        )
    total = sum(r["total"] for r in rows)
    ours = sum(r[lp.SPMD_PASS] + r[lp.GRAPH_PASS] for r in rows)
    out.append(
        f"| all {len(rows)} | | {total:.3f} | | | {ours / total:.0%} | {sum(r['default_only'] for r in rows):.3f} |"
    )
    rest = total - ours  # every other pass of the same runs
    ratio = ours / rest if rest > 0 else float("inf")
    verdict = "met" if ratio <= 1.0 else "MISSED"
    out.append(
        f"\nissue 19, target 5: the two passes / the rest of the Default pipeline = {ratio:.2f}x "
        f"({ours:.3f} s / {rest:.3f} s; goal <= 1.0x, stretch 0.25x): {verdict}"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repeats", type=int, default=5, help="timed runs per program (the median one is reported)"
    )
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)
    backend.set_backend_type(BackendType.Ascend910B)  # platform a2a3, as the corpus was printed
    names = sorted(p.name.removesuffix(".frontend.py") for p in GRAPH.glob("*.frontend.py"))
    rows = [measure(name, args.repeats) for name in names]
    print(table(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
