"""The IR room: the model, the reader (`parse`) and the printer (`print_program`).

This module only re-exports them (hence the F401/F403 waivers)."""

from legalog.ir.errors import ParseError  # noqa: F401
from legalog.ir.model import *  # noqa: F403 - the model is this room's public surface
from legalog.ir.parser import parse, parse_file  # noqa: F401
from legalog.ir.printer import print_expr, print_function, print_program, print_type  # noqa: F401
