"""Hoist chains inside a Graph, 10,000 links long (issue 22): no walk of the IR, the facts or a
term depends on Python's recursion limit, through the library and the command line.  Their cost
(linear) is measured in bench/run.py, never here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legalog.analyzer.graph import SHOWN_NODES
from legalog.ir.parser import parse
from legalog.ir.transform import expr_names
from legalog.pipeline import analyze
from legalog.surfaces.file_models import file_model
from tests.robust.chains import KINDS, graph_chain
from tests.robust.test_any_input import _legalog

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

LONG = 10_000
# each kind at 2,000 links: its outcome, and every code it reports
OUTCOMES = {
    "renames": ("rewritten", {"GB201", "GB204"}),
    "derived": ("rejected", {"GB104"}),
    "tensor_aliases": ("rewritten", {"GB202"}),
    "views": ("rejected", {"GB103"}),
    "kept_views": ("legal", set()),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_chain_kind_is_decided_in_the_library(kind: str) -> None:
    analysis = analyze(graph_chain(kind, 2_000))
    status, codes = OUTCOMES[kind]
    assert analysis.status == status and {d.code for d in analysis.diagnostics} == codes
    if status == "rewritten":
        assert analyze(analysis.legalized_text() or "").status == "legal"


@pytest.mark.parametrize("kind", ["renames", "tensor_aliases"])
def test_ten_thousand_links_in_the_library(kind: str) -> None:
    analysis = analyze(graph_chain(kind, LONG))
    assert analysis.status == "rewritten"
    (graph,) = analysis.graphs
    if kind == "renames":  # every rename deleted, its readers on the chain's root
        assert len(graph.aliases) == LONG and {root for _, root in graph.aliases} == {"base__ssa_v0"}
        assert [h.name for h in graph.hoisted] == ["base__ssa_v0", "end__ssa_v0"]
    else:  # the call site follows the 10,000 aliases back to the hoisted view
        assert [h.name for h in graph.hoisted] == ["wl__ssa_v0", "inner__ssa_v0"]
        assert "pl.tensor.slice(wl__graph_arg0, [128, 128], [0, 0])" in (analysis.legalized_text() or "")


def test_ten_thousand_links_through_check(tmp_path: Path) -> None:
    for kind in ("renames", "tensor_aliases", "kept_views"):
        (tmp_path / f"{kind}.py").write_text(graph_chain(kind, LONG))
    done, _ = _legalog("check", str(tmp_path), "--format", "json")
    assert done.stderr == ""
    statuses = {Path(f["path"]).stem: f["status"] for f in json.loads(done.stdout)["files"]}
    assert statuses == {"renames": "rewritten", "tensor_aliases": "rewritten", "kept_views": "legal"}


@pytest.mark.parametrize("kind", ["renames", "tensor_aliases"])
def test_ten_thousand_links_through_fix(kind: str, tmp_path: Path) -> None:
    dump, out = tmp_path / "chain.py", tmp_path / "out.py"
    dump.write_text(graph_chain(kind, LONG))
    done, _ = _legalog("fix", str(dump), "-o", str(out))
    assert done.returncode == 0 and "rewritten" in done.stderr
    text = out.read_text()
    parse(text)
    last = {"renames": "a10000__ssa_v0", "tensor_aliases": "m10000__ssa_v0"}[kind]
    assert (last in text) == (kind == "tensor_aliases")  # scalar renames are deleted, tensor aliases kept


def test_a_rejected_chain_writes_nothing_through_fix(tmp_path: Path) -> None:
    dump, out = tmp_path / "chain.py", tmp_path / "out.py"
    dump.write_text(graph_chain("derived", LONG))
    done, _ = _legalog("fix", str(dump), "-o", str(out))
    assert done.returncode == 1 and "GB104" in done.stderr and not out.exists()


def test_an_expansion_is_shown_whole_only_within_its_bound() -> None:
    """A hoisted scalar's value is shown in the Graph's own parameters while the whole expansion
    stays within SHOWN_NODES nodes, and past that in the earlier hoist it reads (a parameter of the
    rewritten Graph): the values stay short however long the chain, even when each link reads the
    one before twice (an expansion of 2**40 nodes)."""
    (graph,) = analyze(graph_chain("derived", 400)).graphs
    reads = {h.name: expr_names(graph.expanded(h.name)) for h in graph.hoisted}
    whole = [name for name, names in reads.items() if names == {"idx__ssa_v0"}]
    assert whole[:3] == ["base__ssa_v0", "end__ssa_v0", "a1__ssa_v0"] and 60 < len(whole) < SHOWN_NODES
    assert reads["a400__ssa_v0"] == {"a399__ssa_v0"}
    doubling = re.sub(r"= (\w+) \+ 1\n", r"= \1 + \1\n", graph_chain("derived", 40))
    model = file_model(analyze(doubling))
    assert model.status == "rewritten"
    assert max(len(h.value) for h in model.graphs[0].hoisted_scalars) < 8 * SHOWN_NODES
