"""The benchmark suite (issues 7, 10, 19 and 30): one command, every figure, a table and bench/out/results.json.

    python bench/run.py                          # both engines, every target (about 15 minutes on 2 cores)
    python bench/run.py --engines compiled       # one engine
    python bench/run.py --no-large               # without the 5 MB program and the 3,000 launches
    python bench/run.py --quick                  # K up to 50, fewer repeats, no large programs: a smoke run

Per engine, per input (the real dumps of ../shared/corpus found relative to the repo, small dumps
in bench/dumps, and synthetic programs from bench/generate.py), each in its own subprocess so
peak memory is that input's alone: `legalog.pipeline.analyze` itself, each stage timed as it runs
(`analyze(..., stage=...)`: parse, the parser's checks, frontend versioning, lower, rules,
launches, decide (each pass's decisions, in legalog/passes.py's order), rewrite, verify; then print), after a warm-up on other programs (what a process
pays once), the total, fact counts, peak RSS (ru_maxrss), and the ratio to `ast.parse` of the
same text.  Then: each pass alone on small dumps, scaling over K, the 5 MB program, a 2**31 loop
bound, 3,000 launches, 10,000 renames inside a Graph, batch throughput of `legalog check --jobs 1`
vs `--jobs 2`, and a whole-process `python -m legalog check examples/row_shift.py`, answered from the
result cache and with `--no-cache`.  Every target is printed beside its goal, one column per engine.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

from legalog.passes import PIPELINE
from legalog.pipeline import STAGES as PIPELINE_STAGES

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = BENCH / "out"
DUMPS = BENCH / "dumps"
# The pipeline's stages (legalog/pipeline.py, `analyze(..., stage=...)`, each pass's decisions
# under its own name, in the passes' order), then printing the output.
STAGES = (*PIPELINE_STAGES, "print")
# both passes, in PyPTO's order (legalog/passes.py)
BOTH = tuple(p.name for p in PIPELINE)
# Reading the dump as PyPTO's parser would (and versioning a frontend dump): not either pass's work.
READING = ("parse", "checks", "version")
WARM_UP = ("examples/row_shift.py", "examples/spmd_counts.py")


# ------------------------------------------------------------------------------- one input


def measure_one(
    path: str,
    engine: str,
    runtime: str = "host_build_graph",
    passes: tuple[str, ...] = BOTH,
    repeat: int = 1,
) -> dict:
    """Runs in a fresh subprocess: one input through `legalog.pipeline.analyze` itself, each stage
    timed as analyze runs it (the median of `repeat` runs)."""
    sys.path.insert(0, str(REPO))
    t_import = time.perf_counter()
    from legalog.pipeline import analyze

    # What a process pays once (importing, reading the rule files, Z3's context): on other programs.
    for warm in WARM_UP:
        analyze((REPO / warm).read_text(encoding="utf-8"), warm, runtime, engine)
    import_s = time.perf_counter() - t_import

    text = Path(path).read_text(encoding="utf-8")
    ast_s = statistics.median(_timed(lambda: ast.parse(text), 5 if len(text) < 100_000 else 3))
    runs = [_timed_analysis(analyze, text, path, runtime, engine, passes) for _ in range(repeat)]
    total, times, cpu_s, cpu_times, analysis = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    beyond = sum(v for k, v in times.items() if k not in READING)
    beyond_cpu = statistics.median(
        sum(v for k, v in run[3].items() if k not in READING) for run in runs
    )  # CPU time, the median of the runs: what issue 30's small-dump targets count
    facts = analysis.lowering.facts.counts() if analysis.lowering is not None else {}
    return {
        "path": path,
        "engine": engine,
        "passes": list(passes),
        "bytes": len(text.encode()),
        "ast_parse_s": ast_s,
        "import_s": import_s,
        "status": analysis.status,
        "codes": sorted({d.code for d in analysis.diagnostics}),
        "stages": times,
        "total_s": total,
        "total_cpu_s": cpu_s,
        "beyond_reading_s": beyond,
        "beyond_reading_cpu_s": beyond_cpu,
        "stages_cpu": cpu_times,
        "ratio_to_ast": total / ast_s if ast_s else None,
        "parse_ratio_to_ast": times["parse"] / ast_s if ast_s else None,
        "facts": sum(facts.values()),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _timed_analysis(
    analyze, text: str, path: str, runtime: str, engine: str, passes: tuple[str, ...]
) -> tuple:
    """(total seconds, seconds per stage, CPU seconds, CPU seconds per stage, the Analysis) of one
    `analyze`, then printing."""
    times = dict.fromkeys(STAGES, 0.0)
    cpu = dict.fromkeys(STAGES, 0.0)  # process CPU time: less sensitive than wall time to a loaded machine

    def stage(name, run):
        t0, c0 = time.perf_counter(), time.process_time()
        value = run()
        times[name] += time.perf_counter() - t0
        cpu[name] += time.process_time() - c0
        return value

    analysis = analyze(text, path, runtime, engine, passes=passes, stage=stage)
    stage("print", analysis.legalized_text)
    return sum(times.values()), times, sum(cpu.values()), cpu, analysis


def _timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def run_one(path: Path, engine: str, timeout: float, passes: tuple[str, ...] = BOTH, repeat: int = 1) -> dict:
    proc = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--one",
            str(path),
            "--engine",
            engine,
            "--passes",
            *passes,
            "--repeat",
            str(repeat),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )
    if proc.returncode != 0:
        return {"path": str(path), "engine": engine, "status": "crash", "error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------- whole process


def wall(cmd: list[str], repeat: int = 1) -> list[float]:
    return [w for w, _ in wall_and_cpu(cmd, repeat)]


def wall_and_cpu(cmd: list[str], repeat: int = 1) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of each run of `cmd`; CPU is the child's user + system time."""
    samples = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        samples.append((time.perf_counter() - t0, cpu))
    return samples


