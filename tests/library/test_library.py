"""The library surface: the README's snippet runs as written, PyPTO programs are accepted
(through a stand-in: PyPTO does not install from the registry), and writes are atomic."""

from __future__ import annotations

import os
import re
import sys
import types
from pathlib import Path

import pytest

import legalog
from legalog import cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT = REPO / "examples" / "row_shift.py"


def test_the_readme_library_snippet_runs_as_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    library = readme.split("## Library", 1)[1]
    snippet = re.search(r"```python\n(.*?)```", library, re.S)
    assert snippet is not None
    monkeypatch.chdir(REPO)
    exec(compile(snippet.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "rewritten" in out and "hoisted" in out


class StandIn:
    """A PyPTO program as PyPTO's printer sees it: an opaque object."""

    def __init__(self, text: str) -> None:
        self.text = text


def test_a_pypto_program_is_printed_with_pypto_python_print(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def python_print(node: object, prefix: str = "pl") -> str:
        if not isinstance(node, StandIn):
            raise TypeError("not an IR node")
        calls.append(prefix)
        return node.text

    pypto = types.ModuleType("pypto")
    ir = types.ModuleType("pypto.ir")
    ir.python_print = python_print  # type: ignore[attr-defined]
    pypto.ir = ir  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pypto", pypto)
    monkeypatch.setitem(sys.modules, "pypto.ir", ir)
    program = StandIn(ROW_SHIFT.read_text())
    assert legalog.analyze(program).status == "rewritten"
    text = legalog.print_program(legalog.legalize(program))
    assert legalog.analyze(text).status == "legal"  # the text PyPTO's pl.parse reads back
    assert calls == ["pl", "pl"]


def test_without_pypto_an_object_that_prints_a_dump_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypto", None)  # import pypto -> ImportError

    class AsPython:
        def as_python(self) -> str:
            return ROW_SHIFT.read_text()

    class Printable:
        def __str__(self) -> str:
            return ROW_SHIFT.read_text()

    assert legalog.analyze(AsPython()).status == "rewritten"
    assert legalog.explain(Printable(), "shift", "base").verdict == "hoisted"
    with pytest.raises(TypeError, match="PyPTO IR dump"):
        legalog.analyze(object())


def test_preflight_accepts_text() -> None:
    assert legalog.preflight(ROW_SHIFT.read_text()) == []


def test_a_failed_write_leaves_nothing_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dump = tmp_path / "row_shift.py"
    dump.write_text(ROW_SHIFT.read_text())
    before = dump.read_text()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    assert cli.main(["fix", str(dump), "--in-place"]) == 2
    assert cli.main(["fix", str(dump), "-o", str(tmp_path / "out.py")]) == 2
    assert dump.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["row_shift.py"]


def test_an_interrupted_write_leaves_nothing_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dump = tmp_path / "row_shift.py"
    dump.write_text(ROW_SHIFT.read_text())

    def interrupted(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    assert cli.main(["fix", str(dump), "--in-place"]) == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["row_shift.py"]


# ------------------------------------------------------------------- issue 21, item 6


def test_a_path_is_read_and_a_file_name_as_text_says_to_pass_the_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    from_path = legalog.analyze(Path("examples/row_shift.py"))
    from_text = legalog.analyze(ROW_SHIFT.read_text(encoding="utf-8"), path="examples/row_shift.py")
    assert from_path.path == "examples/row_shift.py" and from_path.status == from_text.status == "rewritten"
    assert from_path.diagnostics == from_text.diagnostics
    named = legalog.analyze("examples/row_shift.py")
    assert named.status == "error" and [d.code for d in named.diagnostics] == ["PARSE"]
    assert named.diagnostics[0].message == (
        "'examples/row_shift.py' is a file name, not a dump's text: pass its "
        "text, or pathlib.Path('examples/row_shift.py') to have legalog read it"
    )
    with pytest.raises(legalog.LegalizeError, match="is a file name, not a dump's text"):
        legalog.legalize("examples/row_shift.py")
    assert (
        legalog.print_program(legalog.legalize(Path("examples/row_shift.py"))) == from_text.legalized_text()
    )
    missing = legalog.analyze(Path("examples/nope.py"))
    assert missing.status == "error" and "cannot read examples/nope.py" in missing.diagnostics[0].message


def test_analysis_diagnostics_are_the_json_reports_diagnostics() -> None:
    import json

    analysis = legalog.analyze(ROW_SHIFT.read_text(encoding="utf-8"), path=str(ROW_SHIFT))
    result = cli_json(str(ROW_SHIFT))
    assert [(d.code, d.severity, d.line, d.column, d.message) for d in analysis.diagnostics] == [
        (d["code"], d["severity"], d["line"], d["column"], d["message"])
        for d in json.loads(result)["files"][0]["diagnostics"]
    ]
    assert [d.code for d in analysis.diagnostics] == ["GB201"] and analysis.findings == analysis.diagnostics


def cli_json(path: str) -> str:
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "legalog", "check", "--format", "json", "--no-cache", path],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout


def test_legalog_pypto_without_pypto_says_what_it_needs_pypto_for() -> None:
    import subprocess

    script = (
        "import sys; sys.modules['pypto'] = None  # PyPTO absent, whatever this machine has\n"
        "import legalog.pypto\nlegalog.pypto.default_pipeline()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: legalog.pypto.default_pipeline needs PyPTO"), result.stderr
    assert "python_print" in last and "pl.parse" in last and "legalog check" in last


def test_pass_rejected_is_importable_and_catchable_without_pypto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypto", None)  # import pypto -> ModuleNotFoundError
    import legalog.pypto as lp
    from legalog.pypto import PassRejected

    assert hasattr(lp, "PassRejected") and PassRejected is lp.PassRejected
    assert issubclass(PassRejected, ValueError)

    def user_code() -> str:
        try:
            raise PassRejected("LegalizeGraphBoundary", (), (), "rejected: 1 error(s)")
        except lp.PassRejected as err:  # what a user's `except` clause names
            return f"{err.pass_name}: {err}"

    assert user_code() == "LegalizeGraphBoundary: rejected: 1 error(s)"
