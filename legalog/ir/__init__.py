"""The IR room: the model, the reader (`parse`) and the printer (`print_program`)."""

from legalog.ir.errors import ParseError
from legalog.ir.model import *  # noqa: F403 - the model is this room's public surface
from legalog.ir.parser import parse, parse_file
from legalog.ir.printer import print_expr, print_function, print_program, print_type