@contextlib.contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    """The benchmark's subprocesses run with these variables set (None: unset), then as before."""
    with mock.patch.dict(os.environ):  # restores the whole environment on the way out
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield


def _bytecode(work: Path, cached: bool) -> dict[str, str | None]:
    """Python's bytecode cache as an installed package has it (`pip install` compiles every
    module; here into this run's own folder, filled by the first run), or none at all, which
    recompiles legalog's sources in every process (this machine's environment sets
    PYTHONDONTWRITEBYTECODE=1, so an editable checkout pays that here)."""
    if cached:
        return {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    return {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": None}


def whole_process(engine: str, work: Path, repeat: int) -> dict[str, dict]:
    """`python -m legalog check examples/row_shift.py` as a user runs it twice: answered from the
    result cache, and with `--no-cache` (analysed afresh; the rule programs kept from the first
    run, legalog/rules/disk_cache.py); each with the bytecode cache an installed package has (the
    target's figure) and without one.  One run first fills both caches, in folders of this run's own."""
    cmd = [
        sys.executable,
        "-m",
        "legalog",
        "check",
        "examples/row_shift.py",
        "--no-progress",
        "--engine",
        engine,
    ]
    figures = {}
    for cached, suffix in ((True, ""), (False, ", no bytecode")):
        with _environment(
            LEGALOG_CACHE_DIR=str(work / "cache"), LEGALOG_NO_CACHE=None, **_bytecode(work, cached)
        ):
            wall_and_cpu(cmd)
            for kind, extra in (("cached", []), ("--no-cache", ["--no-cache"])):
                runs = wall_and_cpu(cmd + extra, repeat)
                figures[kind + suffix] = {
                    "median_s": statistics.median(w for w, _ in runs),
                    "median_cpu_s": statistics.median(c for _, c in runs),
                    "samples_s": [w for w, _ in runs],
                    "samples_cpu_s": [c for _, c in runs],
                }
    return figures


def batch_throughput(k: int, count: int, work: Path, engine: str) -> dict:
    """`legalog check FOLDER` of `count` generated dumps, `--jobs 1` against `--jobs 2`, with the
    bytecode cache an installed package has, analysed afresh (no result cache).  The folder is
    large enough that the one-time start-up of a process (about 0.2 s: the interpreter, imports,
    the kept rule programs) is a small share of the serial run, as in CI over thousands of dumps."""
    sys.path.insert(0, str(BENCH))
    from generate import generate

    folder = work / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(count):
        (folder / f"synth_k{k}_s{s}.py").write_text(generate(k, 8, s))
    base = [sys.executable, "-m", "legalog", "check", str(folder), "--no-progress", "--engine", engine]
    with _environment(LEGALOG_NO_CACHE="1", **_bytecode(work, True)):  # the analysis, not a result cache
        wall(base + ["--jobs", "1"])  # fills the bytecode cache
        j1 = min(wall(base + ["--jobs", "1"], 2))
        j2 = min(wall(base + ["--jobs", "2"], 2))
    return {
        "files": count,
        "k": k,
        "jobs1_s": j1,
        "jobs2_s": j2,
        "jobs1_files_per_s": count / j1,
        "jobs2_files_per_s": count / j2,
        "speedup": j1 / j2,
    }


# ------------------------------------------------------------------------------- report


def table(rows: list[dict]) -> str:
    head = (
        f"{'input':44} {'KB':>6} {'status':9} {'total s':>8} "
        + " ".join(f"{s:>7}" for s in STAGES)
        + f" {'facts':>7} {'MiB':>6} {'x ast':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        name = Path(r["path"]).name[:44]
        if "stages" not in r:
            lines.append(f"{name:44} {'':>6} {r['status']:9} {r.get('error', '')[:60]}")
            continue
        st = " ".join(f"{r['stages'][s]:7.3f}" for s in STAGES)
        ratio = f"{r['ratio_to_ast']:7.1f}" if r.get("ratio_to_ast") else f"{'-':>7}"
        lines.append(
            f"{name:44} {r['bytes'] / 1024:6.1f} {r['status']:9} {r['total_s']:8.3f} {st} "
            f"{r.get('facts', 0):7d} {r.get('peak_rss_mib', 0):6.0f} {ratio}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="legalog benchmarks (issues 7 and 10)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="compiled", help=argparse.SUPPRESS)
    ap.add_argument("--passes", nargs="+", default=list(BOTH), help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--no-large", action="store_true", help="skip the 5 MB program and the 3,000 launches")
    ap.add_argument(
        "--engines", nargs="+", default=["compiled", "pydatalog"], help="engines to measure, side by side"
    )
    ap.add_argument("--ks", type=int, nargs="+", default=[25, 50, 100, 200], help="scaling points (T=8)")
    ap.add_argument("--quick", action="store_true", help="K in (25, 50), a smaller batch, fewer repeats")
    ap.add_argument("--batch-k", type=int, default=10, help="K of each dump in the batch folder")
    ap.add_argument("--batch-n", type=int, default=40, help="dumps in the batch folder")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json", default=str(OUT / "results.json"))
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one, args.engine, passes=tuple(args.passes), repeat=args.repeat)))
        return 0
    if args.quick:
        args.ks = [k for k in args.ks if k <= 50] or [25]
        args.batch_n = 4

    sys.path.insert(0, str(BENCH))
    from generate import generate

    OUT.mkdir(parents=True, exist_ok=True)
    corpus = sorted(CORPUS.glob("*.py")) + sorted((CORPUS / "graph").glob("*.py"))
    results: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "load_average_at_start": os.getloadavg(),
        },
        "engines": {},
    }
    print(
        f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="legalog-bench-") as tmp:
        work = Path(tmp)
        synthetic = []
        for k in args.ks:
            synthetic.append(work / f"synth_k{k}_t8.py")
            synthetic[-1].write_text(generate(k, 8, 0))
        large = {} if args.no_large or args.quick else large_inputs(work, generate)
        for engine in args.engines:
            results["engines"][engine] = measure_engine(engine, corpus, synthetic, args, work, large)
    results["machine"]["load_average_at_end"] = os.getloadavg()
    print(
        f"\nload average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (wall times inflate under load;"
        " the CPU-time rows less so)"
    )
    targets = issue_targets(results["engines"])
    print("\n== targets (issues 30 and 22; ratios measured in this run)")
    print(f"{'target':56} {'goal':>9} " + " ".join(f"{e:>18}" for e in args.engines))
    for name, goal, values in targets:
        cells = " ".join(f"{_cell(v, m):>18}" for v, m in values)
        print(f"{name:56} {goal:>9} {cells}")
    results["targets"] = [
        {
            "name": n,
            "goal": g,
            "by_engine": {e: {"value": v, "met": m} for e, (v, m) in zip(args.engines, values, strict=True)},
        }
        for n, g, values in targets
    ]
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    tmp_json = Path(args.json).with_suffix(".tmp")
    tmp_json.write_text(json.dumps(results, indent=2))
    os.replace(tmp_json, args.json)
    print(f"\nwrote {args.json}")
    return 0


