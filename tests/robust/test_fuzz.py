"""Mutated real dumps through every command: the guarantees of issue 12 as properties.

`check` runs once, as a real process, over a folder of mutants (one process for all of them:
a process per file would spend the budget starting Python); `fix`, `why`, `query` and `facts`
run in-process through `legalog.cli.main` on a sample.  Properties: no traceback, an exit status
that means what it says (0/1/2, and never 3: no INTERNAL, no TIMEOUT), a status for every file,
no hang, nothing left behind, and every `fix` output parses (with legalog's parser, and with
PyPTO's when LEGALOG_FUZZ_ORACLE=1 and PyPTO imports: installed, or in $LEGALOG_PYPTO).

    LEGALOG_FUZZ_COUNT=2000 LEGALOG_FUZZ_SEED=7 python -m pytest tests/robust/test_fuzz.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from legalog.cli import main
from legalog.ir.errors import ParseError
from legalog.ir.parser import parse
from tests.conftest import GRAPH, REPO
from tests.oracle.pypto_oracle import pypto_folder
from tests.robust.mutate import Mutant, mutants

pytestmark = [pytest.mark.shared, pytest.mark.slow]  # the mutants are of the corpus' dumps
COUNT = int(os.environ.get("LEGALOG_FUZZ_COUNT", "200"))
SEED = int(os.environ.get("LEGALOG_FUZZ_SEED", "12"))
COMMAND_SAMPLE = max(10, COUNT // 20)  # mutants also driven through fix, why, query and facts
# generous: a mutant of a corpus dump takes well under a second; only a hang comes near
PER_FILE_LIMIT, WHOLE_RUN_LIMIT = 60, 900


@pytest.fixture(scope="module")
def corpus_mutants() -> list[Mutant]:
    seeds = {p.name: p.read_text(encoding="utf-8") for p in sorted(GRAPH.glob("*.py"))}
    if not seeds:
        pytest.fail(f"the PyPTO corpus is missing: expected dumps under {GRAPH}")
    return mutants(seeds, COUNT, SEED)


def _write(folder: Path, batch: list[Mutant]) -> None:
    folder.mkdir()
    for m in batch:
        (folder / m.name).write_bytes(m.data)


def _exit_meaning(files: list[dict]) -> int:
    if any(f["status"] == "error" for f in files):
        return 2
    return 1 if any(d["severity"] == "error" for f in files for d in f["diagnostics"]) else 0


def _check_json(*args: str) -> subprocess.CompletedProcess[str]:
    """`legalog check ARGS --format json --no-cache` as a real process; it never prints a traceback."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "legalog", "check", *args, "--format", "json", "--no-cache"],
        check=False,
        capture_output=True,
        text=True,
        timeout=WHOLE_RUN_LIMIT,
        env=env,
    )
    assert "Traceback" not in result.stderr + result.stdout
    return result


def test_check_over_mutants(corpus_mutants: list[Mutant], tmp_path: Path) -> None:
    folder = tmp_path / "mutants"
    _write(folder, corpus_mutants)
    result = _check_json(str(folder), "--timeout", str(PER_FILE_LIMIT), "--all-dumps")
    files = json.loads(result.stdout)["files"]
    assert sorted(Path(f["path"]).name for f in files) == sorted(m.name for m in corpus_mutants)
    failed = [
        (Path(f["path"]).name, d["message"])
        for f in files
        for d in f["diagnostics"]
        if d["code"] in ("INTERNAL", "TIMEOUT")
    ]
    assert not failed, f"{len(failed)} of {len(files)} mutants broke legalog: {failed[:5]}"
    assert result.returncode == _exit_meaning(files)
    for f in files:
        codes = [d["code"] for d in f["diagnostics"]]
        assert (f["status"] == "error") == ("PARSE" in codes), f
        if f["status"] == "error":
            assert all(d["line"] >= 1 and d["column"] >= 1 for d in f["diagnostics"])
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        m.name for m in corpus_mutants
    )  # nothing left behind


