"""A rule program is held to the schema's declarations when it is built (legalog/facts/schema.py):
a rule deriving a relation the schema does not declare, or with another number of columns, is a
clear error naming the rule's file and line, before any engine reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.facts.schema import DECLARED
from legalog.rules.language import DeclarationError, RuleProgram


def _load(tmp_path: Path, text: str) -> RuleProgram:
    (tmp_path / "extra.pyd").write_text(text, encoding="utf-8")
    return RuleProgram.load(["extra"], tmp_path, declared=DECLARED)


def test_a_rule_deriving_an_undeclared_relation_is_refused_at_its_line(tmp_path: Path) -> None:
    text = "# a rule file\nconst_loop(L) <= stmt(L, F, 'for')\nundeclared_thing(F) <= function(F, 'Graph')\n"
    with pytest.raises(DeclarationError) as raised:
        _load(tmp_path, text)
    assert f"{tmp_path / 'extra.pyd'}:3: the rule derives `undeclared_thing/1`" in str(raised.value)
    assert "const_loop" not in str(raised.value)  # declared with one column, as derived here


def test_a_rule_deriving_a_declared_relation_with_other_columns_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeclarationError) as raised:
        _load(tmp_path, "# a rule file\n\nconst_loop(L, F) <= stmt(L, F, 'for')\n")
    assert str(raised.value) == (
        f"{tmp_path / 'extra.pyd'}:3: the rule derives `const_loop` with 2 columns, declared with 1: "
        "const_loop(L:stmt)"
    )


def test_a_program_of_declared_heads_loads_and_undeclared_ones_only_when_nothing_is_declared(
    tmp_path: Path,
) -> None:
    assert _load(tmp_path, "# a rule file\nconst_loop(L) <= stmt(L, F, 'for')\n").derived == {"const_loop"}
    (tmp_path / "free.pyd").write_text("# a rule file\np(X) <= q(X)\n", encoding="utf-8")
    assert RuleProgram.load(["free"], tmp_path).derived == {"p"}  # a test's own relations


def test_the_packaged_rules_are_held_to_the_schema_even_when_kept_on_disk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from legalog.rules import language

    RuleProgram.load(["base"])  # built (or read back from the disk cache) and checked: declared
    monkeypatch.delitem(DECLARED, "const_loop")
    language._packaged_program.cache_clear()  # as a new process would: read back from the disk cache
    with pytest.raises(DeclarationError, match=r"base\.pyd:\d+: the rule derives `const_loop/1`"):
        RuleProgram.load(["base"])
    language._packaged_program.cache_clear()
