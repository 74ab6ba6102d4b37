"""The benchmark suite (issues 7 and 10): one command, every figure, a table and bench/out/results.json.

    python bench/run.py                          # both engines, every target (about 10 minutes on 2 cores)
    python bench/run.py --engines clingo         # one engine
    python bench/run.py --quick                  # K up to 50, fewer repeats: a smoke run

Per engine, per input (the real dumps of ../shared/corpus found relative to the repo, and synthetic
programs from bench/generate.py), each in its own subprocess so peak memory is that input's alone:
stage times (parse, extract, rules, decide, Z3, rewrite, print, verify) measured by calling the
stage functions directly in the order `legalog.pipeline.analyze` calls them, the total, fact
counts, peak RSS (ru_maxrss), and the ratio to `ast.parse` of the same text.  Then: scaling over
K, batch throughput of `legalog check --jobs 1` vs `--jobs 2`, and a whole-process
`python -m legalog check examples/row_shift.py`.  Every target is printed beside its goal, one
column per engine.
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
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = BENCH / "out"
STAGES = ("parse", "extract", "rules", "decide", "z3", "rewrite", "print", "verify")


# ------------------------------------------------------------------------------- one input


def measure_one(path: str, engine: str, runtime: str = "host_build_graph") -> dict:
    """Runs in a fresh subprocess: one input, stage by stage, as `analyze` does it."""
    sys.path.insert(0, str(REPO))
    t_import = time.perf_counter()
    from legalog.analyzer.graph import graph_decisions, graph_diagnostics
    from legalog.analyzer.spmd import decide_launches
    from legalog.analyzer.verifier import verify
    from legalog.extractor.lower import lower
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse
    from legalog.ir.printer import print_program
    from legalog.pipeline import pass_rules
    from legalog.rewriter.graph_boundary import legalize_graphs
    from legalog.rewriter.spmd_guard import guard_launches
    from legalog.rules.engine import RuleProgram, evaluate
    from legalog.rules.programs import VERIFIER_RULES

    # rules are read (and prepared for the engine) once per process: not part of a program's analysis
    for rules in (pass_rules(), RuleProgram.load(VERIFIER_RULES)):
        evaluate(rules, {}, engine)
    import_s = time.perf_counter() - t_import

    text = Path(path).read_text(encoding="utf-8")
    ast_s = statistics.median(_timed(lambda: ast.parse(text), 5 if len(text) < 100_000 else 3))
    times = dict.fromkeys(STAGES, 0.0)
    result: dict = {"path": path, "engine": engine, "bytes": len(text.encode()), "ast_parse_s": ast_s, "import_s": import_s}

    def stage(name, fn, *args):
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
    derived = stage("rules", evaluate, pass_rules(), facts, engine)
    graphs = stage("decide", graph_decisions, program, lowering, derived)
    launches = stage("z3", decide_launches, program, lowering, derived)
    diagnostics = stage("decide", graph_diagnostics, program, lowering, derived) + list(launches.diagnostics)
    status = "rejected" if any(d.severity == "error" for d in diagnostics) else "legal"
    if status != "rejected":
        legalized = stage("rewrite", lambda: legalize_graphs(guard_launches(program, launches), graphs))
        if legalized != program:
            stage("print", print_program, legalized)
            diagnostics += stage("verify", verify, legalized, runtime, engine)
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
        peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        derived_rows=sum(len(derived[name]) for name in derived),  # after the RSS: reads every relation
    )
    return result


def _timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def run_one(path: Path, engine: str, timeout: float) -> dict:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", str(path), "--engine", engine],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)
    if proc.returncode != 0:
        return {"path": str(path), "engine": engine, "status": "crash", "error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------- whole process


def wall(cmd: list[str], repeat: int = 1) -> list[float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append(time.perf_counter() - t0)
    return samples


def batch_throughput(k: int, count: int, work: Path, engine: str) -> dict:
    sys.path.insert(0, str(BENCH))
    from generate import generate

    folder = work / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(count):
        (folder / f"synth_k{k}_s{s}.py").write_text(generate(k, 8, s))
    base = [sys.executable, "-m", "legalog", "check", str(folder), "--no-progress", "--engine", engine]
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
    ap = argparse.ArgumentParser(description="legalog benchmarks (issues 7 and 10)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="clingo", help=argparse.SUPPRESS)
    ap.add_argument("--engines", nargs="+", default=["clingo", "pydatalog"], help="engines to measure, side by side")
    ap.add_argument("--ks", type=int, nargs="+", default=[25, 50, 100, 200], help="scaling points (T=8)")
    ap.add_argument("--quick", action="store_true", help="K in (25, 50), a smaller batch, fewer repeats")
    ap.add_argument("--batch-k", type=int, default=10, help="K of each dump in the batch folder")
    ap.add_argument("--batch-n", type=int, default=8, help="dumps in the batch folder")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json", default=str(OUT / "results.json"))
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one, args.engine)))
        return 0
    if args.quick:
        args.ks = [k for k in args.ks if k <= 50] or [25]
        args.batch_n = 4

    sys.path.insert(0, str(BENCH))
    from generate import generate

    OUT.mkdir(parents=True, exist_ok=True)
    corpus = sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "graph").glob("*.py"))
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "engines": {}}
    with tempfile.TemporaryDirectory(prefix="legalog-bench-") as tmp:
        work = Path(tmp)
        synthetic = []
        for k in args.ks:
            synthetic.append(work / f"synth_k{k}_t8.py")
            synthetic[-1].write_text(generate(k, 8, 0))
        for engine in args.engines:
            results["engines"][engine] = measure_engine(engine, corpus, synthetic, args, work)
    targets = issue_targets(results["engines"])
    print("\n== targets (issue 10 §5; ratios measured in this run)")
    print(f"{'target':52} {'goal':>9} " + " ".join(f"{e:>18}" for e in args.engines))
    for name, goal, values in targets:
        cells = " ".join(f"{_cell(v, m):>18}" for v, m in values)
        print(f"{name:52} {goal:>9} {cells}")
    results["targets"] = [{"name": n, "goal": g, "by_engine": {e: {"value": v, "met": m} for e, (v, m) in zip(args.engines, values, strict=True)}}
                          for n, g, values in targets]
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    tmp_json = Path(args.json).with_suffix(".tmp")
    tmp_json.write_text(json.dumps(results, indent=2))
    os.replace(tmp_json, args.json)
    print(f"\nwrote {args.json}")
    return 0


def measure_engine(engine: str, corpus: list[Path], synthetic: list[Path], args: argparse.Namespace, work: Path) -> dict:
    """Every figure for one engine: corpus and synthetic inputs stage by stage, batch, whole process."""
    print(f"\n######## engine: {engine}", flush=True)
    print(f"== corpus ({len(corpus)} dumps from {CORPUS})", flush=True)
    corpus_rows = [run_one(p, engine, args.timeout) for p in corpus]
    print(table(corpus_rows), flush=True)
    print("\n== synthetic (bench/generate.py, T=8)", flush=True)
    synth_rows = []
    for k, path in zip(args.ks, synthetic, strict=True):
        row = run_one(path, engine, args.timeout)
        row["k"] = k
        synth_rows.append(row)
        print(table([row]).splitlines()[-1], flush=True)
    print("\n== batch: legalog check --jobs 1 vs --jobs 2", flush=True)
    batch = batch_throughput(args.batch_k, args.batch_n, work, engine)
    print(f"{batch['files']} dumps of K={batch['k']}: --jobs 1 {batch['jobs1_s']:.2f} s, "
          f"--jobs 2 {batch['jobs2_s']:.2f} s, speed-up {batch['speedup']:.2f}x", flush=True)
    print("\n== whole process: python -m legalog check examples/row_shift.py", flush=True)
    startup = wall([sys.executable, "-m", "legalog", "check", "examples/row_shift.py", "--no-progress", "--engine", engine],
                   3 if args.quick else 7)
    startup_s = statistics.median(startup)
    print(f"median {startup_s:.3f} s (samples {', '.join(f'{s:.3f}' for s in startup)})", flush=True)
    return {"corpus": corpus_rows, "synthetic": synth_rows, "batch": batch,
            "startup": {"median_s": startup_s, "samples_s": startup}}


def issue_targets(engines: dict[str, dict]) -> list[tuple[str, str, list[tuple[float | None, bool]]]]:
    """(target, goal, [(value, met) per engine]) for every target of issue 10 §5."""

    def per_engine(fn: Callable[[dict], tuple[float | None, bool]]) -> list[tuple[float | None, bool]]:
        return [fn(figures) for figures in engines.values()]

    def corpus_median(f: dict) -> tuple[float | None, bool]:
        ratios = [r["ratio_to_ast"] for r in f["corpus"] if r.get("ratio_to_ast")]
        value = statistics.median(ratios) if ratios else None
        return value, value is not None and value <= 10

    def corpus_largest(f: dict) -> tuple[float | None, bool]:
        ok = [r for r in f["corpus"] if r.get("ratio_to_ast")]
        value = max(ok, key=lambda r: r["bytes"])["ratio_to_ast"] if ok else None
        return value, value is not None and value <= 10

    def by_k(f: dict) -> dict[int, dict]:
        return {r["k"]: r for r in f["synthetic"] if "total_s" in r}

    def k200(f: dict) -> tuple[float | None, bool]:
        value = by_k(f).get(200, {}).get("total_s")
        return value, value is not None and value <= 3

    def scaling(f: dict) -> tuple[float | None, bool]:
        rows = by_k(f)
        value = rows[200]["total_s"] / rows[50]["total_s"] if 200 in rows and 50 in rows else None
        return value, value is not None and value <= 4.5

    def rss(f: dict) -> tuple[float | None, bool]:
        value = by_k(f).get(200, {}).get("peak_rss_mib")
        return value, value is not None and value <= 250

    def batch(f: dict) -> tuple[float | None, bool]:
        return f["batch"]["speedup"], f["batch"]["speedup"] >= 1.8

    def startup(f: dict) -> tuple[float | None, bool]:
        return f["startup"]["median_s"], f["startup"]["median_s"] <= 0.4

    return [
        ("median analyze / ast.parse over the corpus dumps", "<= 10x", per_engine(corpus_median)),
        ("largest corpus dump: analyze / ast.parse", "<= 10x", per_engine(corpus_largest)),
        ("K=200,T=8 synthetic analyze (s)", "<= 3 s", per_engine(k200)),
        ("time(K=200) / time(K=50)", "<= 4.5", per_engine(scaling)),
        ("peak RSS, K=200 (MiB)", "<= 250", per_engine(rss)),
        ("check --jobs 2 / --jobs 1 throughput", ">= 1.8x", per_engine(batch)),
        ("whole-process check of examples/row_shift.py (s)", "<= 0.4 s", per_engine(startup)),
    ]


def _cell(value: float | None, met: bool) -> str:
    return "n/a" if value is None else f"{value:.2f} {'MET' if met else 'MISSED'}"


if __name__ == "__main__":
    raise SystemExit(main())
