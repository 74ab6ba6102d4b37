"""Batch scale benchmarks (issue 14): throughput, Dask overhead, shard-and-merge, peak RSS.

    python bench/scale.py                       # everything, as the README reports it
    python bench/scale.py --files 200 --rss 200 400 --skip-dask    # a smoke run
    python bench/scale.py --only rss --rss 1000 5000

The batch is `--files` synthetic dumps from bench/generate.py (K=1 Graph, T=1 tile, seeds
0..n-1: the smallest Graph-heavy program, about 10 KB; deterministic, written once under
bench/out/scale/ and reused).  Every figure is one whole `legalog check` process, result cache
off, measured from outside: wall seconds, files per second, CPU seconds of the process and of its
workers (user + sys, from getrusage: less sensitive to other load on the machine than wall
time), and peak RSS of the main process and of the largest worker.  Sections:

* throughput: `--jobs 1`, `--jobs 2`, and `--executor dask` on a LocalCluster of 2 worker
  processes with 1 thread each (its start-up timed apart);
* dask overhead: the same executor with a no-op analysis (ships each dump, returns an entry), so
  the per-file cost of Dask itself is measured without the analysis;
* shard: `--shard 1/2` and `--shard 2/2` run at once with `--jobs 1` (two CI machines of one core
  each), then `legalog merge`; compared with the `--jobs 2` run, and checked byte-identical;
* rss: `--jobs 2` over each batch size in `--rss` (the `--jobs 2` run above counts for its own
  size), and `--jobs 1` over each size in `--replay` with every analysis replayed from one real
  one (the report entries are real, the analyses' CPU is not spent): the main process's peak RSS
  must stay flat, growing only by the report's entries.

Results go to bench/out/scale.json and a table on stdout.  The machine's load average is recorded
beside the figures: on a shared machine, compare CPU seconds per file rather than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"

# Runs `legalog` in this interpreter and reports its own and its children's rusage to $BENCH_RUSAGE.
_WRAPPER = """
import json, os, resource, sys
from legalog.cli import main
code = main(sys.argv[1:])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(os.environ["BENCH_RUSAGE"], "w") as out:
    json.dump({"rc": code, "self_rss_kib": me.ru_maxrss, "children_rss_kib": kids.ru_maxrss,
               "self_cpu_s": me.ru_utime + me.ru_stime, "children_cpu_s": kids.ru_utime + kids.ru_stime}, out)
sys.exit(code)
"""

# The same, with every file's analysis replayed from one real analysis (argv[1]) at the file's
# path: what the main process holds for N report entries, without N analyses' CPU.
_REPLAY = (
    """
import copy
import dataclasses
import sys
from legalog.surfaces import batch
from legalog.surfaces.dumps import Target
template = batch.analyse_target(Target(sys.argv[1]))
batch.analyse_job = lambda job: dataclasses.replace(copy.deepcopy(template), path=job.target.path)
sys.argv[1:] = sys.argv[2:]
"""
    + _WRAPPER
)


def make_batch(count: int) -> Path:
    """`count` synthetic dumps (seeds 0..count-1), generated once and reused."""
    sys.path.insert(0, str(BENCH))
    from generate import generate

    folder = OUT / "scale" / f"k1_t1_n{count}"
    if len(list(folder.glob("*.py"))) != count:
        folder.mkdir(parents=True, exist_ok=True)
        for seed in range(count):
            (folder / f"synth_{seed:05}.py").write_text(generate(1, 1, seed))
    return folder


def legalog(args: list[str], stdout: Path | None = None, wrapper: str = _WRAPPER) -> dict:
    """One `legalog` process: wall time, exit code, CPU and peak RSS (MiB)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as usage:
        env = {**os.environ, "PYTHONPATH": str(REPO), "BENCH_RUSAGE": usage.name, "LEGALOG_NO_CACHE": "1"}
        sink = open(stdout, "w") if stdout else subprocess.DEVNULL  # noqa: SIM115 - closed below
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", wrapper, *args], cwd=REPO, env=env, stdout=sink, stderr=subprocess.DEVNULL
        )
        proc.wait()
        wall = time.perf_counter() - t0
        if stdout:
            sink.close()  # type: ignore[union-attr]
        data = json.loads(Path(usage.name).read_text() or "{}")
    return {
        "wall_s": wall,
        "rc": data.get("rc"),
        "cpu_s": data.get("self_cpu_s", 0) + data.get("children_cpu_s", 0),
        "main_rss_mib": data.get("self_rss_kib", 0) / 1024,
        "worker_rss_mib": data.get("children_rss_kib", 0) / 1024,
    }