def large_inputs(work: Path, generate: Callable[[int, int, int], str]) -> dict[str, Path]:
    """The 5 MB program and a quarter of it; a Graph loop bound of 2**31 and the same program with
    a small one; 3,000 launches and a quarter of them (../shared/fuzz/make_many_launches.py's
    program: a09's guarded launch repeated); a chain of 10,000 scalar renames inside a Graph and a
    quarter of it (tests/robust/chains.py, issue 22)."""
    sys.path.insert(0, str(REPO))
    from tests.robust.chains import graph_chain

    out: dict[str, Path] = {}
    for name, k in (("k1650", 1650), ("k412", 412)):
        out[name] = work / f"synth_{name}_t8.py"
        out[name].write_text(generate(k, 8, 0))
    narrow = generate(100, 8, 0)
    small_loop = "pl.range(2, init_values"
    out["bound_small"] = work / "bound_small.py"
    out["bound_small"].write_text(narrow)
    out["bound_2_31"] = work / "bound_2_31.py"  # one Graph's inner loop runs 2**31 times
    out["bound_2_31"].write_text(narrow.replace(small_loop, f"pl.range({2**31}, init_values", 1))
    seed = CORPUS / "graph" / "a09_orch_spmd_counts.spmd_input.py"
    if seed.exists():
        lines = seed.read_text(encoding="utf-8").splitlines(keepends=True)
        for n in (750, 3000):
            out[f"launches_{n}"] = work / f"launches_{n}.py"
            out[f"launches_{n}"].write_text("".join(lines[:23] + [lines[22]] * n + lines[23:]))
    for n in (2500, 10_000):
        out[f"graph_aliases_{n}"] = work / f"graph_aliases_{n}.py"
        out[f"graph_aliases_{n}"].write_text(graph_chain("renames", n))
    return out


