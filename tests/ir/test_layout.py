"""`fix` keeps every byte it does not change (issue 11): lines end where Python's tokenizer ends
them, comments keep their own bytes, and a reprinted function takes its dump's line break and
indent unit.

The differential property: for a dump d and a variant V that adds such bytes (form feeds and the
other characters `str.splitlines` breaks at, inside comments; tabs for indentation; CRLF line
breaks), `fix(V(d)) == V(fix(d))`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from legalog.cli import main as legalog_main
from legalog.ir.parser import parse, source_lines
from legalog.pipeline import analyze
from tests.conftest import CORPUS, FUZZ
from tests.graph.test_cases import CASES

FORMFEED_DUMP = FUZZ / "fix_formfeed_comment_corrupts_output.py"
# Where str.splitlines breaks a line and Python's tokenizer does not.
ODD_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
# Small dumps that fix rewrites (Graph hoists, SPMD guards, comments in changed functions) and one it leaves.
DUMPS = (
    FORMFEED_DUMP,
    CORPUS / "graph" / "a01_row_shift.graph_input.py",
    CORPUS / "graph" / "a04_weight_window.graph_input.py",
    CORPUS / "graph" / "a09_orch_spmd_counts.spmd_input.py",
    CORPUS / "graph" / "a14_manual_graph_barrier.spmd_input.py",
    CASES / "a08_rename_chain_collapses.py",
    CASES / "c11_create_in_manual_scope_hoisted.py",
    CASES / "b08_iv_offset_view_kept.py",
)
_COMMENT = re.compile(r"^(?P<indent>[ \t]*)#(?P<text>[^\r\n]*)", re.MULTILINE)


def fix(text: str) -> str:
    fixed = analyze(text, "dump.py").legalized_text()
    assert fixed is not None, "fix rejected the dump"
    return fixed


@cache
def fixed_dump(path: Path) -> tuple[str, str]:
    text = path.read_bytes().decode("utf-8")
    return text, fix(text)


def odd_bytes_in_comments(char: str) -> Callable[[str], str]:
    """Every full-line comment gets `char` right after its `#` and at its end."""
    return lambda text: _COMMENT.sub(lambda m: f"{m['indent']}#{char}{m['text']}{char}", text)


def tabs(text: str) -> str:
    """Each 4 leading spaces of a line become a tab."""
    return re.sub(r"^(?:    )+", lambda m: "\t" * (len(m.group()) // 4), text, flags=re.MULTILINE)


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def test_source_lines_break_only_where_python_does() -> None:
    text = "a\x0cb\x85c\u2028d\ne\r\nf\rg"
    assert source_lines(text) == ["a\x0cb\x85c\u2028d\n", "e\r\n", "f\r", "g"]
    assert "".join(source_lines(text)) == text


@pytest.mark.shared
def test_formfeed_reproducer_keeps_every_function_once(tmp_path: Path) -> None:
    out = tmp_path / "out.py"
    assert legalog_main(["fix", str(FORMFEED_DUMP), "-o", str(out)]) == 0
    written = out.read_bytes().decode("utf-8")
    original = FORMFEED_DUMP.read_bytes().decode("utf-8")
    # The kernel, untouched, is byte-for-byte its input (its comment's form feed included) ...
    kernel = original[
        original.index("    # a comment") : original.index("    @pl.function(type=pl.FunctionType.Graph)")
    ]
    assert written.count(kernel) == 1
    # ... and each function keeps its one `return`.
    assert [f.name for f in parse(written).functions] == ["shift_incore_0", "shift", "main"]
    assert written.count("        return dst\n") == 3
    without = original.replace("\x0c", "")
    assert written == fix(without).replace("form feed  inside", "form feed \x0c inside")


@pytest.mark.shared
def test_tab_indented_dump_comes_out_with_tabs_only() -> None:
    text, fixed = fixed_dump(CORPUS / "graph" / "a01_row_shift.graph_input.py")
    out = fix(tabs(text))
    ast.parse(out)  # no TabError: one indent unit throughout
    indents = {m.group() for m in re.finditer(r"^[ \t]+", out, flags=re.MULTILINE)}
    assert indents and all(set(i) == {"\t"} for i in indents), sorted(indents)
    assert out == tabs(fixed)


@pytest.mark.shared
def test_crlf_dump_keeps_crlf_in_reprinted_functions() -> None:
    text, fixed = fixed_dump(CORPUS / "graph" / "a01_row_shift.graph_input.py")
    out = fix(crlf(text))
    assert "\n" not in out.replace("\r\n", "")
    assert out == crlf(fixed)


VARIANTS = st.one_of(
    st.sampled_from(ODD_BREAKS).map(odd_bytes_in_comments),
    st.just(tabs),
    st.just(crlf),
)


@pytest.mark.shared
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DUMPS), st.lists(VARIANTS, min_size=1, max_size=3, unique=True))
def test_fix_of_a_variant_is_the_variant_of_fix(dump: Path, variants: list[Callable[[str], str]]) -> None:
    text, fixed = fixed_dump(dump)

    def variant(t: str) -> str:
        for v in variants:
            t = v(t)
        return t

    assert fix(variant(text)) == variant(fixed)


@pytest.mark.parametrize("char", ODD_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_reprinted_functions_comment_keeps_its_bytes(char: str) -> None:
    """A comment inside a function fix changes is reprinted with it, byte for byte."""
    text, fixed = fixed_dump(CASES / "a08_rename_chain_collapses.py")
    assert "        # note: the task reads the root parameter" in fixed  # in `layer`, which fix reprints
    assert fix(odd_bytes_in_comments(char)(text)) == odd_bytes_in_comments(char)(fixed)


@pytest.mark.shared
@pytest.mark.parametrize("variant", [crlf, odd_bytes_in_comments("\x0c")], ids=["crlf", "formfeed"])
def test_fix_diff_shows_only_what_fix_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: Callable[[str], str]
) -> None:
    def diff_lines(text: str) -> list[str]:
        dump = tmp_path / "dump.py"
        dump.write_bytes(text.encode("utf-8"))
        assert legalog_main(["fix", str(dump), "--diff"]) == 1  # a change is pending
        return [line for line in capsys.readouterr().out.splitlines(True) if line[:1] in "+-"]

    text = (CORPUS / "graph" / "a01_row_shift.graph_input.py").read_bytes().decode("utf-8")
    plain, varied = diff_lines(text), diff_lines(variant(text))
    assert len(varied) == len(plain) > 2
