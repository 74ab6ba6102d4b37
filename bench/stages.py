"""Where one dump's analysis spends its time: CPU seconds per stage, in the pipeline's order.

    python bench/stages.py FILE...          # e.g. bench/generate.py -k 1650 -t 8 (5 MB, 1,656 functions)

The stages are legalog/pipeline.py's (parse, the checks before the rules, lower, solve, decide,
rewrite, verify, print), called one by one so each is timed alone; `solve` and the engine share
of `verify` are the rules engine's, the rest legalog's own.  CPU time (`time.process_time`), so a
busy machine moves the figures less than wall time would.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from legalog.analyzer.graph import graph_decisions, graph_diagnostics
from legalog.analyzer.spmd import decide_launches
from legalog.analyzer.verifier import verify
from legalog.analyzer.wellformed import wellformed_diagnostics
from legalog.extractor.lower import lower
from legalog.ir.parser import parse
from legalog.ir.printer import print_program
from legalog.pipeline import pass_rules
from legalog.rewriter.graph_boundary import legalize_graphs
from legalog.rewriter.spmd_guard import guard_launches
from legalog.rules.engine import evaluate

T = TypeVar("T")


def stages(path: str) -> dict[str, float]:
    text = Path(path).read_text(encoding="utf-8")
    seconds: dict[str, float] = {}

    def timed(name: str, run: Callable[[], T]) -> T:
        start = time.process_time()
        result = run()
        seconds[name] = time.process_time() - start
        return result

    program = timed("parse", lambda: parse(text, path))
    timed("checks", lambda: wellformed_diagnostics(program))
    lowering = timed("lower", lambda: lower(program))
    derived = timed("solve", lambda: evaluate(pass_rules(), lowering.facts.as_mapping()))
    graphs = timed("graph_decisions", lambda: graph_decisions(program, lowering, derived))
    launches = timed("launch_decisions", lambda: decide_launches(program, lowering, derived))
    timed("graph_diagnostics", lambda: graph_diagnostics(program, lowering, derived))
    legalized = timed("rewrite", lambda: legalize_graphs(guard_launches(program, launches), graphs))
    timed("verify", lambda: verify(legalized))
    timed("print", lambda: print_program(legalized))
    return seconds


def main(paths: list[str]) -> None:
    for path in paths:
        seconds = stages(path)
        size = Path(path).stat().st_size
        cells = " ".join(f"{name}={s:.2f}" for name, s in seconds.items())
        print(f"{path} ({size / 1e6:.2f} MB): {cells} total={sum(seconds.values()):.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
