"""Any input, round two (issue 22): `fix` writes only what reads back as the program it verified,
spans start at a decorator's `@`, what Python's compiler refuses is IR407-IR409, the class name
is kept (a disagreeing header is IR410), a non-integer core_num is SP304, and every reproducer
of ../shared/fuzz's second round is a regression test."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import multiprocessing.queues
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

import legalog.ir.printer
from legalog.analyzer.diagnostics import diagnostic
from legalog.cli import main
from legalog.ir.parser import parse
from legalog.pipeline import analyze
from legalog.surfaces.file_models import file_model
from legalog.surfaces.fixes import reread_mismatch
from tests.conftest import FUZZ, GRAPH
from tests.robust.test_inputs import ROW_SHIFT, line_of, only

GRAPH_DECORATOR = "    @pl.function(type=pl.FunctionType.Graph)\n"


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")


def fixed(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "out.py"
    assert main(["fix", str(path), "-o", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return out.read_text(encoding="utf-8")


# ------------------------------------------------------------------------- decorator spans

DECORATOR_FORMS = {
    "backslash": "    @ \\\n    pl.function(type=pl.FunctionType.Graph)\n",
    "parenthesised": "    @(\n        pl.function(type=pl.FunctionType.Graph)\n    )\n",
    "parenthesised with a comment": "    @(  # the Graph\n        # its decorator\n        pl.function(type=pl.FunctionType.Graph))\n",
    "backslash twice": "    @\\\n    \\\n    pl.function(type=pl.FunctionType.Graph)\n",
    "space after @": "    @   pl.function(type=pl.FunctionType.Graph)\n",
}


@pytest.mark.parametrize("form", sorted(DECORATOR_FORMS))
def test_a_function_span_starts_at_its_decorators_at_sign(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ROW_SHIFT.replace(GRAPH_DECORATOR, DECORATOR_FORMS[form])
    program = parse(text)
    start, _end = program.layout.function_spans[1]  # type: ignore[union-attr]
    assert text[start:].startswith("    @") and text[:start].endswith("return dst\n")
    dump = tmp_path / "in.py"
    dump.write_text(text)
    out = fixed(dump, tmp_path, capsys)
    assert analyze(out).status == "legal"  # parses, and is the legalized program
    assert DECORATOR_FORMS[form] not in out and out.count("@pl.function") == 3
    # the JSON edit of the Graph starts on the `@` line, whatever the continuation
    assert main(["check", str(dump), "--format", "json"]) == 0
    edits = {e["function"]: e for e in json.loads(capsys.readouterr().out)["files"][0]["edits"]}
    assert edits["shift"]["start_line"] == line_of(text, "def shift_incore_0") + 4
    assert (
        edits["shift"]["start_column"],
        text.splitlines()[edits["shift"]["start_line"] - 1].lstrip()[0],
    ) == (1, "@")


@pytest.mark.shared
@pytest.mark.parametrize(
    "name", ["fix_decorator_continuation_unparseable.py", "fix_decorator_paren_unparseable.py"]
)
def test_reproducer_split_decorator_fix_parses(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = fixed(FUZZ / name, tmp_path, capsys)
    assert analyze(out).status == "legal"
    assert "\n    @ \\\n" not in out and "\n    @(\n" not in out


# ---------------------------------------------------------------------- fix re-reads its text


def test_fix_never_writes_a_text_that_reads_back_differently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = legalog.ir.printer.print_program
    # a printer bug of any kind: here, a bound printed as another number
    monkeypatch.setattr(
        legalog.ir.printer, "print_program", lambda p: real(p).replace("pl.range(8)", "pl.range(9)")
    )
    dump = tmp_path / "in.py"
    dump.write_text(ROW_SHIFT)
    out = tmp_path / "out.py"
    assert main(["fix", str(dump), "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert "INTERNAL PrintError" in err and "reads back differently" in err and "Traceback" not in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.py"]


def test_fix_never_writes_a_text_that_does_not_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = legalog.ir.printer.print_program
    monkeypatch.setattr(legalog.ir.printer, "print_program", lambda p: real(p) + "    @\n")
    dump = tmp_path / "in.py"
    dump.write_text(ROW_SHIFT)
    assert main(["fix", str(dump), "--in-place"]) == 3
    assert "does not read back" in capsys.readouterr().err
    assert dump.read_text() == ROW_SHIFT


def test_batch_fix_checks_each_edit_against_the_text_on_disk(tmp_path: Path) -> None:
    analysis = analyze(ROW_SHIFT)
    model = file_model(analysis)
    text = analysis.legalized_text()
    assert text is not None and reread_mismatch(ROW_SHIFT, text, model.edits) is None
    shifted = [dataclasses.replace(e, char_offset=e.char_offset + 1) for e in model.edits]
    assert "does not cover" in (reread_mismatch(ROW_SHIFT, text, shifted) or "")
    assert "does not parse" in (reread_mismatch(ROW_SHIFT, text + "    @\n", model.edits) or "")


def test_batch_fix_in_place_of_a_dump_with_a_bom(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the parser drops the BOM, so the edits' offsets are offsets into the text without it
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + ROW_SHIFT.encode())
    assert main(["fix", str(tmp_path), "--in-place", "--jobs", "1"]) == 0
    for name in ("a.py", "b.py"):
        assert analyze((tmp_path / name).read_text(encoding="utf-8")).status == "legal"


# --------------------------------------------------------------- what the compiler refuses

# (statement put in the Graph's body or, with a leading "class:", in the class body; code; needle)
REFUSED = [
    ("break", "IR407", "break"),
    ("continue", "IR407", "continue"),
    ("n: pl.Scalar[pl.INDEX] = await self.shift_incore_0(src, base, dst)", "IR408", "await"),
    ("n: pl.Scalar[pl.INDEX] = yield base", "IR408", "yield"),
    ("n: pl.Scalar[pl.INDEX] = (yield from base)", "IR408", "yield from"),
    ("n: pl.Scalar[pl.INDEX] = [await b for b in base]", "IR408", "await"),
    ("n: pl.Scalar[pl.INDEX] = pl.max(a=base, a=base)", "IR409", "a=base, a="),
    ("n: pl.Scalar[pl.INDEX] = pl.max(*base)", None, None),  # Python compiles it: an opaque call
    ("n: pl.Scalar[pl.INDEX] = *base", "IR409", "*base"),
    ("__debug__: pl.Scalar[pl.INDEX] = base", "IR409", "__debug__"),
    ("class:return 1", "IR409", "return 1"),
    ("class:nonlocal base", "IR409", "nonlocal"),
    ("class:yield 1", "IR408", "yield 1"),
    ("class:break", "IR407", "break"),
]


@pytest.mark.parametrize("statement, code, needle", REFUSED, ids=[r[0] for r in REFUSED])
def test_what_python_refuses_is_an_ir40x_code_at_its_line(
    statement: str, code: str | None, needle: str | None
) -> None:
    anchor = "        base: pl.Scalar[pl.INDEX] = idx * 128\n"
    if statement.startswith("class:"):
        text = ROW_SHIFT.replace("class RowShift:\n", f"class RowShift:\n    {statement[6:]}\n")
    else:
        text = ROW_SHIFT.replace(anchor, anchor + f"        {statement}\n")
    analysis = analyze(text)
    if code is None:
        assert not {d.code for d in analysis.diagnostics} & {"IR407", "IR408", "IR409"}
        return
    line, _col = only(analysis, code)
    assert line == line_of(text, statement.removeprefix("class:"))
    assert needle is not None and needle in text.splitlines()[line - 1]
    assert analysis.diagnostics[0].function == (None if statement.startswith("class:") else "shift")


def test_every_jump_outside_a_loop_is_reported_and_loops_are_not() -> None:
    body = (
        "        for i in pl.range(4):\n            continue\n            break\n"
        "        while base < 4:\n            break\n        break\n        continue\n"
    )
    text = ROW_SHIFT.replace(
        "        base: pl.Scalar[pl.INDEX] = idx * 128\n",
        "        base: pl.Scalar[pl.INDEX] = idx * 128\n" + body,
    )
    analysis = analyze(text)
    assert [(d.code, d.line) for d in analysis.diagnostics] == [
        ("IR407", line_of(text, "while base") + 2),
        ("IR407", line_of(text, "while base") + 3),
    ]


@pytest.mark.shared
def test_reproducer_break_outside_loop_is_rejected_not_rewritten() -> None:
    text = (FUZZ / "verdict_break_outside_loop_accepted.py").read_text()
    line, col = only(analyze(text), "IR407")
    assert (line, col) == (line_of(text, "        break"), 9)


def test_compiler_warnings_never_reach_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # an invalid escape warns when read, calling a literal when compiled: not the user's report
    text = ROW_SHIFT.replace("idx * 128", 'idx * 128 if "\\d" else (1)(2)')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analyze(text)
    assert caught == [] and capsys.readouterr().err == ""


# ------------------------------------------------------------------------ header and class


@pytest.mark.shared
def test_reproducer_header_naming_another_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = FUZZ / "fix_header_name_renames_class.py"
    text = source.read_text()
    analysis = analyze(text)
    assert (
        analysis.status == "rewritten"
        and analysis.program is not None
        and analysis.program.name == "TileCopyFp16"
    )
    header = [d for d in analysis.diagnostics if d.code == "IR410"]
    assert len(header) == 1 and (header[0].line, header[0].severity) == (1, "warning")
    assert "Renamed" in header[0].message and "TileCopyFp16" in header[0].message
    out = fixed(source, tmp_path, capsys)
    # the module-level text, header included, is kept byte for byte, and so is the class name
    head = text[: text.index("    @pl.function")]
    assert out.startswith(head) and "class TileCopyFp16:" in out and "class Renamed" not in out


def test_a_header_naming_the_class_or_nothing_is_no_diagnostic() -> None:
    assert "IR410" not in {d.code for d in analyze(ROW_SHIFT).diagnostics}
    bare = ROW_SHIFT.replace("# pypto.program: RowShift", "# pypto.program")
    assert "IR410" not in {d.code for d in analyze(bare).diagnostics}


def test_module_level_text_after_the_class_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tail = "\n\n# trailing notes\nEXTRA = 1  # kept\n"
    dump = tmp_path / "in.py"
    dump.write_text(ROW_SHIFT + tail)
    assert fixed(dump, tmp_path, capsys).endswith(tail)


# --------------------------------------------------------------------------------- core_num

LAUNCH = FUZZ / "assertionerror_spmd_guard_py_185.py"


@pytest.mark.shared
@pytest.mark.parametrize(
    "value, shown",
    [
        ("2.5", "2.5"),
        ("k * 1.0", "1.0"),
        ('"4"', "'4'"),
        ("True", "True"),
        ("None", "None"),
        ("pl.const(2, pl.FP32)", "2"),
    ],
)
def test_a_core_num_that_is_not_an_integer_is_sp304_at_its_line(value: str, shown: str) -> None:
    text = LAUNCH.read_text().replace("core_num=k", f"core_num={value}")
    line, col = only(analyze(text), "SP304")
    assert line == line_of(text, f"core_num={value}")
    assert col == text.splitlines()[line - 1].index(f"core_num={value}") + len("core_num=") + 1
    assert shown in analyze(text).diagnostics[0].message


@pytest.mark.shared
def test_an_integer_core_num_is_no_sp304() -> None:
    for value in ("k", "k + 1", "pl.const(2, pl.INT64)", "4"):
        text = LAUNCH.read_text().replace("core_num=k", f"core_num={value}")
        assert "SP304" not in {d.code for d in analyze(text).diagnostics}


@pytest.mark.shared
def test_reproducer_float_core_num(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = FUZZ / "diag_float_core_num_counterexample.py"
    text = source.read_text()
    assert only(analyze(text), "SP304")[0] == line_of(text, "core_num=2.5")
    assert main(["check", str(source)]) == 1
    out = capsys.readouterr().out
    assert "when 2.5" not in out and "fixable" not in out and "[*]" not in out
    assert (
        main(["fix", str(source), "-o", str(tmp_path / "out.py")]) == 1 and not (tmp_path / "out.py").exists()
    )


@pytest.mark.shared
def test_nothing_is_fixable_on_a_file_fix_writes_nothing_for() -> None:
    analysis = analyze(LAUNCH.read_text())
    assert any(d.fixable for d in file_model(analysis).diagnostics)
    error = diagnostic("GB107", "made up", 1, 1)
    rejected = dataclasses.replace(analysis, diagnostics=(*analysis.diagnostics, error))
    assert rejected.status == "rejected"
    assert not any(d.fixable for d in file_model(rejected).diagnostics)


# ------------------------------------------------------------------ the limit, from outside

REPO = Path(__file__).resolve().parents[2]


def _legalog(*argv: str, path: tuple[Path, ...] = ()) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `python -m legalog` in a child; `path` goes first on its PYTHONPATH."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*map(str, path), str(REPO), os.environ.get("PYTHONPATH", "")]),
        "LEGALOG_NO_CACHE": "1",
    }
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "legalog", *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    return done, time.monotonic() - start


# Loaded by the child's interpreter at start-up (a `sitecustomize` on its path): every Z3 check
# runs the real one again and again without end, so the time limit fires inside Z3's native code
# whatever the machine's speed, where the alarm of old left a traceback on stderr.
_Z3_NEVER_ANSWERS = """
import z3

