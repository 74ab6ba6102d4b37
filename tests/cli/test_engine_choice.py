"""Choosing the engine: --engine, $LEGALOG_ENGINE, engine= in the library; the same answers either
way, a clear usage error for an unknown name, and the result cache keyed on the engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import legalog
from legalog.rules.engine import ENGINES, resolve_engine
from legalog.surfaces import batch, cache

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "legalog", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )


def test_check_gives_the_same_report_on_either_engine() -> None:
    reports = {
        engine: run("check", str(EXAMPLES), "--format", "json", "--engine", engine, "--jobs", "1")
        for engine in ENGINES
    }
    assert {r.returncode for r in reports.values()} == {1}  # the examples include rejected programs
    assert {r.stdout for r in reports.values()} == {reports["pydatalog"].stdout}


def test_fix_and_why_take_the_engine() -> None:
    row_shift = str(EXAMPLES / "row_shift.py")
    fixed = {engine: run("fix", row_shift, "--diff", "--engine", engine).stdout for engine in ENGINES}
    assert set(fixed.values()) == {fixed["pydatalog"]} and "base__graph_arg0" in fixed["pydatalog"]
    why = run("why", row_shift, "--function", "shift", "--var", "base", env={"LEGALOG_ENGINE": "pydatalog"})
    assert why.returncode == 0 and "verdict: hoisted" in why.stdout


def test_an_unknown_engine_is_a_usage_error() -> None:
    result = run("check", str(EXAMPLES / "row_shift.py"), "--engine", "souffle")
    assert result.returncode == 2 and "invalid choice: 'souffle'" in result.stderr
    result = run("check", str(EXAMPLES / "row_shift.py"), env={"LEGALOG_ENGINE": "souffle"})
    assert result.returncode == 2 and "unknown engine 'souffle'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_library_takes_the_engine_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (EXAMPLES / "mixed_offsets.py").read_text(encoding="utf-8")
    answers = {
        engine: legalog.analyze(text, "mixed_offsets.py", engine=engine).diagnostics for engine in ENGINES
    }
    assert all(a == answers["pydatalog"] for a in answers.values()) and answers["pydatalog"]
    row_shift = (EXAMPLES / "row_shift.py").read_text(encoding="utf-8")
    why = {engine: legalog.explain(row_shift, "shift", "base", engine=engine).to_json() for engine in ENGINES}
    assert all(w == why["pydatalog"] for w in why.values())
    program = legalog.legalize(row_shift, engine="pydatalog")
    assert legalog.preflight(program, engine="pydatalog") == legalog.preflight(program) == []
    monkeypatch.setenv("LEGALOG_ENGINE", "pydatalog")
    assert resolve_engine() == "pydatalog" and resolve_engine("compiled") == "compiled"
    monkeypatch.delenv("LEGALOG_ENGINE")
    assert resolve_engine() == "compiled"
    with pytest.raises(ValueError, match="unknown engine"):
        legalog.analyze(row_shift, engine="souffle")


def test_the_result_cache_keys_on_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGALOG_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("LEGALOG_NO_CACHE", raising=False)
    dump = tmp_path / "d.py"
    dump.write_bytes((EXAMPLES / "row_shift.py").read_bytes())
    calls = []

    def analyse(target: str, runtime: str) -> object:
        calls.append(os.environ.get("LEGALOG_ENGINE"))
        return batch.analyse_file(target, runtime)

    for engine in (*ENGINES, *ENGINES):
        monkeypatch.setenv("LEGALOG_ENGINE", engine)
        cache.cached(str(dump), "host_build_graph", analyse)
    assert calls == list(ENGINES)  # one miss per engine, then hits


@pytest.mark.parametrize("name", ["pass", "explain", "verifier"])
def test_rules_emit_prints_the_compiled_module_of_each_program(name: str) -> None:
    from legalog.rules.language import RuleProgram
    from legalog.rules.programs import PROGRAMS

    result = run("rules", "--emit", name)
    assert result.returncode == 0 and not result.stderr
    rules = RuleProgram.load(PROGRAMS[name])
    compile(result.stdout, f"<{name}>", "exec")  # Python, read only: compiled, never run here
    for i, rule in enumerate(rules.rules):  # every rule, headed by where it is written
        assert f"\ndef r{i}(R, ix, out):\n" in result.stdout
        assert f"# {Path(rule.where).name}: " in result.stdout
    assert "\nCOMPONENTS = (\n" in result.stdout


def test_rules_emit_of_an_unknown_program_is_a_usage_error_naming_the_programs() -> None:
    result = run("rules", "--emit", "passes")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "choose from 'pass', 'explain', 'verifier'" in result.stderr


def test_an_engine_that_was_removed_is_a_usage_error_naming_those_that_exist() -> None:
    result = run("check", str(EXAMPLES / "row_shift.py"), "--engine", "clingo")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "invalid choice: 'clingo' (choose from 'compiled', 'pydatalog')" in result.stderr