def per_file(row: dict, files: int) -> dict:
    return row | {
        "files": files,
        "files_per_s": files / row["wall_s"],
        "cpu_s_per_file": row["cpu_s"] / files,
    }


def throughput(folder: Path, files: int, dask: bool, whole_json: Path) -> dict:
    """`whole_json` receives the `--jobs 2` report: the reference of the shard section."""
    base = ["check", str(folder), "--no-progress", "--format", "json"]
    out = {
        "jobs1": per_file(legalog([*base, "--jobs", "1"]), files),
        "jobs2": per_file(legalog([*base, "--jobs", "2"], whole_json), files),
    }
    if dask:
        out |= dask_in_own_process(folder, files)
    return out


def dask_in_own_process(folder: Path, files: int) -> dict:
    """The Dask section in a process of its own: a LocalCluster changes its host process (its
    environment, and `legalog` processes started from it afterwards measured 24 MiB more peak
    RSS), which must not touch the figures measured after it."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--dask-section",
                out.name,
                str(folder),
                str(files),
            ],
            cwd=REPO,
            check=True,
            stderr=subprocess.DEVNULL,
        )
        return json.loads(Path(out.name).read_text())


def dask_figures(folder: Path, files: int, base: list[str]) -> dict:
    from distributed import LocalCluster

    from legalog.surfaces.batch import Job
    from legalog.surfaces.dumps import plan
    from legalog.surfaces.executors import DaskExecutor

    t0 = time.perf_counter()
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        startup = time.perf_counter() - t0
        row = legalog([*base, "--executor", "dask", "--scheduler", cluster.scheduler_address])
        with DaskExecutor(cluster.scheduler_address) as executor:
            workers = executor._client.run(_rusage)  # the workers' peak RSS and CPU, after the real run
            jobs = [Job(t) for t in plan([folder])]
            t1 = time.perf_counter()
            answered = sum(1 for _ in executor(_no_analysis, jobs))
            noop = time.perf_counter() - t1
    row["worker_rss_mib"] = max(rss for rss, _ in workers.values())
    row["cpu_s"] += sum(
        cpu for _, cpu in workers.values()
    )  # the client's and the workers' (incl. their start)
    return {
        "dask_startup_s": startup,
        "dask2": per_file(row, files),
        "dask_noop": {
            "files": answered,
            "wall_s": noop,
            "files_per_s": answered / noop,
            "overhead_ms_per_file": 1000 * noop / answered,
        },
    }


def _no_analysis(job):  # type: ignore[no-untyped-def]
    from legalog.surfaces.report import FileModel

    return FileModel(path=job.target.path, status="legal")


def _rusage() -> tuple[float, float]:
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_maxrss / 1024, me.ru_utime + me.ru_stime


def shard_and_merge(folder: Path, files: int, whole_json: Path, one: dict | None) -> dict:
    """Against `one`, the `--jobs 2` run that wrote `whole_json` (run here when not given)."""
    work = OUT / "scale" / "shards"
    work.mkdir(parents=True, exist_ok=True)
    base = ["check", str(folder), "--no-progress", "--format", "json", "--jobs", "1"]
    if one is None:
        one = per_file(
            legalog(["check", str(folder), "--no-progress", "--format", "json", "--jobs", "2"], whole_json),
            files,
        )
    t0 = time.perf_counter()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        shards = list(
            pool.map(lambda k: legalog([*base, "--shard", f"{k}/2"], work / f"shard{k}.json"), (1, 2))
        )
    parallel = time.perf_counter() - t0
    merged = work / "merged.json"
    merge = legalog(
        ["merge", str(work / "shard1.json"), str(work / "shard2.json"), "--format", "json"], merged
    )
    identical = merged.read_bytes() == whole_json.read_bytes()
    return {
        "one_run_jobs2": one,
        "shards_wall_s": parallel,
        "shard_cpu_s": sum(s["cpu_s"] for s in shards),
        "merge_wall_s": merge["wall_s"],
        "shard_and_merge_wall_s": parallel + merge["wall_s"],
        "shard_and_merge_files_per_s": files / (parallel + merge["wall_s"]),
        "identical": identical,
    }


def rss(sizes: list[int], known: dict[int, dict]) -> dict:
    """`--jobs 2` at each size (a size already measured by the throughput section is reused)."""
    rows = {}
    for n in sizes:
        args = ["check", str(make_batch(n)), "--no-progress", "--format", "json", "--jobs", "2"]
        rows[str(n)] = known.get(n) or per_file(legalog(args), n)
    return rows


def replay(sizes: list[int]) -> dict:
    """`--jobs 1`, every analysis replayed from one real one: the main process's memory for N entries."""
    rows = {}
    for n in sizes:
        folder = make_batch(n)
        args = [
            str(folder / "synth_00000.py"),
            "check",
            str(folder),
            "--no-progress",
            "--format",
            "json",
            "--jobs",
            "1",
        ]
        rows[str(n)] = per_file(legalog(args, wrapper=_REPLAY), n)
    return rows


