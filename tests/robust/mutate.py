"""A seeded mutator over real PyPTO dumps: the kinds of damage issue 12's users did by hand.

Each mutation takes the text of a dump and a `random.Random` and returns new bytes; together
they cover frontend-style rebinding, arity changes, unknown callees, recursion, huge and
out-of-range integers, missing annotations, non-ASCII names, a BOM, bad bytes, truncation and
broken structure; and issue 22's kinds: split decorators, alias chains, many launches, wide loop
bounds, odd headers, statements Python's compiler refuses, non-integer core_num, and long rename
or derivation chains inside a Graph.  Deterministic: the same seed gives the same mutants.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

Mutation = Callable[[str, random.Random], bytes]

_CALL = re.compile(r"\bself\.(\w+)\(")
_LAUNCH = re.compile(r"\bpl\.(?:spmd_)?submit\(self\.(\w+)")
_DEF = re.compile(r"^\s*def (\w+)\(", re.MULTILINE)
_INT = re.compile(r"(?<![\w.])\d+(?![\w.])")
_ANNOTATED = re.compile(r"^(\s*\w+): [^=]+ = ", re.MULTILINE)
_SSA = re.compile(r"__(?:ssa|tmp|idx|iter|rv|phi)_v\d+")
_NAME = re.compile(r"^\s*(\w+): ", re.MULTILINE)


def _body_lines(text: str) -> list[int]:
    """Indices of statement lines inside functions (indented twice or more)."""
    return [i for i, line in enumerate(text.splitlines()) if line.startswith("        ") and line.strip()]


def _edit_line(text: str, rng: random.Random, edit: Callable[[str], str | None]) -> bytes:
    lines = text.splitlines(keepends=True)
    candidates = [i for i in _body_lines(text) if edit(lines[i]) is not None]
    if candidates:
        i = rng.choice(candidates)
        lines[i] = edit(lines[i]) or lines[i]
    return "".join(lines).encode()


def drop_line(text: str, rng: random.Random) -> bytes:
    lines = text.splitlines(keepends=True)
    if body := _body_lines(text):
        del lines[rng.choice(body)]
    return "".join(lines).encode()


def duplicate_line(text: str, rng: random.Random) -> bytes:
    """A name bound twice (frontend style), a launch tuple rebound by a second launch..."""
    lines = text.splitlines(keepends=True)
    if body := _body_lines(text):
        i = rng.choice(body)
        lines.insert(i + rng.choice((1, 2)), lines[i])
    return "".join(lines).encode()


def swap_lines(text: str, rng: random.Random) -> bytes:
    lines = text.splitlines(keepends=True)
    body = _body_lines(text)
    if len(body) > 1:
        i, j = rng.sample(body, 2)
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines).encode()


def _args_span(line: str, start: int) -> tuple[int, int] | None:
    """[open paren + 1, matching close paren) of the call whose `(` is at `start`."""
    depth = 0
    for k in range(start, len(line)):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(line[k], 0)
        if depth == 0:
            return start + 1, k
    return None


def _split_args(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in inner:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current] if current.strip() else parts


def _with_args(line: str, change: Callable[[list[str]], list[str]]) -> str | None:
    m = _CALL.search(line) or re.search(r"\bpl\.(?:spmd_)?submit\(", line)
    if m is None or (span := _args_span(line, m.end() - 1)) is None:
        return None
    args = _split_args(line[span[0] : span[1]])
    positional = [a for a in args if "=" not in a.split("(")[0]]
    keywords = args[len(positional) :]
    if not positional:
        return None
    return line[: span[0]] + ",".join(change(positional) + keywords) + line[span[1] :]


def drop_argument(text: str, rng: random.Random) -> bytes:
    return _edit_line(text, rng, lambda line: _with_args(line, lambda a: a[:-1]))


def extra_argument(text: str, rng: random.Random) -> bytes:
    return _edit_line(text, rng, lambda line: _with_args(line, lambda a: a + [a[rng.randrange(len(a))]]))


def recurse(text: str, rng: random.Random) -> bytes:
    """A call or launch of another function of the program (the one it sits in, or a cycle, perhaps)."""
    names = _DEF.findall(text)

    def retarget(line: str) -> str | None:
        m = _CALL.search(line) or _LAUNCH.search(line)
        if m is None or not names:
            return None
        return line[: m.start(1)] + rng.choice(names) + line[m.end(1) :]

    return _edit_line(text, rng, retarget)


def unknown_callee(text: str, rng: random.Random) -> bytes:
    return _edit_line(
        text,
        rng,
        lambda line: _CALL.sub("self.not_in_program(", line, count=1) if _CALL.search(line) else None,
    )


def huge_integer(text: str, rng: random.Random) -> bytes:
    value = rng.choice(
        (
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "(2 ** 64)",
            "(10 ** 5000)",
            "9" * 4400,
            "(4611686018427387904 * 4)",
            "0",
            "-1",
        )
    )
    return _edit_line(text, rng, lambda line: _INT.sub(value, line, count=1) if _INT.search(line) else None)


def strip_annotation(text: str, rng: random.Random) -> bytes:
    return _edit_line(
        text, rng, lambda line: _ANNOTATED.sub(r"\1 = ", line, count=1) if _ANNOTATED.match(line) else None
    )


def non_ascii_name(text: str, rng: random.Random) -> bytes:
    names = sorted(set(_NAME.findall(text)))
    if not names:
        return text.encode()
    name = rng.choice(names)
    return re.sub(rf"\b{re.escape(name)}\b", name + rng.choice(("_é", "ñandú", "_变量")), text).encode()


def frontend_names(text: str, rng: random.Random) -> bytes:
    """SSA suffixes gone, as in `00_frontend.py`: every rebinding shares one name."""
    return _SSA.sub("", text).encode()


def byte_order_mark(text: str, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + text.encode()


def truncate(text: str, rng: random.Random) -> bytes:
    data = text.encode()
    return data[: rng.randrange(len(data))] if data else data


def bad_bytes(text: str, rng: random.Random) -> bytes:
    data = bytearray(text.encode())
    data.insert(rng.randrange(len(data) + 1), rng.choice((0x00, 0xFF, 0xC3)))
    return bytes(data)


def function_type(text: str, rng: random.Random) -> bytes:
    kinds = ("Graph", "Orchestration", "InCore", "AIV", "Opaque")

    def swap(m: re.Match[str]) -> str:
        return f"FunctionType.{rng.choice(kinds)}" if rng.random() < 0.3 else m[0]

    return re.sub(r"FunctionType\.(\w+)", swap, text).encode()


def core_num(text: str, rng: random.Random) -> bytes:
    value = rng.choice(("0", "-2", "n", "(2 ** 63)", "k - 1", "2.5", "k * 1.5"))
    return re.sub(r"core_num=[^,)]+", f"core_num={value}", text, count=1).encode()


def dedent(text: str, rng: random.Random) -> bytes:
    return _edit_line(text, rng, lambda line: line[rng.randrange(1, 8) :])


_DECORATOR = re.compile(r"^(\s*)@(pl\.function\(.*\))$", re.MULTILINE)
_SCALAR = re.compile(r"^(\s+)(\w+): (pl\.Scalar\[pl\.\w+\]) = .*$", re.MULTILINE)
_LAUNCH_LINE = re.compile(r"^\s+\w+: .*= (?:pl\.(?:spmd_)?submit\(|self\.\w+\().*$", re.MULTILINE)
_RANGE = re.compile(r"pl\.range\((\d+)")
_HEADER_LINE = re.compile(r"\A# pypto\.program(?::[^\n]*)?\n")


def split_decorator(text: str, rng: random.Random) -> bytes:
    """`@pl.function(...)` across lines (issue 22): `@ \\` + newline, or `@(` ... `)`."""
    found = list(_DECORATOR.finditer(text))
    if not found:
        return text.encode()
    m = rng.choice(found)
    ind, call = m.group(1), m.group(2)
    form = rng.choice(
        (
            f"{ind}@ \\\n{ind}{call}",
            f"{ind}@(\n{ind}    {call}\n{ind})",
            f"{ind}@(  # split\n{ind}    {call})",
            f"{ind}@   {call}",
        )
    )
    return (text[: m.start()] + form + text[m.end() :]).encode()


def alias_chain(text: str, rng: random.Random) -> bytes:
    """A scalar renamed 20 to 400 times before its uses (issue 22: 350 aliases broke Z3's term)."""
    found = list(_SCALAR.finditer(text))
    if not found:
        return text.encode()
    m = rng.choice(found)
    ind, name, ann = m.groups()
    count = rng.choice((20, 120, 400))
    chain = "".join(
        f"\n{ind}{name}_al{i}: {ann} = {name if i == 1 else f'{name}_al{i - 1}'}" for i in range(1, count + 1)
    )
    rest = re.sub(rf"\b{re.escape(name)}\b(?!_al)", f"{name}_al{count}", text[m.end() :])
    return (text[: m.end()] + chain + rest).encode()


_GRAPH_DEF = re.compile(
    r"^(\s*)@pl\.function\(type=pl\.FunctionType\.Graph\b.*\n\s*def \w+\(.*\n", re.MULTILINE
)
_BINDING = re.compile(r"^(\s+)(\w+): (pl\.(?:Scalar|Tensor)\[[^=]*\]) = .*$", re.MULTILINE)
GRAPH_CHAIN_LINKS = (
    350,
    1200,
)  # past the ~300 links that once ended in RecursionError; 10,000: tests/robust/test_graph_chains.py


def graph_alias_chain(text: str, rng: random.Random) -> bytes:
    """A scalar or tensor inside a Graph renamed 350 or 1,200 times, or a scalar derived as often
    (issue 22: a Graph hoist chain past 300 links raised RecursionError; 10,000 took 440 s)."""
    graphs = list(_GRAPH_DEF.finditer(text))
    if not graphs:
        return text.encode()
    g = rng.choice(graphs)
    following = re.compile(rf"^{g.group(1)}@", re.MULTILINE).search(text, g.end())
    end = following.start() if following else len(text)
    body = text[g.end() : end]
    found = list(_BINDING.finditer(body))
    if not found:
        return text.encode()
    b = rng.choice(found)
    ind, name, ann = b.groups()
    step = " + 1" if ann.startswith("pl.Scalar") and rng.random() < 0.3 else ""
    count = rng.choice(GRAPH_CHAIN_LINKS)
    chain = "".join(
        f"\n{ind}{name}_gc{i}: {ann} = {name if i == 1 else f'{name}_gc{i - 1}'}{step}"
        for i in range(1, count + 1)
    )
    rest = re.sub(rf"\b{re.escape(name)}\b(?!_gc)", f"{name}_gc{count}", body[b.end() :])
    return (text[: g.end()] + body[: b.end()] + chain + rest + text[end:]).encode()


def many_launches(text: str, rng: random.Random) -> bytes:
    """One launch or call repeated 10 to 60 times (issue 22: thousands of launches)."""
    found = list(_LAUNCH_LINE.finditer(text))
    if not found:
        return text.encode()
    m = rng.choice(found)
    return (text[: m.end()] + ("\n" + m.group(0)) * rng.randrange(10, 60) + text[m.end() :]).encode()


def wide_bound(text: str, rng: random.Random) -> bytes:
    """A loop bound past 32 bits (issue 22: one bound of 2**31 sent a program to pyDatalog)."""
    value = rng.choice(("2147483648", "4294967296", "1099511627776", "9223372036854775807"))
    return _RANGE.sub(f"pl.range({value}", text, count=1).encode()


def odd_header(text: str, rng: random.Random) -> bytes:
    """A header naming another class, none, a bare one, or module-level text before the class."""
    header = rng.choice(
        (
            "# pypto.program: SomethingElse\n",
            "",
            "# pypto.program\n",
            "# pypto.program: X\n# NOTE: hand-edited\nBLOCK = 128\n",
        )
    )
    return _HEADER_LINE.sub(lambda _m: header, text, count=1).encode()


def refused_statement(text: str, rng: random.Random) -> bytes:
    """What Python's compiler refuses in a body (issue 22): `break`, `continue`, `await`, `yield`."""
    stmt = rng.choice(("break", "continue", "x_await = await y", "x_yield = yield 1", "nonlocal q"))
    lines = text.splitlines(keepends=True)
    if body := _body_lines(text):
        i = rng.choice(body)
        lines.insert(i, _leading(lines[i]) + stmt + "\n")
    return "".join(lines).encode()


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


MUTATIONS: tuple[Mutation, ...] = (
    drop_line,
    duplicate_line,
    swap_lines,
    drop_argument,
    extra_argument,
    recurse,
    unknown_callee,
    huge_integer,
    strip_annotation,
    non_ascii_name,
    frontend_names,
    byte_order_mark,
    truncate,
    bad_bytes,
    function_type,
    core_num,
    dedent,
    split_decorator,
    alias_chain,
    many_launches,
    wide_bound,
    odd_header,
    refused_statement,
    graph_alias_chain,
)


@dataclass(frozen=True)
class Mutant:
    name: str  # `<seed dump>.<mutation>.<n>.py`
    data: bytes
    seed: str
    mutations: tuple[str, ...]


def mutants(seeds: dict[str, str], count: int, seed: int) -> list[Mutant]:
    """`count` mutants of the seed dumps, one to three mutations each."""
    rng = random.Random(seed)
    out = []
    names = sorted(seeds)
    for n in range(count):
        base = rng.choice(names)
        text = seeds[base]
        applied = rng.sample(MUTATIONS, rng.choice((1, 1, 2, 3)))
        data = text.encode()
        for mutation in applied:
            data = mutation(data.decode("utf-8", "replace"), rng)
        label = "+".join(m.__name__ for m in applied)
        out.append(
            Mutant(
                f"{base.removesuffix('.py')}.{label}.{n}.py", data, base, tuple(m.__name__ for m in applied)
            )
        )
    return out