def measure_engine(
    engine: str,
    corpus: list[Path],
    synthetic: list[Path],
    args: argparse.Namespace,
    work: Path,
    large: dict[str, Path],
) -> dict:
    """Every figure for one engine: corpus and synthetic inputs stage by stage, each pass alone on
    small dumps, the large programs, batch, whole process."""
    print(f"\n######## engine: {engine}", flush=True)
    print(f"== corpus ({len(corpus)} dumps from {CORPUS})", flush=True)
    corpus_rows = [run_one(p, engine, args.timeout) for p in corpus]
    print(table(corpus_rows), flush=True)
    print(
        "\n== one pass on a small dump (median of 7 runs; `beyond` = the stages after reading the dump)",
        flush=True,
    )
    small = {}
    for key, path, passes in (
        ("nothing_graph", DUMPS / "nothing_to_decide.py", ("graph",)),
        ("nothing_spmd", DUMPS / "nothing_to_decide.py", ("spmd",)),
        ("one_graph", CORPUS / "graph" / "a01_row_shift.frontend.py", ("graph",)),
        ("one_launch", DUMPS / "one_launch.py", ("spmd",)),
        # issue 30: a check of a small dump, both passes, as `legalog check` runs it
        ("a01_frontend", CORPUS / "graph" / "a01_row_shift.frontend.py", ("graph", "spmd")),
        ("a01_graph_input", CORPUS / "graph" / "a01_row_shift.graph_input.py", ("graph", "spmd")),
        ("a09_frontend", CORPUS / "graph" / "a09_orch_spmd_counts.frontend.py", ("graph", "spmd")),
        ("a09_spmd_input", CORPUS / "graph" / "a09_orch_spmd_counts.spmd_input.py", ("graph", "spmd")),
    ):
        small[key] = row = run_one(path, engine, args.timeout, passes, repeat=7)
        stages = row.get("stages", {})
        # the pass proper, then what checks and writes its result: its verifier, printing the output
        verifier, printing = stages.get("verify", 0.0), stages.get("print", 0.0)
        proper = row.get("beyond_reading_s", 0) - verifier - printing
        print(
            f"{key:14} {Path(path).name:32} {'+'.join(passes):6} {row.get('status', ''):9} "
            f"beyond reading {row.get('beyond_reading_s', 0) * 1e3:6.2f} ms, CPU "
            f"{row.get('beyond_reading_cpu_s', 0) * 1e3:6.2f} ms (the pass {proper * 1e3:.2f}, "
            f"its verifier {verifier * 1e3:.2f}, printing {printing * 1e3:.2f}), total {row.get('total_s', 0) * 1e3:6.2f} ms",
            flush=True,
        )
    print("\n== synthetic (bench/generate.py, T=8)", flush=True)
    synth_rows = []
    for k, path in zip(args.ks, synthetic, strict=True):
        row = run_one(path, engine, args.timeout)
        row["k"] = k
        synth_rows.append(row)
        print(table([row]).splitlines()[-1], flush=True)
    large_rows = {}
    if large:
        print("\n== large programs", flush=True)
        for key, path in large.items():
            large_rows[key] = row = run_one(path, engine, args.timeout)
            print(f"{key:12} " + table([row]).splitlines()[-1], flush=True)
    print("\n== batch: legalog check --jobs 1 vs --jobs 2", flush=True)
    batch = batch_throughput(args.batch_k, args.batch_n, work, engine)
    print(
        f"{batch['files']} dumps of K={batch['k']}: --jobs 1 {batch['jobs1_s']:.2f} s, "
        f"--jobs 2 {batch['jobs2_s']:.2f} s, speed-up {batch['speedup']:.2f}x",
        flush=True,
    )
    print("\n== whole process: python -m legalog check examples/row_shift.py", flush=True)
    startup = whole_process(engine, work, 3 if args.quick else 7)
    for kind, row in startup.items():
        print(
            f"{kind:24} median {row['median_s']:.3f} s wall, {row['median_cpu_s']:.3f} s CPU "
            f"(samples {', '.join(f'{s:.3f}' for s in row['samples_s'])})",
            flush=True,
        )
    return {
        "corpus": corpus_rows,
        "small": small,
        "synthetic": synth_rows,
        "large": large_rows,
        "batch": batch,
        "startup": startup,
    }


