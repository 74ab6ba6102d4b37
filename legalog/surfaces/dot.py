"""`legalog why --format dot|svg`: the derivation of one value as a Graphviz picture.

The value is a double octagon coloured by its verdict; expressions are boxes, the tensors on its
provenance chain are ellipses; edges carry the operand position or the provenance step (view,
bare alias, loop-carried, in-place call); the leaf that blocked hoisting is filled red.  SVG is
Graphviz's `dot -Tsvg` of the same text, when `dot` is installed.
"""

from __future__ import annotations

import shutil
import subprocess

from legalog.analyzer.explain import DerivationNode, Explanation

_VERDICT_COLOUR = {
    "hoisted": "palegreen",
    "kept": "lightblue",
    "rejected": "lightpink",
    "removed_alias": "khaki",
    "not_boundary": "lightgrey",
}
_SHAPE = {"value": "doubleoctagon", "expr": "box", "tensor": "ellipse"}


class GraphvizError(Exception):
    """`--format svg` cannot run: Graphviz's `dot` is not on PATH, or it failed."""


def quote(text: str) -> str:
    """A DOT double-quoted string (newlines become `\\n` line breaks)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_dot(ex: Explanation) -> str:
    ids = {n.id: f"n{i}" for i, n in enumerate(ex.nodes)}
    lines = [
        f"digraph {quote(f'why {ex.function}/{ex.var}')} {{",
        "  rankdir=TB;",
        '  node [fontname="monospace", fontsize=10];',
        '  edge [fontname="monospace", fontsize=9];',
        f"  label={quote(f'{ex.path}: {ex.summary}')};",
        "  labelloc=t;",
    ]
    for node in ex.nodes:
        lines.append(f"  {ids[node.id]} [{_attributes(node, ex)}];")
    for edge in ex.edges:
        if edge.source in ids and edge.target in ids:
            lines.append(f"  {ids[edge.source]} -> {ids[edge.target]} [label={quote(edge.label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _attributes(node: DerivationNode, ex: Explanation) -> str:
    label = node.label + "".join(f"\n{note}" for note in node.notes)
    attrs = [f"label={quote(label)}", f"shape={_SHAPE[node.role]}"]
    if node.role == "value":
        attrs += ["style=filled", f"fillcolor={_VERDICT_COLOUR.get(ex.verdict, 'white')}"]
    if node.blocking:
        attrs += ["style=filled", "fillcolor=red", "fontcolor=white", "penwidth=2"]
    return ", ".join(attrs)


def render_svg(dot_text: str) -> str:
    """Graphviz's SVG of a DOT text; `GraphvizError` when `dot` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizError(
            "--format svg needs Graphviz's `dot` on PATH (e.g. `apt-get install graphviz`); "
            "--format dot writes the graph text without it"
        )
    done = subprocess.run(
        [dot, "-Tsvg"], input=dot_text, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise GraphvizError(f"`dot -Tsvg` failed: {done.stderr.strip()}")
    return done.stdout
