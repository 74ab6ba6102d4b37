"""The one error a reader raises: where the input is wrong, and why, in one line."""

from __future__ import annotations


class ParseError(Exception):
    """Unreadable or unsupported input, located at path:line:col (1-based)."""

    def __init__(self, reason: str, path: str | None = None, line: int = 1, col: int = 1) -> None:
        self.reason = reason
        self.path = path
        self.line = line
        self.col = col
        super().__init__(f"{path or '<input>'}:{line}:{col}: {reason}")
