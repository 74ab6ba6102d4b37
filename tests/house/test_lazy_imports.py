"""A command imports only what it uses: the solver, the engines and the reference engine load
when a program needs them, never with the package; pydantic only for a report read from outside
or the schema.  Behavioural (which modules a fresh process
holds afterwards), not timed; bench/run.py measures what it costs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTHING_TO_DECIDE = REPO / "bench" / "dumps" / "nothing_to_decide.py"  # no Graph, no launch
GRAPH_ONLY = REPO / "examples" / "row_shift.py"  # a Graph, no launch
LAUNCHES = REPO / "examples" / "spmd_counts.py"  # SPMD launches
HEAVY = ("z3", "pyDatalog", "numpy", "torch", "pypto", "pydantic")


def _loaded_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1])) & set(HEAVY)


def _check(path: Path) -> str:
    # `--timeout 0`: the analysis runs in this process (under a time limit it runs in a forked
    # child, and the parent loads nothing of it at all)
    return f"from legalog.cli import main\nmain(['check', {str(path)!r}, '--no-cache', '--no-progress', '--timeout', '0'])"


def test_import_legalog_loads_no_engine_and_no_solver() -> None:
    assert _loaded_after("import legalog") == set()


def test_the_object_frontend_imports_pypto_only_when_it_reads_a_program() -> None:
    assert _loaded_after("import legalog.ir.objects, legalog.pypto, legalog.pypto_objects") == set()


def test_checking_a_dump_with_nothing_to_decide_loads_no_engine_and_no_solver() -> None:
    # no Graph, no host control tensor, no SPMD launch: nothing is evaluated
    assert _loaded_after(_check(NOTHING_TO_DECIDE)) == set()


def test_checking_a_graph_loads_neither_the_reference_engine_nor_the_solver() -> None:
    # the default engine is legalog's own compiled Python: nothing heavy to import
    assert _loaded_after(_check(GRAPH_ONLY)) == set()


def test_checking_launches_loads_the_solver() -> None:
    assert _loaded_after(_check(LAUNCHES)) == {"z3"}


def test_a_check_answered_from_the_cache_loads_neither_the_pipeline_nor_pydantic(tmp_path: Path) -> None:
    dump = GRAPH_ONLY
    run = (
        f"from legalog.cli import main\ntry:\n    main(['check', {str(dump)!r}, '--no-progress', "
        f"'--cache-dir', {str(tmp_path)!r}])\nexcept SystemExit:\n    pass"
    )
    _loaded_after(run)  # fills the cache
    script = f"import sys, json\n{run}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not {
        m
        for m in loaded
        if m.split(".")[0] in HEAVY or m in ("legalog.pipeline", "legalog.ir.model", "legalog.rules.language")
    }


def test_a_one_file_check_loads_no_process_pool_and_no_other_report_format() -> None:
    # a pool only for `--jobs` > 1 over many files; XML for JUnit, UUIDs for SARIF
    script = f"import sys, json\n{_check(GRAPH_ONLY)}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not loaded & {"concurrent.futures", "xml.etree.ElementTree", "uuid"}