def table(results: dict) -> str:
    lines = [f"load average at start: {results['load_average']}"]

    def row(name: str, r: dict) -> None:
        lines.append(
            f"{name:34} {r['files']:6d} files {r['wall_s']:8.1f} s {r['files_per_s']:7.2f} files/s "
            f"{r['cpu_s_per_file'] * 1000:7.1f} ms CPU/file  main {r['main_rss_mib']:6.1f} MiB  "
            f"worker {r['worker_rss_mib']:6.1f} MiB"
        )

    t = results.get("throughput", {})
    for key, name in (
        ("jobs1", "check --jobs 1"),
        ("jobs2", "check --jobs 2"),
        ("dask2", "check --executor dask (2 workers)"),
    ):
        if key in t:
            row(name, t[key])
    if "dask_noop" in t:
        d = t["dask_noop"]
        lines.append(
            f"dask cluster start-up {t['dask_startup_s']:.1f} s; no-op analysis through Dask: "
            f"{d['files_per_s']:.0f} files/s = {d['overhead_ms_per_file']:.2f} ms per file"
        )
    if s := results.get("shard"):
        lines.append(
            f"one run --jobs 2: {s['one_run_jobs2']['wall_s']:.1f} s; shards 1/2 + 2/2 at once (--jobs 1 each): "
            f"{s['shards_wall_s']:.1f} s, merge {s['merge_wall_s']:.2f} s; identical: {s['identical']}"
        )
    for n, r in results.get("rss", {}).items():
        row(f"rss: check --jobs 2, {n} dumps", r)
    for n, r in results.get("replay", {}).items():
        row(f"rss: replayed analyses, {n} dumps", r)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="legalog batch scale benchmarks (issue 14)")
    ap.add_argument("--files", type=int, default=1000, help="dumps in the throughput and shard batch")
    ap.add_argument("--rss", type=int, nargs="*", default=[1000], help="batch sizes for peak RSS, analysed")
    ap.add_argument(
        "--replay",
        type=int,
        nargs="*",
        default=[1000, 5000],
        help="batch sizes for peak RSS with the analyses replayed (the main process's share)",
    )
    ap.add_argument("--only", choices=("throughput", "shard", "rss", "replay"), help="one section")
    ap.add_argument("--skip-dask", action="store_true", help="without Dask (not installed)")
    ap.add_argument("--json", default=str(OUT / "scale.json"))
    ap.add_argument("--dask-section", nargs=3, metavar=("OUT", "FOLDER", "FILES"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.dask_section:
        out, folder, files = args.dask_section
        base = ["check", folder, "--no-progress", "--format", "json"]
        Path(out).write_text(json.dumps(dask_figures(Path(folder), int(files), base)))
        return 0
    folder = make_batch(args.files)
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "batch": str(folder),
    }
    whole = OUT / "scale" / "whole.json"
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)

    def section(name: str, measure: Callable[[], dict]) -> None:
        """Measures one section; results are written after each, so a long run keeps what it has."""
        results[name] = measure()
        Path(args.json).write_text(json.dumps(results, indent=2))
        print(table({"load_average": results["load_average"], name: results[name]}), flush=True)

    if args.only in (None, "throughput"):
        section("throughput", lambda: throughput(folder, args.files, not args.skip_dask, whole))
    jobs2 = results.get("throughput", {}).get("jobs2")
    if args.only in (None, "shard"):
        section("shard", lambda: shard_and_merge(folder, args.files, whole, jobs2))
    if args.only in (None, "rss") and args.rss:
        section("rss", lambda: rss(args.rss, {args.files: jobs2} if jobs2 else {}))
    if args.only in (None, "replay") and args.replay:
        section("replay", lambda: replay(args.replay))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
