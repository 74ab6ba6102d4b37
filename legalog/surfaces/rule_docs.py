"""Every code's documentation as a user reads it (`legalog rule CODE`), written once.

The meaning, the runtime's reason and what to do come from `legalog.analyzer.codes`; this module
adds a minimal before/after in printed IR (fragments of `python_print` output: SSA suffixes and
MemRefs left out, `...` for what does not matter).  The same text is `legalog rule`'s output,
SARIF's rule `help`, and the README's code table (`readme_table`; a test holds the README to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from legalog.analyzer.codes import CODES, CodeInfo

_G = "    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
_O = "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
_T = "pl.Tensor[[128, 128], pl.FP32]"
_BIG = "pl.Tensor[[1024, 128], pl.FP32]"
_IDX = "pl.Scalar[pl.INDEX]"


@dataclass(frozen=True, slots=True)
class Example:
    before: str
    after: str


def _graph(params: str, *body: str) -> str:
    return _G + f"    def g(self, {params}) -> {_T}:\n" + "".join(f"        {line}\n" for line in body)


EXAMPLES: dict[str, Example] = {
    "PARSE": Example("x = (\n", "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    ...\n"),
    "INTERNAL": Example("legalog: INTERNAL KeyError: 'layer/win' (at legalog/analyzer/graph.py:111 in graph_decisions)",
                        "# report it: the command, `legalog --version` and the dump; `--debug` shows the traceback"),
    "TIMEOUT": Example("legalog check --timeout 5 huge_dump.py",
                       "legalog check --timeout 600 huge_dump.py   # or --timeout 0: no limit"),
    "IR401": Example(f"        y = self.g(x, n, x)   # g(self, x: {_T}, n: {_IDX})",
                     "        y = self.g(x, n)"),
    "IR402": Example("        y = self.not_defined(x)", "        y = self.k(x)   # k is a @pl.function of the program"),
    "IR403": Example(_graph(f"x: {_T}, x: {_T}", "..."), _graph(f"x: {_T}, w: {_T}", "...")),
    "IR404": Example("        base: pl.Scalar[pl.INDEX] = idx * 18446744073709551616",
                     "        base: pl.Scalar[pl.INDEX] = idx * 4096"),
    "IR405": Example(_O + f"    def main(self, x: {_T}) -> {_T}:\n        y = self.main(x)\n",
                     _O + f"    def main(self, x: {_T}) -> {_T}:\n        for i in pl.range(4):\n            ... = self.k(x, i)\n"),
    "IR406": Example(_graph(f"x: {_T}, idx: {_IDX}", "base = idx * 128", "... = self.k(x, base, ...)"),
                     _graph(f"x: {_T}, idx: {_IDX}", f"base: {_IDX} = idx * 128", "... = self.k(x, base, ...)")),
    "IR407": Example("        base: pl.Scalar[pl.INDEX] = idx * 128\n        break\n        y = self.k(x, base, ...)",
                     "        base: pl.Scalar[pl.INDEX] = idx * 128\n        y = self.k(x, base, ...)"),
    "IR408": Example("        n = await self.k(x)\n        m = yield n",
                     "        n: pl.Scalar[pl.INDEX] = pl.tensor.read(x, [0])"),
    "IR409": Example("@pl.program\nclass P:\n    return 1\n    @pl.function\n    def main(self, ...): ...",
                     "@pl.program\nclass P:\n    @pl.function\n    def main(self, ...): ..."),
    "IR410": Example("# pypto.program: Other\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    ...",
                     "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    ..."),
    "GB101": Example("legalog check --runtime tensormap_and_ringbuffer dump.py   # dump.py has a Graph function",
                     "legalog check --runtime host_build_graph dump.py"),
    "GB102": Example(_graph(f"n: {_IDX}", "..."), _graph(f"x: {_T}, n: {_IDX}", "...")),
    "GB103": Example(_graph(f"t0: {_T}, t1: {_T}, ..., t128: {_T}", "..."),
                     "# two Graphs, each with at most 128 tensor parameters"),
    "GB104": Example(_graph(f"x: {_T}, s0: {_IDX}, ..., s64: {_IDX}", "..."),
                     "# at most 64 scalar parameters, counting the ones Step A adds"),
    "GB105": Example("        y = self.g(x, attrs={\"arg_directions\": [pl.adir.input, pl.adir.output]})",
                     f"        y0: {_T} = pl.tensor.create([128, 128], dtype=pl.FP32)\n"
                     "        y = self.g(x, y0, attrs={\"arg_directions\": [pl.adir.input, pl.adir.inout]})"),
    "GB106": Example(_graph(f"x: pl.InOut[{_T}], n: pl.InOut[{_IDX}]", "..."),
                     _graph(f"x: pl.InOut[{_T}], n: {_IDX}", "...")),
    "GB107": Example(_graph(f"x: {_T}", f"y: {_T} = self.k(x, ...)", "return y"),
                     _graph(f"x: {_T}, y: pl.InOut[{_T}]", f"y1: {_T} = self.k(x, y, ...)", "return y")),
    "GB108": Example(_graph(f"x: pl.InOut[{_T}]", "for i in pl.range(2000):", "    ... = self.k(x, i, ...)"),
                     _graph(f"x: pl.InOut[{_T}]", "for i in pl.range(1000):", "    ... = self.k(x, i, ...)")
                     + "# and a second Graph for the other 1000 launches"),
    "GB109": Example(_graph(f"x: {_T}, n: {_IDX}", "for i in pl.range(n):",
                            f"    tmp: {_T} = pl.tensor.create([128, 128], dtype=pl.FP32)"),
                     _graph(f"x: {_T}, n: {_IDX}", f"tmp: {_T} = pl.tensor.create([128, 128], dtype=pl.FP32)",
                            "for i in pl.range(n):", "    ...")),
    "GB110": Example(_graph(f"x: {_T}, n: {_IDX}", "tmp = pl.tensor.create([n, 128], dtype=pl.FP32)"),
                     _graph(f"x: {_T}, n: {_IDX}", "tmp = pl.tensor.create([128, 128], dtype=pl.FP32)")),
    "GB111": Example(_graph(f"x: {_T}", "z = pl.tensor.full([128, 128], dtype=pl.FP32, value=0.0)"),
                     _graph(f"x: {_T}, z: pl.InOut[{_T}]", "...") + "# the caller creates and fills `z`"),
    "GB112": Example(_graph(f"x: pl.InOut[{_T}], n: {_IDX}", "for i in pl.range(n):", "    ... = self.k(x, i, ...)"),
                     _graph(f"x: pl.InOut[{_T}]", "for i in pl.range(8):", "    ... = self.k(x, i, ...)")),
    "GB113": Example(_graph(f"x: {_T}, idx: {_IDX}", "... = self.k(x, idx * 64 + 8, ...)"),
                     _graph(f"x: {_T}, idx: {_IDX}", f"off: {_IDX} = idx * 64 + 8", "... = self.k(x, off, ...)")
                     + "# Step A then hoists `off` (GB201)"),
    "GB114": Example(_graph(f"x: {_T}", "... = self.h(x, ...)   # h is a Graph too"),
                     _O + "    def main(self, x: ...):\n        ... = self.g(x, ...)\n        ... = self.h(x, ...)\n"),
    "GB115": Example("        ... = self.g(x, attrs={\"arg_directions\": [pl.adir.input]})   # g(self, x, y)",
                     "        ... = self.g(x, y, attrs={\"arg_directions\": [pl.adir.input, pl.adir.inout]})"),
    "GB116": Example("        ... = pl.submit(self.g, x, deps=[t0])", "        ... = pl.submit(self.g, x)"),
    "GB117": Example("        ... = pl.submit(self.g, x, predicate=flag)",
                     "        if flag:\n            ... = pl.submit(self.g, x)"),
    "GB118": Example(_graph(f"x: {_T}, sel: {_T}", "n = pl.tensor.read(sel, [0])", "... = self.k(x, n, ...)"),
                     _graph(f"x: {_T}, n: {_IDX}", "... = self.k(x, n, ...)") + "# the caller reads `n` and passes it"),
    "GB119": Example(_graph(f"x: {_BIG}, sel: {_T}", "off = pl.tensor.read(sel, [0])",
                            "xv = pl.tensor.slice(x, [64, 128], [off, 0])"),
                     _graph(f"x: {_BIG}, xv: {_T}", "... = self.k(xv, ...)") + "# the caller takes the view"),
    "GB120": Example(_graph(f"x: {_BIG}, n: {_IDX}", "xv = pl.tensor.slice(x, [n, 128], [0, 0])"),
                     _graph(f"x: {_BIG}", "xv = pl.tensor.slice(x, [64, 128], [0, 0])")),
    "GB121": Example(_graph(f"x: {_T}, n: {_IDX}", "... = pl.spmd_submit(self.k, x, core_num=n)"),
                     _graph(f"x: {_T}", "... = pl.spmd_submit(self.k, x, core_num=8)")),
    "GB122": Example(_graph(f"x: {_T}, batch: {_IDX}", f"n: {_IDX} = batch", "... = self.k(x, n, ...)"),
                     _graph(f"x: {_T}, batch: {_IDX}", "... = self.k(x, batch, ...)")),
    "GB201": Example(_graph(f"src: {_BIG}, idx: {_IDX}", f"base: {_IDX} = idx * 128", "... = self.k(src, base, ...)")
                     + _O + "    def main(self, src: ...):\n        ... = self.g(src, i, ...)\n",
                     _graph(f"src: {_BIG}, idx: {_IDX}, base: {_IDX}", "... = self.k(src, base, ...)")
                     + _O + "    def main(self, src: ...):\n"
                     f"        base__graph_arg0: {_IDX} = i * 128\n        ... = self.g(src, i, base__graph_arg0, ...)\n"),
    "GB202": Example(_graph(f"w: {_BIG}, l: {_IDX}", "wl = pl.tensor.slice(w, [128, 128], [l * 128, 0])",
                            "... = self.k(wl, ...)"),
                     _graph(f"w: {_BIG}, l: {_IDX}, wl: {_T}", "... = self.k(wl, ...)")
                     + "# every call site: wl__graph_arg0 = pl.tensor.slice(w, [128, 128], [l * 128, 0])\n"),
    "GB203": Example(_graph(f"x: {_T}", f"tmp: {_T} = pl.tensor.create([128, 128], dtype=pl.FP32)",
                            "... = self.k(x, tmp, ...)"),
                     _graph(f"x: {_T}, tmp: pl.InOut[{_T}]", "... = self.k(x, tmp, ...)")
                     + "# every call site: tmp__graph_arg0 = pl.tensor.create([128, 128], dtype=pl.FP32)\n"),
    "GB204": Example(_graph(f"x: {_T}, batch: {_IDX}", f"n: {_IDX} = batch", "... = self.k(x, n, ...)"),
                     _graph(f"x: {_T}, batch: {_IDX}", "... = self.k(x, batch, ...)")),
    "HC201": Example(_O + "    def main(self, meta: ..., x: ...):\n        n = pl.tensor.read(meta, [0])\n"
                     "        ... = self.k(meta, x, ...)\n",
                     _O + "    def main(self, meta: ..., meta_dev: ..., x: ...):\n        n = pl.tensor.read(meta, [0])\n"
                     "        ... = self.k(meta_dev, x, ...)\n"),
    "HC202": Example(_O + "    def main(self, x: ...):\n        y = self.k(x, ...)\n        n = pl.tensor.read(y, [0])\n",
                     _O + "    def main(self, x: ...):\n        y = self.k(x, ...)\n        ... = self.k2(y, ...)   # the kernel reads it\n"),
    "FE401": Example(_O + "    def main(self, x: ..., n: pl.Scalar[pl.INDEX]):\n"
                     "        for i in pl.range(n):\n            off = i * 128\n        y = self.k(x, off, ...)   # which `off`?\n",
                     _O + "    def main(self, x: ..., n: pl.Scalar[pl.INDEX]):\n        off = 0\n"
                     "        for i in pl.range(n):\n            off = i * 128\n        y = self.k(x, off, ...)\n"),
    "SP301": Example("        y = pl.spmd_submit(self.k, x, core_num=n)   # k's Out is runtime-allocated",
                     f"        y0: {_T} = pl.tensor.create([128, 128], dtype=pl.FP32)\n"
                     "        y = pl.spmd_submit(self.k, x, y0, core_num=n)"),
    "SP302": Example("        y = pl.spmd_submit(self.k, x, core_num=n)\n        return y",
                     "        y1 = pl.spmd_submit(self.k, x, y, core_num=n)   # y: a pl.Out parameter\n        return y"),
    "SP303": Example("        y = pl.spmd_submit(self.k, x, y0, core_num=0)",
                     "        y = pl.spmd_submit(self.k, x, y0, core_num=1)"),
    "SP304": Example("        y = pl.spmd_submit(self.k, x, y0, core_num=2.5)",
                     "        y = pl.spmd_submit(self.k, x, y0, core_num=2)"),
    "SP310": Example("        y1 = pl.spmd_submit(self.k, x, y, core_num=n)",
                     "        if n > 0:\n            y1 = pl.spmd_submit(self.k, x, y, core_num=n)\n"
                     "            y2 = pl.yield_(y1)\n        else:\n            y2 = pl.yield_(y)"),
}  # fmt: skip


def rule_text(code: str) -> str:
    """`legalog rule CODE`: what it means, why the runtime cares, before/after, what to do."""
    info = CODES[code]
    example = EXAMPLES[code]
    fix = " [*] fixed by `legalog fix`" if info.severity == "info" else ""
    return "\n".join([
        f"{info.code} ({info.name}, {info.severity}){fix}",
        "",
        f"What it means: {info.title}.",
        f"Why the runtime cares: {info.note}.",
        f"What to do instead: {info.help}.",
        "",
        "Before:",
        _indent(example.before),
        "After:",
        _indent(example.after),
    ])  # fmt: skip


def rule_markdown(code: str) -> str:
    """The same documentation for SARIF's `help.markdown`."""
    info = CODES[code]
    example = EXAMPLES[code]
    return (f"**{info.code}** ({info.name}): {info.title}.\n\n**Why the runtime cares:** {info.note}.\n\n"
            f"**What to do instead:** {info.help}.\n\n**Before:**\n\n```python\n{example.before.rstrip()}\n```\n\n"
            f"**After:**\n\n```python\n{example.after.rstrip()}\n```\n")  # fmt: skip


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in text.rstrip("\n").splitlines())


def all_rules() -> str:
    return "\n\n".join(rule_text(code) for code in CODES)


def readme_table() -> str:
    """The README's code table: one row per code, from the same text."""
    rows = ["| code | name | severity | meaning | what to do instead |", "|---|---|---|---|---|"]
    rows += [f"| {i.code} | {i.name} | {_severity(i)} | {_cell(i.title)} | {_cell(i.help)} |" for i in CODES.values()]
    return "\n".join(rows)


def _severity(info: CodeInfo) -> str:
    return "info `[*]`" if info.severity == "info" else info.severity


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
