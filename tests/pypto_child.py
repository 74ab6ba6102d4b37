"""PyPTO itself (installed, or in `$LEGALOG_PYPTO`: `tests.oracle.pypto_oracle.pypto_folder`), run in a child process:
importing it (torch, really) into the test process breaks interpreter shutdown once process pools
have run, and costs seconds.  One child answers a whole batch; no PyPTO means the caller skips."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.oracle.pypto_oracle import pypto_folder

_SCRIPT = r"""
import json, sys
try:
    import pypto.language as pl
    from pypto import ir
    from pypto.pypto_core import passes
except Exception as err:
    print(json.dumps({"unavailable": repr(err)})); sys.exit(0)
out = {}
for key, (mode, text) in json.load(sys.stdin).items():
    try:
        program = pl.parse(text)
        out[key] = ir.python_print(passes.convert_to_ssa()(program)) if mode == "ssa" else ""
    except Exception as err:
        out[key] = {"error": f"{type(err).__name__}: {err}"}
print(json.dumps(out))
"""


def ask(requests: dict[str, tuple[str, str]]) -> dict[str, str | dict[str, str]] | None:
    """For each key, (mode, dump text): mode "ssa" gives ConvertToSSA's printed output, "parse"
    gives "" when `pl.parse` reads the text; an {"error": ...} when PyPTO refuses.  None when
    PyPTO cannot be imported."""
    if (folder := pypto_folder()) is None:
        return None
    run = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    if run.returncode != 0:
        raise RuntimeError(f"the PyPTO oracle failed: {run.stderr[-2000:]}")
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    return None if "unavailable" in answer else answer
