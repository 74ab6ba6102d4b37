"""Where one dump's analysis spends its time: CPU seconds per stage, in the pipeline's order.

    python bench/stages.py FILE...          # e.g. bench/generate.py -k 1650 -t 8 (5 MB, 1,656 functions)

The stages are `legalog.pipeline.analyze`'s own (parse, the parser's checks, frontend versioning,
lower, rules, launches, decide (each pass's decisions, in legalog/passes.py's order), rewrite, verify), timed as analyze runs them (`stage=`), so this
is exactly the pipeline a check runs; then printing the output.  `rules` and the engine share of
`verify` are the rules engine's, the rest legalog's own.  CPU time (`time.process_time`), so a
busy machine moves the figures less than wall time would.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from legalog.pipeline import analyze

T = TypeVar("T")


def stages(path: str) -> dict[str, float]:
    text = Path(path).read_text(encoding="utf-8")
    seconds: dict[str, float] = {}

    def timed(name: str, run: Callable[[], T], /) -> T:
        start = time.process_time()
        result = run()
        seconds[name] = seconds.get(name, 0.0) + time.process_time() - start
        return result

    analysis = analyze(text, path, stage=timed)
    timed("print", analysis.legalized_text)
    return seconds


def main(paths: list[str]) -> None:
    for path in paths:
        seconds = stages(path)
        size = Path(path).stat().st_size
        cells = " ".join(f"{name}={s:.2f}" for name, s in seconds.items())
        print(f"{path} ({size / 1e6:.2f} MB): {cells} total={sum(seconds.values()):.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
