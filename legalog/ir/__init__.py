"""The IR room: the model, the reader (`parse`) and the printer (`print_program`).

This module only re-exports them, on first use (PEP 562): importing one light module of the
room (`legalog.ir.errors`, which every surface reads) must not load the model, the reader and
the printer with it (issue 19: a one-file `check` answered from the cache loads none of them)."""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "ParseError": "errors",
    "parse": "parser",
    "parse_file": "parser",
    "print_expr": "printer",
    "print_function": "printer",
    "print_program": "printer",
    "print_type": "printer",
}


def __getattr__(name: str) -> Any:
    """`legalog.ir.X`: the reader's and printer's names above, else the model's."""
    module = importlib.import_module(f"legalog.ir.{_HOME.get(name, 'model')}")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'legalog.ir' has no attribute {name!r}") from None