def issue_targets(engines: dict[str, dict]) -> list[tuple[str, str, list[tuple[float | None, bool]]]]:
    """(target, goal, [(value, met) per engine]) for every target of issue 30 (and issue 22's).
    Issue 30's first target, the engine alone against clingo, is bench/engines.py's (clingo has
    left since; docs/benchmarks.md, "The compiled engine")."""

    def per_engine(fn: Callable[[dict], tuple[float | None, bool]]) -> list[tuple[float | None, bool]]:
        return [fn(figures) for figures in engines.values()]

    def corpus_ratios(f: dict) -> list[float]:
        return [r["ratio_to_ast"] for r in f["corpus"] if r.get("ratio_to_ast")]

    def corpus_median(f: dict) -> tuple[float | None, bool]:
        value = statistics.median(corpus_ratios(f)) if corpus_ratios(f) else None
        return value, value is not None and value <= 10

    def corpus_worst(f: dict) -> tuple[float | None, bool]:
        value = max(corpus_ratios(f)) if corpus_ratios(f) else None
        return value, value is not None and value <= 30

    def small_ms(key: str, goal_ms: float, figure: str) -> Callable[[dict], tuple[float | None, bool]]:
        def value(f: dict) -> tuple[float | None, bool]:
            row = f["small"].get(key, {})
            ms = row[figure] * 1e3 if figure in row else None
            return ms, ms is not None and ms <= goal_ms

        return value

    def large(key: str, figure: str, goal_s: float) -> Callable[[dict], tuple[float | None, bool]]:
        def value(f: dict) -> tuple[float | None, bool]:
            seconds = f["large"].get(key, {}).get(figure)
            return seconds, seconds is not None and seconds <= goal_s

        return value

    def large_ratio(big: str, small: str, goal: float) -> Callable[[dict], tuple[float | None, bool]]:
        def figure(f: dict) -> tuple[float | None, bool]:
            a, b = f["large"].get(big, {}).get("total_cpu_s"), f["large"].get(small, {}).get("total_cpu_s")
            value = a / b if a and b else None
            return value, value is not None and value <= goal

        return figure

    def by_k(f: dict) -> dict[int, dict]:
        return {r["k"]: r for r in f["synthetic"] if "total_s" in r}

    def k200(figure: str) -> Callable[[dict], tuple[float | None, bool]]:
        def value(f: dict) -> tuple[float | None, bool]:
            seconds = by_k(f).get(200, {}).get(figure)
            return seconds, seconds is not None and seconds <= 3

        return value

    def rss(f: dict) -> tuple[float | None, bool]:
        value = by_k(f).get(200, {}).get("peak_rss_mib")
        return value, value is not None and value <= 250

    def batch(f: dict) -> tuple[float | None, bool]:
        return f["batch"]["speedup"], f["batch"]["speedup"] >= 1.8

    def startup(kind: str, figure: str) -> Callable[[dict], tuple[float | None, bool]]:
        def value(f: dict) -> tuple[float | None, bool]:
            seconds = f["startup"][kind][figure]
            return seconds, seconds <= 0.25

        return value

    small = [
        (
            f"3. {name}, both passes: CPU beyond reading (ms)",
            "<= 5 ms",
            per_engine(small_ms(key, 5, "beyond_reading_cpu_s")),
        )
        for key, name in (
            ("a01_frontend", "a01 frontend (one Graph)"),
            ("a01_graph_input", "a01 graph_input"),
            ("a09_frontend", "a09 frontend (SPMD launches)"),
            ("a09_spmd_input", "a09 spmd_input"),
        )
    ]
    return [
        ("2. median analyze / ast.parse over the corpus dumps", "<= 10x", per_engine(corpus_median)),
        ("2. worst corpus dump: analyze / ast.parse", "<= 30x", per_engine(corpus_worst)),
        *small,
        ("4. the 5 MB program, K=1650: CPU (s)", "<= 10 s", per_engine(large("k1650", "total_cpu_s", 10))),
        ("   the same, wall (s)", "<= 10 s", per_engine(large("k1650", "total_s", 10))),
        ("4. CPU(K=1650) / CPU(K=412)", "<= 4.5", per_engine(large_ratio("k1650", "k412", 4.5))),
        ("5. K=200,T=8 synthetic analyze (s)", "<= 3 s", per_engine(k200("total_s"))),
        ("   the same in CPU time (s)", "<= 3 s", per_engine(k200("total_cpu_s"))),
        ("5. peak RSS, K=200 (MiB)", "<= 250", per_engine(rss)),
        ("5. check --jobs 2 / --jobs 1 throughput", ">= 1.8x", per_engine(batch)),
        (
            "5. nothing to decide: graph pass beyond reading (ms)",
            "<= 1 ms",
            per_engine(small_ms("nothing_graph", 1, "beyond_reading_s")),
        ),
        (
            "5. nothing to decide: spmd pass beyond reading (ms)",
            "<= 1 ms",
            per_engine(small_ms("nothing_spmd", 1, "beyond_reading_s")),
        ),
        (
            "5. whole-process check of row_shift.py, cached (s)",
            "<= 0.25 s",
            per_engine(startup("cached", "median_s")),
        ),
        ("   the same in CPU time (s)", "<= 0.25 s", per_engine(startup("cached", "median_cpu_s"))),
        ("5. the same with --no-cache (s)", "<= 0.25 s", per_engine(startup("--no-cache", "median_s"))),
        ("   the same in CPU time (s)", "<= 0.25 s", per_engine(startup("--no-cache", "median_cpu_s"))),
        (
            "   the same without a bytecode cache, CPU (s)",
            "<= 0.25 s",
            per_engine(startup("--no-cache, no bytecode", "median_cpu_s")),
        ),
        (
            "22.4 a Graph loop bound of 2**31 / a small bound",
            "<= 2x",
            per_engine(large_ratio("bound_2_31", "bound_small", 2)),
        ),
        ("22.4 3,000 launches (s)", "<= 10 s", per_engine(large("launches_3000", "total_s", 10))),
        (
            "22.4 time(3,000 launches) / time(750)",
            "<= 4.5",
            per_engine(large_ratio("launches_3000", "launches_750", 4.5)),
        ),
        (
            "22 10,000 renames inside a Graph (s)",
            "<= 10 s",
            per_engine(large("graph_aliases_10000", "total_s", 10)),
        ),
        (
            "22 time(10,000 renames) / time(2,500)",
            "<= 4.5",
            per_engine(large_ratio("graph_aliases_10000", "graph_aliases_2500", 4.5)),
        ),
    ]


def _cell(value: float | None, met: bool) -> str:
    return "n/a" if value is None else f"{value:.2f} {'MET' if met else 'MISSED'}"


if __name__ == "__main__":
    raise SystemExit(main())
