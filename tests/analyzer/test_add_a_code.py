"""Adding a diagnostic code is a rule, a table entry (with the declaration of the relation it
words) and its before/after: a throwaway GB199, added that way and nowhere else, is reported,
rendered, documented (`legalog rule --all`, docs/codes.md's table) and listed in SARIF."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from legalog.analyzer.codes import CODES, CodeInfo, Wording
from legalog.facts import schema
from legalog.passes import GRAPH, SPMD
from legalog.pipeline import analyze
from legalog.rules import programs
from legalog.rules.language import RULES_DIR, RuleProgram
from legalog.surfaces import rule_docs
from legalog.surfaces.file_models import file_model
from legalog.surfaces.render import render_sarif, render_text

EXAMPLES = rule_docs.EXAMPLES_DIR
LAYER = EXAMPLES / "GB116.before.txt"  # a program whose Graph is named `layer`

RULE = "# throwaway: a Graph named `layer` (this test's code)\nthrowaway_layer(G) <= region(G) & function(G, 'Graph') & (G == 'layer')\n"
GB199 = CodeInfo(
    "GB199",
    "graph-named-layer",
    "a Graph is named `layer` (a code this test adds)",
    "name the Graph after what it computes",
    "nothing in the runtime: the code exists only in this test",
    severity="warning",
    wordings=(Wording("throwaway_layer", "Graph function `{g}` is named layer", subject="g"),),
)


@pytest.fixture
def gb199(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # the rule, in a file of its own that the Graph pass loads
    rule_file = tmp_path / "throwaway.pyd"
    rule_file.write_text(RULE, encoding="utf-8")
    extended = programs.PassRules((*GRAPH.rules.files, rule_file.stem), GRAPH.rules.keys)  # read: its stem
    monkeypatch.setattr("legalog.pipeline.PIPELINE", (SPMD, dataclasses.replace(GRAPH, rules=extended)))
    names = (*programs.PASS_RULES, str(rule_file))
    monkeypatch.setattr(
        "legalog.pipeline.pass_rules", lambda: RuleProgram.load(names, RULES_DIR, declared=schema.DECLARED)
    )
    # the table entry and the declaration of the relation it words
    monkeypatch.setitem(CODES, "GB199", GB199)
    declared = schema._rel("throwaway_layer", "g:fn", "a Graph named layer", "a test")
    monkeypatch.setitem(schema.DECLARED, "throwaway_layer", declared)
    # its before/after, beside the others
    examples = tmp_path / "rule_examples"
    shutil.copytree(EXAMPLES, examples)
    shutil.copy(LAYER, examples / "GB199.before.txt")
    shutil.copy(LAYER, examples / "GB199.after.txt")
    monkeypatch.setattr(rule_docs, "EXAMPLES_DIR", examples)
    rule_docs.example.cache_clear()
    yield
    rule_docs.example.cache_clear()


@pytest.mark.usefixtures("gb199")
def test_a_code_added_as_a_rule_and_a_table_entry_is_reported_rendered_documented_and_in_sarif() -> None:
    analysis = analyze(LAYER.read_text(encoding="utf-8"), str(LAYER))
    [found] = [d for d in analysis.diagnostics if d.code == "GB199"]
    assert (found.message, found.subject, found.severity) == (
        "Graph function `layer` is named layer",
        "layer",
        "warning",
    )
    lines = LAYER.read_text(encoding="utf-8").splitlines()
    assert "def layer" in lines[found.line - 1]  # at the Graph it names

    entry = file_model(analysis)
    assert "warning[GB199] Graph function `layer` is named layer" in render_text([entry])

    assert "GB199 (graph-named-layer, warning)" in rule_docs.all_rules()
    assert "| GB199 | graph-named-layer | warning |" in rule_docs.readme_table()

    run = render_sarif([entry])["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    [result] = [r for r in run["results"] if r["ruleId"] == "GB199"]
    assert rules[result["ruleIndex"]]["id"] == "GB199"
