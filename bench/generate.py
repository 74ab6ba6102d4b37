"""Synthetic Graph-heavy programs in PyPTO's printed format (the `45_after_Simplify` dump style).

Modelled on the real dumps in ../shared/corpus/graph (a01 row_shift, a02 scalar_aliases,
a04 weight_window, a05 tile_sweep, a06 scratch_pingpong, a09 orch_spmd_counts): AIV kernels
without `self`, Graph functions at `pl.Level.CHIP` / `pl.Role.Orchestrator`, SSA names, a MemRef
on every tensor, `arg_directions` on every call.  Each of the K Graph functions holds:

* a derived scalar from a scalar parameter (`base = idx * 64`, reaches a task -> hoisted),
* a rename chain of a scalar parameter (`n = cnt`, `m = n` -> deleted) and a scalar derived from
  the alias (`lim = m * 2` -> hoisted),
* a view whose offset is a parameter-derived scalar (`wv = slice(w, .., [base, 0])` -> hoisted),
* a top-level allocation written by a launch (`scr = create(..)` -> hoisted as an InOut),
* T tiled launches: a constant loop `pl.range(T)` with a loop-IV view (-> kept) and a launch per tile,
* a create inside a constant loop (`pl.range(2)`, left in place) and two launches per iteration.

`main` (Orchestration) calls every Graph in a `pl.range(4)` loop, chaining the InOut tensor, and
then launches an SPMD kernel under a branch, as in a09: `if 0 < n: spmd_submit(.., core_num=(n + 15) // 16 * 4)`.

    python bench/generate.py -k 200 -t 8 -o /tmp/k200.py       # one program
    python bench/generate.py -k 25 -n 12 --out-dir /tmp/batch    # 12 programs, different seeds

Deterministic: the same (K, T, seed) always gives the same bytes.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

FP = "pl.FP32"
ROWS, COLS = 256, 128  # x, y: [ROWS, COLS]
WROWS = 1024  # w: [WROWS, COLS]
ELEM = 4  # bytes per FP32


def _mem(name: str, offset: str, size: int) -> str:
    return f'pl.MemRef("{name}", {offset}, {size})'


def _zero() -> str:
    return "pl.const(0, pl.INT64)"


def _tensor(shape: tuple[int, int], mem: str, offset: str | None = None) -> str:
    size = shape[0] * shape[1] * ELEM
    return f"pl.Tensor[[{shape[0]}, {shape[1]}], {FP}, {_mem(mem, offset or _zero(), size)}]"


def _ret(shape: tuple[int, int]) -> str:
    return f"pl.Tensor[[{shape[0]}, {shape[1]}], {FP}]"


def _adirs(*dirs: str) -> str:
    return 'attrs={"arg_directions": [' + ", ".join(f"pl.adir.{d}" for d in dirs) + "]}"


KERNEL_HEADER = "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)"
GRAPH_HEADER = "    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)"
ORCH_HEADER = (
    "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)"
)


def _kernels() -> list[str]:
    """The shared explicit kernels every Graph launches (like a02's `stamp`, a06's `fold`/`merge`)."""
    vec = "pl.Mem.Vec"

    def tile(name: str, shape: tuple[int, int], mem: str, off: int = 0) -> str:
        size = shape[0] * shape[1] * ELEM
        return (
            f"{name}: pl.Tile[[{shape[0]}, {shape[1]}], {FP}, "
            f"pl.MemRef({mem}, pl.const({off}, pl.INT64), {size}), {vec}]"
        )

    out: list[str] = []
    # fill(src view [64,128], base scalar, scr Out[64,128]) -> scr
    out += [
        KERNEL_HEADER,
        f"    def fill(w__ssa_v0: {_tensor((64, COLS), 'mem_ddr_0')}, base__ssa_v0: pl.Scalar[pl.INDEX], "
        f"scr__ssa_v0: pl.Out[{_tensor((64, COLS), 'mem_ddr_1')}]) -> {_ret((64, COLS))}:",
        "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)",
        f"        {tile('a__ssa_v0', (64, COLS), 'mem_vec_2')} = pl.tile.load(w__ssa_v0, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)",
        f"        {tile('b__ssa_v0', (64, COLS), 'mem_vec_2')} = pl.tile.muls(a__ssa_v0, 3.0)",
        f"        scr__ssa_v1: {_tensor((64, COLS), 'mem_ddr_1')} = pl.tile.store(b__ssa_v0, [0, 0], scr__ssa_v0)",
        "        return scr__ssa_v0",
    ]
    # tile_mix(xv [32,128], scr [64,128], t scalar, lim scalar, y InOut[256,128]) -> y
    out += [
        KERNEL_HEADER,
        f"    def tile_mix(xv__ssa_v0: {_tensor((32, COLS), 'mem_ddr_0')}, s__ssa_v0: {_tensor((64, COLS), 'mem_ddr_1')}, "
        f"t__ssa_v0: pl.Scalar[pl.INDEX], lim__ssa_v0: pl.Scalar[pl.INDEX], "
        f"y__ssa_v0: pl.InOut[{_tensor((ROWS, COLS), 'mem_ddr_2')}]) -> {_ret((ROWS, COLS))}:",
        "        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
        "        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
        f"        {tile('c__ssa_v0', (32, COLS), 'mem_vec_3')} = pl.tile.load(xv__ssa_v0, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)",
        f"        {tile('d__ssa_v0', (32, COLS), 'mem_vec_4', 16384)} = pl.tile.load(s__ssa_v0, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)",
        f"        {tile('e__ssa_v0', (32, COLS), 'mem_vec_3')} = pl.tile.add(c__ssa_v0, d__ssa_v0)",
        f"        y__ssa_v1: {_tensor((ROWS, COLS), 'mem_ddr_2')} = pl.tile.store(e__ssa_v0, [t__ssa_v0 * 32, 0], y__ssa_v0)",
        "        return y__ssa_v0",
    ]
    # stage(x [256,128], j scalar, part Out[32,128]) -> part
    out += [
        KERNEL_HEADER,
        f"    def stage(x__ssa_v0: {_tensor((ROWS, COLS), 'mem_ddr_0')}, j__ssa_v0: pl.Scalar[pl.INDEX], "
        f"part__ssa_v0: pl.Out[{_tensor((32, COLS), 'mem_ddr_1')}]) -> {_ret((32, COLS))}:",
        "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
        f"        {tile('f__ssa_v0', (32, COLS), 'mem_vec_2')} = pl.tile.load(x__ssa_v0, [j__ssa_v0 * 32, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)",
        f"        part__ssa_v1: {_tensor((32, COLS), 'mem_ddr_1')} = pl.tile.store(f__ssa_v0, [0, 0], part__ssa_v0)",
        "        return part__ssa_v0",
    ]
    # merge(p [32,128], y InOut[256,128], row scalar) -> y
    out += [
        KERNEL_HEADER,
        f"    def merge(p__ssa_v0: {_tensor((32, COLS), 'mem_ddr_0')}, y__ssa_v0: pl.InOut[{_tensor((ROWS, COLS), 'mem_ddr_1')}], "
        f"row__ssa_v0: pl.Scalar[pl.INDEX]) -> {_ret((ROWS, COLS))}:",
        "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
        f"        {tile('g__ssa_v0', (32, COLS), 'mem_vec_2')} = pl.tile.load(p__ssa_v0, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)",
        f"        {tile('h__ssa_v0', (32, COLS), 'mem_vec_2')} = pl.tile.adds(g__ssa_v0, 1.0)",
        f"        y__ssa_v1: {_tensor((ROWS, COLS), 'mem_ddr_1')} = pl.tile.store(h__ssa_v0, [row__ssa_v0, 0], y__ssa_v0)",
        "        return y__ssa_v0",
    ]
    # band: the SPMD kernel of a09
    big = (2048, COLS)
    out += [
        KERNEL_HEADER,
        f"    def band(x__ssa_v0: {_tensor(big, 'mem_ddr_0')}, z__ssa_v0: pl.InOut[{_tensor(big, 'mem_ddr_1')}]) -> {_ret(big)}:",
        "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
        "        bi__ssa_v0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()",
        "        off__ssa_v0: pl.Scalar[pl.INDEX] = bi__ssa_v0 * 32",
        f"        {tile('t__ssa_v0', (32, COLS), 'mem_vec_2')} = pl.tile.load(x__ssa_v0, [off__ssa_v0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)",
        f"        {tile('u__ssa_v0', (32, COLS), 'mem_vec_2')} = pl.tile.adds(t__ssa_v0, 1.0)",
        f"        z__ssa_v1: {_tensor(big, 'mem_ddr_1')} = pl.tile.store(u__ssa_v0, [off__ssa_v0, 0], z__ssa_v0)",
        "        return z__ssa_v0",
    ]
    return out


def _graph(g: int, tiles: int, rng: random.Random) -> list[str]:
    """Graph `g{g}`: the shapes listed in the module docstring, with seeded multipliers."""
    scale = rng.choice((32, 64, 128))  # base = idx * scale
    wrow = rng.choice((0, 64, 128, 192))  # a literal column of the weight view
    mul = rng.choice((2, 3, 4))  # lim = m * mul
    name = f"g{g}"
    mem = iter(range(5, 10_000))

    def ddr() -> str:
        return f"mem_ddr_{next(mem)}"

    yt = (ROWS, COLS)
    lines = [
        GRAPH_HEADER,
        f"    def {name}(self, x__ssa_v0: {_tensor(yt, 'mem_ddr_0')}, w__ssa_v0: {_tensor((WROWS, COLS), 'mem_ddr_1')}, "
        f"y__ssa_v0: pl.InOut[{_tensor(yt, 'mem_ddr_2')}], idx__ssa_v0: pl.Scalar[pl.INDEX], "
        f"cnt__ssa_v0: pl.Scalar[pl.INDEX]) -> {_ret(yt)}:",
    ]
    b = "        "
    lines += [
        f"{b}base__ssa_v0: pl.Scalar[pl.INDEX] = idx__ssa_v0 * {scale}",
        f"{b}n__ssa_v0: pl.Scalar[pl.INDEX] = cnt__ssa_v0",
        f"{b}m__ssa_v0: pl.Scalar[pl.INDEX] = n__ssa_v0",
        f"{b}lim__ssa_v0: pl.Scalar[pl.INDEX] = m__ssa_v0 * {mul}",
        f"{b}wv__ssa_v0: {_tensor((64, COLS), 'mem_ddr_1', f'base__ssa_v0 * {COLS} * {ELEM}')} = "
        f"pl.tensor.slice(w__ssa_v0, [64, 128], [base__ssa_v0, {wrow}])",
        f"{b}scr__ssa_v0: {_tensor((64, COLS), ddr())} = pl.tensor.create([64, 128], dtype={FP}, layout=pl.TensorLayout.ND)",
        f"{b}scr__ssa_v1: {_tensor((64, COLS), ddr())} = self.fill(wv__ssa_v0, base__ssa_v0, scr__ssa_v0, "
        f"{_adirs('input', 'scalar', 'output_existing')})",
        f"{b}for t__idx_v0, (y__iter_v1,) in pl.range({tiles}, init_values=(y__ssa_v0,)):",
        f"{b}    xv__ssa_v0: {_tensor((32, COLS), 'mem_ddr_0', f't__idx_v0 * 32 * {COLS} * {ELEM}')} = "
        f"pl.tensor.slice(x__ssa_v0, [32, 128], [t__idx_v0 * 32, 0])",
        f"{b}    y__ssa_v3: {_tensor(yt, ddr())} = self.tile_mix(xv__ssa_v0, scr__ssa_v1, t__idx_v0, lim__ssa_v0, y__iter_v1, "
        f"{_adirs('input', 'input', 'scalar', 'scalar', 'inout')})",
        f"{b}    y__rv_v2: {_tensor(yt, ddr())} = pl.yield_(y__ssa_v3)",
        f"{b}for j__idx_v0, (y__iter_v4,) in pl.range(2, init_values=(y__rv_v2,)):",
        f"{b}    part__ssa_v0: {_tensor((32, COLS), ddr())} = pl.tensor.create([32, 128], dtype={FP}, layout=pl.TensorLayout.ND)",
        f"{b}    part__ssa_v2: {_tensor((32, COLS), ddr())} = self.stage(x__ssa_v0, j__idx_v0, part__ssa_v0, "
        f"{_adirs('input', 'scalar', 'inout')})",
        f"{b}    y__ssa_v6: {_tensor(yt, ddr())} = self.merge(part__ssa_v2, y__iter_v4, j__idx_v0 * 32, "
        f"{_adirs('input', 'inout', 'scalar')})",
        f"{b}    y__rv_v5: {_tensor(yt, ddr())} = pl.yield_(y__ssa_v6)",
        f"{b}return y__rv_v5",
    ]
    return lines


def _main(graphs: int) -> list[str]:
    yt, big = (ROWS, COLS), (2048, COLS)
    b = "        "
    lines = [
        ORCH_HEADER,
        f"    def main(self, x__ssa_v0: {_tensor(yt, 'mem_ddr_0')}, w__ssa_v0: {_tensor((WROWS, COLS), 'mem_ddr_1')}, "
        f"y__ssa_v0: pl.InOut[{_tensor(yt, 'mem_ddr_2')}], xb__ssa_v0: {_tensor(big, 'mem_ddr_3')}, "
        f"z__ssa_v0: pl.InOut[{_tensor(big, 'mem_ddr_4')}], n__ssa_v0: pl.Scalar[pl.INDEX]) -> {_ret(yt)}:",
        f"{b}for i__idx_v0, (y__iter_v1,) in pl.range(4, init_values=(y__ssa_v0,)):",
    ]
    prev = "y__iter_v1"
    for g in range(graphs):
        cur = f"y__ssa_v{g + 3}"
        lines.append(
            f"{b}    {cur}: {_tensor(yt, f'mem_ddr_{g + 5}')} = self.g{g}(x__ssa_v0, w__ssa_v0, {prev}, i__idx_v0, "
            f"n__ssa_v0, {_adirs('input', 'input', 'inout', 'scalar', 'scalar')})"
        )
        prev = cur
    lines.append(f"{b}    y__rv_v2: {_tensor(yt, f'mem_ddr_{graphs + 5}')} = pl.yield_({prev})")
    tup = f"pl.Tuple[{_ret(big)}, pl.Scalar[pl.TASK_ID]]"
    lines += [
        f"{b}with pl.scope(mode=pl.ScopeMode.MANUAL):",
        f"{b}    if 0 < n__ssa_v0:",
        f"{b}        blocks__ssa_v0: pl.Scalar[pl.INDEX] = (n__ssa_v0 + 15) // 16 * 4",
        f"{b}        _submit_tmp__ssa_v0: {tup} = pl.spmd_submit(self.band, xb__ssa_v0, z__ssa_v0, core_num=blocks__ssa_v0, "
        f"{_adirs('input', 'inout')})",
        f"{b}        z__ssa_v1: {_tensor(big, f'mem_ddr_{graphs + 6}')} = _submit_tmp__ssa_v0[0]",
        f"{b}        t0__ssa_v0: pl.Scalar[pl.TASK_ID] = _submit_tmp__ssa_v0[1]",
        f"{b}        z__phi_v2: {_tensor(big, f'mem_ddr_{graphs + 7}')} = pl.yield_(z__ssa_v1)",
        f"{b}    else:",
        f"{b}        z__phi_v2: {_tensor(big, f'mem_ddr_{graphs + 7}')} = pl.yield_(z__ssa_v0)",
        f"{b}return y__rv_v2",
    ]
    return lines


def generate(graphs: int = 200, tiles: int = 8, seed: int = 0) -> str:
    """The printed program: `graphs` Graph functions, each with a `tiles`-trip tiled launch loop."""
    if graphs < 1 or tiles < 1:
        raise ValueError("graphs and tiles must be at least 1")
    rng = random.Random(f"legalog-bench:{graphs}:{tiles}:{seed}")
    cls = f"SynthK{graphs}T{tiles}S{seed}"
    lines = [f"# pypto.program: {cls}", "import pypto.language as pl", "", "@pl.program", f"class {cls}:"]
    lines += _kernels()
    for g in range(graphs):
        lines += _graph(g, tiles, rng)
    lines += _main(graphs)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", "--graphs", type=int, default=200)
    ap.add_argument("-t", "--tiles", type=int, default=8)
    ap.add_argument("-s", "--seed", type=int, default=0)
    ap.add_argument("-o", "--output", help="file to write (default: stdout)")
    ap.add_argument(
        "-n", "--count", type=int, default=1, help="with --out-dir: how many programs (seeds 0..n-1)"
    )
    ap.add_argument("--out-dir", help="write --count programs here as synth_k<K>_t<T>_s<seed>.py")
    args = ap.parse_args(argv)
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for s in range(args.count):
            (out / f"synth_k{args.graphs}_t{args.tiles}_s{s}.py").write_text(
                generate(args.graphs, args.tiles, s)
            )
    elif args.output:
        Path(args.output).write_text(generate(args.graphs, args.tiles, args.seed))
    else:
        print(generate(args.graphs, args.tiles, args.seed), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
