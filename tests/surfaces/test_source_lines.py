"""The text report quotes the line a diagnostic names, numbered as the parser numbers lines."""

from __future__ import annotations

from pathlib import Path

from legalog.surfaces.render import source_lines


def test_lines_break_where_pythons_tokenizer_breaks_them(tmp_path: Path) -> None:
    # \x0c, \x0b, \x1c and \u2028 end a line for str.splitlines but not for Python: every later
    # diagnostic would quote the line above its own.
    dump = tmp_path / "d.py"
    dump.write_bytes("# a\x0cb\x0bc\x1cd\u2028e\nsecond\r\nthird\rfourth".encode())
    lines = source_lines(str(dump))
    assert lines == {1: "# a\x0cb\x0bc\x1cd\u2028e", 2: "second", 3: "third", 4: "fourth"}


def test_an_unreadable_file_quotes_nothing(tmp_path: Path) -> None:
    assert source_lines(str(tmp_path / "missing.py")) == {}
