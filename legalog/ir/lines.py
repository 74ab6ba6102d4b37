"""Lines as Python's reader numbers them: shared by the reader and by every surface that quotes a
dump (a text report imports this alone, not the reader and the model behind it)."""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def source_lines(text: str) -> list[str]:
    """The lines of `text` with their ends, numbered as `ast` numbers them.  Not `str.splitlines`,
    which also breaks at \\x0b \\x0c \\x1c-\\x1e \\x85 \\u2028 \\u2029: a form feed in a comment
    would shift every later line, and with it every function's span."""
    return _LINE.findall(text)