_check = z3.Solver.check


def _never_answers(self, *assumptions):
    while True:
        _check(self, *assumptions)


z3.Solver.check = _never_answers
"""


@pytest.mark.shared
def test_reproducer_time_limit_holds_and_stderr_stays_clean(tmp_path: Path) -> None:
    reproducer = str(FUZZ / "timeout_traceback_z3_del_100_launches.py")
    quick, _ = _legalog("check", reproducer, "--format", "json", "--timeout", "1")
    assert quick.stderr == ""
    (tmp_path / "sitecustomize.py").write_text(_Z3_NEVER_ANSWERS, encoding="utf-8")
    for _ in range(3):
        done, elapsed = _legalog(
            "check", reproducer, "--format", "json", "--timeout", "1", "--no-cache", path=(tmp_path,)
        )
        entry = json.loads(done.stdout)["files"][0]
        assert (done.returncode, entry["status"], [d["code"] for d in entry["diagnostics"]]) == (
            3,
            "error",
            ["TIMEOUT"],
        )
        assert done.stderr == ""
        # the limit holds: a second plus Python's start-up, never the analysis's own seconds
        assert elapsed < 1 + 20, elapsed


@pytest.mark.shared
def test_a_crash_in_the_timed_child_is_that_files_internal_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    from legalog.surfaces import batch

    def crash(*_args: object, **_kwargs: object) -> None:
        raise SystemExit("worker gone")  # not an Exception: analyse_target's own net lets it through

    monkeypatch.setattr(batch, "analyse_target", crash)
    [entry] = batch.run([LAUNCH], jobs=1, timeout=30)
    assert entry.status == "error" and [d.code for d in entry.diagnostics] == ["INTERNAL"]


# ---------------------------------------------------------------------- no recursion limit

ALIASES = FUZZ / "internal_recursionerror_positivity_py_344.py"


def _alias_chain(count: int) -> str:
    text = ALIASES.read_text()
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if "a1__ssa_v0:" in line)
    last = next(i for i, line in enumerate(lines) if "a350__ssa_v0: pl.Scalar" in line)
    chain = ["        a1__ssa_v0: pl.Scalar[pl.INDEX] = n__ssa_v0\n"]
    chain += [f"        a{i}__ssa_v0: pl.Scalar[pl.INDEX] = a{i - 1}__ssa_v0\n" for i in range(2, count + 1)]
    return "".join(lines[:first] + chain + lines[last + 1 :]).replace(
        "core_num=a350__ssa_v0", f"core_num=a{count}__ssa_v0"
    )


@pytest.mark.shared
def test_reproducer_350_aliases_feeding_core_num_are_analysed() -> None:
    analysis = analyze(ALIASES.read_text())
    assert analysis.status == "rewritten" and {d.code for d in analysis.diagnostics} == {"SP310"}


@pytest.mark.shared
def test_ten_thousand_aliases_feeding_core_num_through_the_command_line(tmp_path: Path) -> None:
    dump = tmp_path / "aliases.py"
    dump.write_text(_alias_chain(10_000))
    done, _ = _legalog("check", str(dump), "--format", "json")
    entry = json.loads(done.stdout)["files"][0]
    assert entry["status"] == "rewritten" and done.stderr == ""
    first = next(d for d in entry["diagnostics"] if d["code"] == "SP310")
    assert "a10000__ssa_v0" in first["message"] or "n__ssa_v0" in first["message"]
    fixed_path = tmp_path / "out.py"
    done, _ = _legalog("fix", str(dump), "-o", str(fixed_path))
    assert done.returncode == 0 and analyze(fixed_path.read_text()).status in ("legal", "rewritten")


def _nested(depth: int) -> str:
    expr = "idx"
    for i in range(depth):
        expr = f"({expr} + {i % 3})"
    return ROW_SHIFT.replace("idx * 128", expr)


def _blocks(depth: int) -> str:
    body = "".join("        " + "    " * d + f"if idx > {d}:\n" for d in range(depth))
    body += "        " + "    " * depth + "k: pl.Scalar[pl.INDEX] = idx\n"
    return ROW_SHIFT.replace(
        "    def main(self, src: pl.Tensor[[1024, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:\n",
        "    def main(self, src: pl.Tensor[[1024, 128], pl.FP32], dst: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:\n"
        "        idx: pl.Scalar[pl.INDEX] = 3\n" + body,
    )


@pytest.mark.slow
@pytest.mark.parametrize("make, depth", [(_nested, 195), (_blocks, 95)], ids=["expression", "blocks"])
def test_deep_nesting_through_every_command(make, depth: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # 200 levels of brackets or blocks is Python's own ceiling (its tokenizer stops at 200
    # parentheses and 100 indents); just under it, every command answers
    dump = tmp_path / "deep.py"
    dump.write_text(make(depth))
    for argv in (
        ["check", str(dump)],
        ["fix", str(dump), "-o", str(tmp_path / "out.py")],
        ["why", str(dump), "--function", "shift", "--var", "base"],
        ["query", str(dump), "graph(G)"],
    ):
        done, _ = _legalog(*argv)
        assert done.returncode in (0, 1), (argv[0], done.stderr[-400:])
        assert "INTERNAL" not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_nesting_past_pythons_ceiling_is_a_parse_error_at_its_line(tmp_path: Path) -> None:
    text = _blocks(120)
    analysis = analyze(text)
    assert analysis.status == "error" and analysis.diagnostics[0].code == "PARSE"
    assert "indentation" in analysis.diagnostics[0].message and analysis.diagnostics[0].line > 1


@pytest.mark.shared
def test_reproducer_many_launches_generator(tmp_path: Path) -> None:
    # the speed of 3,000 launches is bench/'s to hold; here, that N copies analyse as one does
    out = tmp_path / "many.py"
    done = subprocess.run(
        [sys.executable, str(FUZZ / "make_many_launches.py"), "40", str(out)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    analysis = analyze(out.read_text())
    single = analyze((GRAPH / "a09_orch_spmd_counts.spmd_input.py").read_text())
    assert analysis.status == single.status == "rewritten"
    assert [d.code for d in analysis.diagnostics] == [d.code for d in single.diagnostics]
    assert len(analysis.launches) == len(single.launches) + 40
    text = analysis.legalized_text()
    assert text is not None and analyze(text).status == "legal"


def test_an_operator_chain_past_the_readers_bound_is_a_parse_error_at_its_line() -> None:
    from legalog.ir.parser import MAX_EXPR_DEPTH

    # (far past it, at thousands of terms, Python's own parser gives up first: PARSE at 1:1)
    text = ROW_SHIFT.replace("idx * 128", "idx" + " + 1" * 400)
    analysis = analyze(text)
    assert analysis.status == "error" and analysis.diagnostics[0].code == "PARSE"
    assert analysis.diagnostics[0].line == line_of(text, "idx + 1")
    assert f"more than {MAX_EXPR_DEPTH}" in analysis.diagnostics[0].message
    assert (
        analyze(ROW_SHIFT.replace("idx * 128", "idx" + " + 1" * (MAX_EXPR_DEPTH - 1))).status == "rewritten"
    )


@pytest.mark.shared
def test_every_reproducer_in_the_fuzz_folder_is_decided_with_a_clean_stderr() -> None:
    """Every dump of ../shared/fuzz, one added later included, in one `check`: a report entry each,
    none INTERNAL or TIMEOUT, nothing but the report (the generator script is no dump)."""
    dumps = sorted(str(p) for p in FUZZ.glob("*.py") if not p.name.startswith("make_"))
    done, _ = _legalog("check", *dumps, "--format", "json")
    files = json.loads(done.stdout)["files"]
    assert done.stderr == "" and len(files) == len(dumps) >= 12
    assert not [
        (f["path"], d["code"])
        for f in files
        for d in f["diagnostics"]
        if d["code"] in ("INTERNAL", "TIMEOUT")
    ]


def test_a_threaded_process_never_forks_itself_for_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With other threads running (a Dask worker, a thread pool) the timed worker is a new
    interpreter: no `os.fork` here, no warning, and the limit still holds.  As in
    a process without threads, one worker serves the files one after another, and the one killed
    at a deadline is replaced."""
    from legalog.surfaces import batch
    from legalog.surfaces.batch import Job, analyse_job
    from legalog.surfaces.dumps import Target
    from tests.robust.chains import graph_chain

    def refuse() -> int:
        raise AssertionError("os.fork in a threaded process")

    started: list[object] = []
    real_start = batch._start_spawned

    def start(*ends):  # type: ignore[no-untyped-def]
        started.append(ends)
        return real_start(*ends)

    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(batch, "_start_spawned", start)
    quick, slow = tmp_path / "quick.py", tmp_path / "slow.py"
    quick.write_text(ROW_SHIFT)
    slow.write_text(graph_chain("renames", 10_000))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            first = [analyse_job(Job(Target(str(quick)), timeout=60)).status for _ in range(2)]
            assert len(started) == 1
            stopped = analyse_job(Job(Target(str(slow)), timeout=0.5))
            after = analyse_job(Job(Target(str(quick)), timeout=60)).status
            batch._Worker.close_current()
    finally:
        stop.set()
        other.join()
    assert first == ["rewritten", "rewritten"] and after == "rewritten"
    assert [d.code for d in stopped.diagnostics] == ["TIMEOUT"]
    assert len(started) == 2


def _daemonic_threaded_check(path: str, out: multiprocessing.queues.Queue) -> None:  # type: ignore[type-arg]
    from legalog.surfaces.batch import Job, analyse_job
    from legalog.surfaces.dumps import Target

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        result = analyse_job(Job(Target(path), timeout=60))
        out.put((result.status, [d.code for d in result.diagnostics]))
    except BaseException as err:  # said to the test, not lost with the process
        out.put(("raised", [repr(err)]))
    finally:
        stop.set()
        other.join()


def test_a_daemonic_threaded_process_still_gets_a_time_limited_worker(tmp_path: Path) -> None:
    """A Dask nanny's worker is a daemonic process with threads, and a daemonic process may start
    no multiprocessing child: the timed worker is a spawned interpreter, so the file is analysed
    (no INTERNAL entry, no `daemonic processes are not allowed to have children`)."""
    dump = tmp_path / "row_shift.py"
    dump.write_text(ROW_SHIFT)
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    process = context.Process(target=_daemonic_threaded_check, args=(str(dump), out), daemon=True)
    process.start()
    status, codes = out.get(timeout=120)
    process.join(timeout=30)
    assert status == "rewritten" and "INTERNAL" not in codes, codes
