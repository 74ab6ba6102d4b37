"""`fix` as per-function edits (what SARIF fixes carry): applied to the input they give exactly
`fix`'s output, for every graph case and example; and each finding's fix names its functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from legalog.pipeline import analyze
from legalog.surfaces.edits import WHOLE_FILE, apply_edits
from legalog.surfaces.file_models import file_model

REPO = Path(__file__).resolve().parents[2]
INPUTS = sorted(
    p
    for p in [*(REPO / "tests" / "graph" / "cases").glob("*.py"), *(REPO / "examples").glob("*.py")]
    if not p.name.endswith(".expected.py")
)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_edits_reproduce_fix(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    analysis = analyze(text, str(path))
    model = file_model(analysis)
    fixed = analysis.legalized_text()
    if fixed is None or analysis.status == "legal":
        assert model.edits == []
        return
    assert apply_edits(text, model.edits) == fixed
    changed = {e.function for e in model.edits}
    for d in model.diagnostics:
        assert bool(d.fix_functions) == d.fixable, (d.code, d.message)
        assert set(d.fix_functions) <= changed
        if d.code.startswith("GB2"):
            # the Graph itself, besides its call sites, or the whole file where the printer
            # reprinted more than the changed functions (a program defined twice, written once)
            assert d.function in d.fix_functions or d.fix_functions == [WHOLE_FILE]


def test_overlapping_edits_are_refused() -> None:
    from legalog.surfaces.report import EditModel

    def edit(offset: int, length: int) -> EditModel:
        return EditModel(
            function="f",
            start_line=1,
            start_column=offset + 1,
            end_line=1,
            end_column=offset + length + 1,
            char_offset=offset,
            char_length=length,
            replacement="X",
        )

    assert apply_edits("abcdef", [edit(3, 2), edit(0, 1)]) == "XbcXf"
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits("abcdef", [edit(0, 3), edit(2, 2)])
