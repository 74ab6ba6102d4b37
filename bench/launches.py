"""How the SPMD launches of one function scale: CPU seconds per stage and peak RSS at N and 2N.

    python bench/launches.py                 # 1,000 / 2,000 / 4,000 / 8,000 launches
    python bench/launches.py 5000 10000      # the sizes to run (each is doubled against the one before)

The program is a09 (corpus/graph, `orch_spmd_counts`) with N distinct launches in its guarded
branch, each with its own count `blocks_i = (n + i) // 16 * 4`: every launch is a different
goal for the prover, so nothing is answered from the verdict cache, and the function's scalar
table grows with N (what made the prover's cache key, and with it `launches` and `verify`,
quadratic).  Each size runs in its own process (`bench/stages.py`'s stages, then the process's
peak RSS from getrusage), and each row's ratio is time(N) / time(previous N): linear scaling
reads 2.0 for a doubled N; the goal is <= 2.2 for `launches` and `verify`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED = Path(os.environ.get("LEGALOG_SHARED") or Path(__file__).resolve().parents[2] / "shared")
SEED = SHARED / "corpus/graph/a09_orch_spmd_counts.spmd_input.py"
GOAL = 2.2
WATCHED = ("launches", "verify")
_LAUNCH_LINE = 22  # a09's guarded launch: the N launches replace it, inside the same branch


def program(launches: int) -> str:
    """a09 with `launches` distinct guarded launches (deterministic)."""
    lines = SEED.read_text(encoding="utf-8").splitlines(keepends=True)
    indent = " " * 16
    body = []
    for i in range(launches):
        body.append(f"{indent}blocks__ssa_v{i + 1}: pl.Scalar[pl.INDEX] = (n__ssa_v0 + {i}) // 16 * 4\n")
        body.append(
            f"{indent}_l__ssa_v{i}: pl.Tuple[pl.Tensor[[2048, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = "
            f"pl.spmd_submit(self.band, x__ssa_v0, y__ssa_v1, deps=[t0__ssa_v0], core_num=blocks__ssa_v{i + 1})\n"
        )
    return "".join(lines[: _LAUNCH_LINE + 1] + body + lines[_LAUNCH_LINE + 1 :])


_CHILD = """
import json, resource, sys
sys.path.insert(0, sys.argv[2])
from stages import stages
seconds = stages(sys.argv[1])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "rss_mib": peak / 1024}))
"""


def measure(launches: int, folder: Path) -> dict[str, object]:
    path = folder / f"launches_{launches}.py"
    path.write_text(program(launches), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, object] = json.loads(out.splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    if not SEED.is_file():
        print(f"needs the corpus: {SEED} is missing", file=sys.stderr)
        return 2
    sizes = [int(a) for a in argv] or [1000, 2000, 4000, 8000]
    print(
        f"{'launches':>8} "
        + " ".join(f"{s:>9}" for s in WATCHED)
        + f" {'total':>7} {'RSS MiB':>8}  ratio (goal <= {GOAL})"
    )
    before: dict[str, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            found = measure(n, Path(tmp))
            seconds: dict[str, float] = found["seconds"]  # type: ignore[assignment]
            cells = " ".join(f"{seconds.get(s, 0.0):9.2f}" for s in WATCHED)
            ratios = ""
            if before is not None:
                ratios = "  ".join(f"{s} {seconds[s] / before[s]:.2f}" for s in WATCHED if before.get(s))
            print(
                f"{n:8d} {cells} {sum(seconds.values()):7.2f} {found['rss_mib']:8.0f}  {ratios}", flush=True
            )
            before = seconds
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
