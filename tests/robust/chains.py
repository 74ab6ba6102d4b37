"""Graph hoist chains of any length (issue 22): a golden case with one binding followed by N more
inside the Graph, each reading the one before, and the task reading the last.

    renames         Step A: `a1 = base`, `a2 = a1`, ... (a03): every rename deleted -> rewritten
    derived         Step A: `a1 = base + 1`, `a2 = a1 + 1`, ... (a03): every link hoisted ->
                    rewritten up to the runtime's 64 scalar parameters, GB104 past them
    tensor_aliases  Step B: `m1 = mid`, `m2 = m1`, ... between a hoisted view and the view of it
                    (b04) -> rewritten, the call site follows the chain
    views           Step B: `v1 = slice(wr)`, `v2 = slice(v1)`, ... (b02): every view hoisted ->
                    GB103 past the runtime's 128 tensor parameters
    kept_views      Step B: the same on a view left in place inside a loop (b13) -> legal

bench/run.py measures the same programs (a 10,000-rename chain and a quarter of it).
"""

from __future__ import annotations

from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "graph" / "cases"
KINDS = ("renames", "derived", "tensor_aliases", "views", "kept_views")

_SCALAR = "pl.Scalar[pl.INDEX]"
_TILE = "pl.Tensor[[128, 128], pl.FP32]"


def graph_chain(kind: str, links: int) -> str:
    """The dump of `kind` (one of KINDS) with a chain of `links` bindings."""
    if kind in ("renames", "derived"):
        step = "" if kind == "renames" else " + 1"
        return _chained(
            "a03_multi_level_chain.py",
            "        end__ssa_v0: pl.Scalar[pl.INDEX] = base__ssa_v0 + 128\n",
            "        a{i}__ssa_v0: " + _SCALAR + " = {prev}" + step + "\n",
            "base__ssa_v0",
            "a",
            "self.kload(w__ssa_v0, end__ssa_v0",
            "self.kload(w__ssa_v0, {last}",
            links,
        )
    if kind == "tensor_aliases":
        return _chained(
            "b04_alias_of_hoisted_view.py",
            "        mid__ssa_v0: pl.Tensor[[256, 128], pl.FP32] = wl__ssa_v0\n",
            "        m{i}__ssa_v0: pl.Tensor[[256, 128], pl.FP32] = {prev}\n",
            "mid__ssa_v0",
            "m",
            "pl.tensor.slice(mid__ssa_v0",
            "pl.tensor.slice({last}",
            links,
        )
    if kind == "views":
        return _chained(
            "b02_view_of_hoisted_view.py",
            "        wr__ssa_v0: "
            + _TILE
            + " = pl.tensor.slice(wl__ssa_v0, [128, 128], [base__ssa_v0, 0])\n",
            "        v{i}__ssa_v0: " + _TILE + " = pl.tensor.slice({prev}, [128, 128], [0, 0])\n",
            "wr__ssa_v0",
            "v",
            "self.kadd(wr__ssa_v0",
            "self.kadd({last}",
            links,
        )
    if kind == "kept_views":
        return _chained(
            "b13_view_of_kept_view_stays.py",
            "            sub__ssa_v0: " + _TILE + " = pl.tensor.slice(band__ssa_v0, [128, 128], [128, 0])\n",
            "            k{i}__ssa_v0: " + _TILE + " = pl.tensor.slice({prev}, [128, 128], [0, 0])\n",
            "sub__ssa_v0",
            "k",
            "self.kadd(sub__ssa_v0",
            "self.kadd({last}",
            links,
        )
    raise ValueError(f"unknown chain kind {kind!r}: one of {', '.join(KINDS)}")


def _chained(
    case: str, after: str, link: str, first: str, stem: str, use: str, new_use: str, links: int
) -> str:
    text = (CASES / case).read_text(encoding="utf-8")
    assert after in text and use in text, case
    names = [first] + [f"{stem}{i}__ssa_v0" for i in range(1, links + 1)]
    chain = "".join(link.format(i=i, prev=names[i - 1]) for i in range(1, links + 1))
    return text.replace(after, after + chain).replace(use, new_use.format(last=names[-1]))
