"""The benchmark suite (issue 7): one command, every figure, a table and bench/out/results.json.

    python bench/run.py                 # everything (about 10 minutes on 2 cores at the time of writing)
    python bench/run.py --quick         # K up to 50, fewer repeats: a smoke run
    python bench/run.py --ks 25 50      # choose the scaling points

Per input (the real dumps of ../shared/corpus found relative to the repo, and synthetic programs
from bench/generate.py), each in its own subprocess so peak memory is that input's alone:
stage times (parse, extract, rules, decide, Z3, rewrite, print, verify) measured by calling the
stage functions directly in the order `legalog.pipeline.analyze` calls them, the total,
fact counts, peak RSS (ru_maxrss), and the ratio to `ast.parse` of the same text.  Then: scaling
over K, batch throughput of `legalog check --jobs 1` vs `--jobs 2`, and a whole-process
`python -m legalog check examples/row_shift.py`.  Targets are printed beside the measured values.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = BENCH / "out"
STAGES = ("parse", "extract", "rules", "decide", "z3", "rewrite", "print", "verify")


# ------------------------------------------------------------------------------- one input


def measure_one(path: str, runtime: str = "host_build_graph") -> dict:
    """Runs in a fresh subprocess: one input, stage by stage, as `analyze` does it."""
    sys.path.insert(0, str(REPO))
    t_import = time.perf_counter()
    from legalog.pipeline import pass_rules
    from legalog.analyzer.graph import graph_decisions, graph_diagnostics
    from legalog.analyzer.spmd import decide_launches
    from legalog.analyzer.units import solve_units
    from legalog.analyzer.verifier import verify
    from legalog.extractor.lower import lower
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse
    from legalog.ir.printer import print_program
    from legalog.rewriter.graph_boundary import legalize_graphs
    from legalog.rewriter.spmd_guard import guard_launches
    from legalog.rules.engine import RuleProgram
    from legalog.rules.programs import VERIFIER_RULES

    pass_rules()  # rules load once per process (cached): not part of a program's analysis
    RuleProgram.load(VERIFIER_RULES)
    import_s = time.perf_counter() - t_import

    text = Path(path).read_text(encoding="utf-8")
    ast_s = statistics.median(_timed(lambda: ast.parse(text), 5 if len(text) < 100_000 else 3))
    times = dict.fromkeys(STAGES, 0.0)
    result: dict = {"path": path, "bytes": len(text.encode()), "ast_parse_s": ast_s, "import_s": import_s}

    def stage(name, fn, *args):  # noqa: ANN001, ANN202
        t0 = time.perf_counter()
        value = fn(*args)
        times[name] += time.perf_counter() - t0
        return value

    try:
        program = stage("parse", parse, text, path)
    except ParseError as err:
        result.update(status="error", error=str(err), stages=times, total_s=sum(times.values()))
        return result
    lowering = stage("extract", lower, program, runtime)
    facts = lowering.facts.as_mapping()
    derived = stage("rules", solve_units, lowering, pass_rules())  # as analyze solves: unit by unit
    graphs = stage("decide", graph_decisions, program, lowering, derived)
    launches = stage("z3", decide_launches, program, lowering, derived)
    diagnostics = stage("decide", graph_diagnostics, program, lowering, derived) + list(launches.diagnostics)
    status = "rejected" if any(d.severity == "error" for d in diagnostics) else "legal"
    if status != "rejected":
        legalized = stage("rewrite", lambda: legalize_graphs(guard_launches(program, launches), graphs))
        if legalized != program:
            stage("print", print_program, legalized)
            diagnostics += stage("verify", verify, legalized, runtime)
            status = "rewritten"
    total = sum(times.values())
    result.update(
        status=status,
        codes=sorted({d.code for d in diagnostics}),
        stages=times,
        total_s=total,
        ratio_to_ast=total / ast_s if ast_s else None,
        parse_ratio_to_ast=times["parse"] / ast_s if ast_s else None,
        facts=sum(len(rows) for rows in facts.values()),
        derived_rows=sum(len(derived[name]) for name in derived),
        peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
    return result


def _timed(fn, repeat: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def run_one(path: Path, timeout: float) -> dict:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", str(path)],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)
    if proc.returncode != 0:
        return {"path": str(path), "status": "crash", "error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------- whole process


def wall(cmd: list[str], repeat: int = 1) -> list[float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append(time.perf_counter() - t0)
    return samples


def batch_throughput(k: int, count: int, work: Path) -> dict:
    sys.path.insert(0, str(BENCH))
    from generate import generate

    folder = work / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(count):
        (folder / f"synth_k{k}_s{s}.py").write_text(generate(k, 8, s))
    base = [sys.executable, "-m", "legalog", "check", str(folder), "--no-progress"]
    env_cache = os.environ.get("LEGALOG_NO_CACHE")
    os.environ["LEGALOG_NO_CACHE"] = "1"  # measure the analysis, not a result cache
    try:
        j1 = min(wall(base + ["--jobs", "1"], 2))
        j2 = min(wall(base + ["--jobs", "2"], 2))
    finally:
        if env_cache is None:
            os.environ.pop("LEGALOG_NO_CACHE", None)
    return {"files": count, "k": k, "jobs1_s": j1, "jobs2_s": j2,
            "jobs1_files_per_s": count / j1, "jobs2_files_per_s": count / j2, "speedup": j1 / j2}


# ------------------------------------------------------------------------------- report


def table(rows: list[dict]) -> str:
    head = (f"{'input':44} {'KB':>6} {'status':9} {'total s':>8} " + " ".join(f"{s:>7}" for s in STAGES)
            + f" {'facts':>7} {'MiB':>6} {'x ast':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        name = Path(r["path"]).name[:44]
        if "stages" not in r:
            lines.append(f"{name:44} {'':>6} {r['status']:9} {r.get('error', '')[:60]}")
            continue
        st = " ".join(f"{r['stages'][s]:7.3f}" for s in STAGES)
        ratio = f"{r['ratio_to_ast']:7.1f}" if r.get("ratio_to_ast") else f"{'-':>7}"
        lines.append(f"{name:44} {r['bytes'] / 1024:6.1f} {r['status']:9} {r['total_s']:8.3f} {st} "
                     f"{r.get('facts', 0):7d} {r.get('peak_rss_mib', 0):6.0f} {ratio}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="legalog benchmarks (issue 7)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--ks", type=int, nargs="+", default=[25, 50, 100, 200], help="scaling points (T=8)")
    ap.add_argument("--quick", action="store_true", help="K in (25, 50), a smaller batch, fewer repeats")
    ap.add_argument("--batch-k", type=int, default=10, help="K of each dump in the batch folder")
    ap.add_argument("--batch-n", type=int, default=8, help="dumps in the batch folder")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json", default=str(OUT / "results.json"))
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return 0
    if args.quick:
        args.ks = [k for k in args.ks if k <= 50] or [25]
        args.batch_n = 4

    sys.path.insert(0, str(BENCH))
    from generate import generate

    OUT.mkdir(parents=True, exist_ok=True)
    corpus = sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "graph").glob("*.py"))
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}

    print(f"== corpus ({len(corpus)} dumps from {CORPUS})", flush=True)
    corpus_rows = [run_one(p, args.timeout) for p in corpus]
    print(table(corpus_rows), flush=True)

    print("\n== synthetic (bench/generate.py, T=8)", flush=True)
    synth_rows = []
    with tempfile.TemporaryDirectory(prefix="legalog-bench-") as tmp:
        work = Path(tmp)
        for k in args.ks:
            path = work / f"synth_k{k}_t8.py"
            path.write_text(generate(k, 8, 0))
            row = run_one(path, args.timeout)
            row["k"] = k
            synth_rows.append(row)
            print(table([row]).splitlines()[-1], flush=True)
        print("\n== batch: legalog check --jobs 1 vs --jobs 2", flush=True)
        batch = batch_throughput(args.batch_k, args.batch_n, work)
        print(f"{batch['files']} dumps of K={batch['k']}: --jobs 1 {batch['jobs1_s']:.2f} s, "
              f"--jobs 2 {batch['jobs2_s']:.2f} s, speed-up {batch['speedup']:.2f}x", flush=True)

    print("\n== whole process: python -m legalog check examples/row_shift.py", flush=True)
    startup = wall([sys.executable, "-m", "legalog", "check", "examples/row_shift.py", "--no-progress"], 3 if args.quick else 7)
    startup_s = statistics.median(startup)
    import_only = statistics.median(wall([sys.executable, "-c", "import legalog.pipeline"], 5))
    print(f"median {startup_s:.3f} s (samples {', '.join(f'{s:.3f}' for s in startup)}); "
          f"import of legalog.pipeline alone {import_only:.3f} s")

    ok = [r for r in corpus_rows if r.get("ratio_to_ast")]
    median_ratio = statistics.median(r["ratio_to_ast"] for r in ok) if ok else None
    o_proj = next((r for r in corpus_rows if Path(r["path"]).name == "03_diagnose_o_projection.py"), {})
    by_k = {r["k"]: r.get("total_s") for r in synth_rows}
    k200 = by_k.get(200)
    scaling = (by_k[200] / by_k[50]) if by_k.get(200) and by_k.get(50) else None

    def fmt(value, unit=""):  # noqa: ANN001, ANN202
        return "n/a" if value is None else f"{value:.2f}{unit}"

    targets = [
        ("median analyze / ast.parse over corpus dumps", median_ratio, "<= 10x", median_ratio is not None and median_ratio <= 10),
        ("K=200,T=8 analyze time (s)", k200, "<= 3 s", k200 is not None and k200 <= 3),
        ("time(K=200) / time(K=50)", scaling, "<= 4.5", scaling is not None and scaling <= 4.5),
        ("--jobs 2 / --jobs 1 throughput", batch["speedup"], ">= 1.8x", batch["speedup"] >= 1.8),
        ("import + small check, whole process (s)", startup_s, "<= 0.6 s", startup_s <= 0.6),
        ("parse / ast.parse, 03_diagnose_o_projection.py", o_proj.get("parse_ratio_to_ast"), "<= 3x",
         (o_proj.get("parse_ratio_to_ast") or 99) <= 3),
    ]
    print("\n== targets")
    for name, value, goal, met in targets:
        print(f"{name:50} {fmt(value):>10}   goal {goal:9} {'MET' if met else 'MISSED'}")
    print("\nscaling (T=8): " + ", ".join(f"K={k}: {fmt(v, ' s')} ({next(r['bytes'] for r in synth_rows if r['k'] == k) / 1024:.0f} KB)"
                                        for k, v in by_k.items()))

    results.update(corpus=corpus_rows, synthetic=synth_rows, batch=batch,
                   startup={"median_s": startup_s, "samples_s": startup, "import_s": import_only},
                   targets=[{"name": n, "value": v, "goal": g, "met": m} for n, v, g, m in targets])
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    tmp_json = Path(args.json).with_suffix(".tmp")
    tmp_json.write_text(json.dumps(results, indent=2))
    os.replace(tmp_json, args.json)
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