def test_check_over_mutants_beside_what_is_not_a_dump(corpus_mutants: list[Mutant], tmp_path: Path) -> None:
    """Mutants in a folder that also holds what a careless CI hands over (issue 36's kinds): a
    FIFO, a link to /dev/zero, a link to nothing, a 250-byte name and a name that is not UTF-8,
    the first two named on the command line too.  No traceback, no hang, every real file
    checked under its name (U+FFFD for bytes that are not text), each non-file named an error
    entry, the link to nothing not a dump, and the folder left as it was."""
    sample = corpus_mutants[:20]
    folder = tmp_path / "mixed"
    _write(folder, sample)
    (folder / ("l" * 247 + ".py")).write_bytes(sample[0].data)
    (folder / os.fsdecode(b"odd\xff\xfe.py")).write_bytes(sample[1].data)
    os.mkfifo(folder / "pipe.py")
    (folder / "zero.py").symlink_to("/dev/zero")
    (folder / "gone.py").symlink_to(tmp_path / "nowhere.py")
    before = sorted(os.listdir(folder))
    not_files = [str(folder / n) for n in ("pipe.py", "zero.py")]
    result = _check_json(str(folder), *not_files)
    files = {Path(f["path"]).name: f for f in json.loads(result.stdout)["files"]}
    regular = {m.name for m in sample} | {"l" * 247 + ".py", "odd\ufffd\ufffd.py"}
    assert set(files) == regular | {"pipe.py", "zero.py"}
    for name in ("pipe.py", "zero.py"):
        (diagnostic,) = files[name]["diagnostics"]
        assert files[name]["status"] == "error" and diagnostic["code"] == "PARSE", files[name]
    assert not [
        n for n in regular if any(d["code"] in ("INTERNAL", "TIMEOUT") for d in files[n]["diagnostics"])
    ]
    assert result.returncode == 2
    assert sorted(os.listdir(folder)) == before


def _function_and_var(data: bytes) -> tuple[str, str]:
    """A Graph function of the mutant and the first name it binds (or placeholders)."""
    try:
        program = parse(data.decode("utf-8"))
    except (ParseError, UnicodeDecodeError):
        return "main", "x"
    for fn in program.functions:
        for stmt in fn.body:
            if getattr(stmt, "targets", ()):
                return fn.name, stmt.targets[0]  # type: ignore[attr-defined]
    return program.functions[0].name, "x"


def _pypto_parse():  # type: ignore[no-untyped-def]
    if os.environ.get("LEGALOG_FUZZ_ORACLE") != "1":
        return None
    if (folder := pypto_folder()) is None:
        return None
    sys.path.insert(0, str(folder))
    try:
        import pypto.language as pl  # type: ignore[import-not-found]
    except ImportError:
        return None
    return pl.parse


def test_every_command_over_mutants(
    corpus_mutants: list[Mutant],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEGALOG_NO_CACHE", "1")
    pypto_parse = _pypto_parse()
    sample = corpus_mutants[:: max(1, len(corpus_mutants) // COMMAND_SAMPLE)][:COMMAND_SAMPLE]
    folder = tmp_path / "in"
    _write(folder, sample)
    outputs = tmp_path / "out"
    outputs.mkdir()
    for m in sample:
        path = str(folder / m.name)
        fixed, facts = outputs / m.name, outputs / f"{m.name}.facts"
        function, var = _function_and_var(m.data)
        runs = {
            "fix": (["fix", path, "-o", str(fixed)], {0, 1, 2}),
            "why": (["why", path, "--function", function, "--var", var], {0, 1, 2}),
            "query": (["query", path, "graph(G)"], {0, 2}),
            "facts": (["facts", path, "-o", str(facts)], {0, 2}),
        }
        for command, (argv, allowed) in runs.items():
            code = main(argv)
            captured = capsys.readouterr()
            assert "Traceback" not in captured.out + captured.err, (m.name, command)
            assert code in allowed, (m.name, command, code, captured.err[-500:])
        if fixed.exists():
            text = fixed.read_text(encoding="utf-8")
            parse(text, str(fixed))  # raises on an unreadable output
            if pypto_parse is not None and _pypto_reads(pypto_parse, m.data):
                pypto_parse(text)
    # every output is whole: no temporary files or staging folders beside them
    assert not [p.name for p in outputs.iterdir() if p.name.startswith(".")]


def _pypto_reads(pypto_parse, data: bytes) -> bool:  # type: ignore[no-untyped-def]
    try:
        pypto_parse(data.decode("utf-8"))
    except Exception:  # PyPTO refuses the mutant itself: nothing to compare
        return False
    return True
