"""SARIF fixes that apply independently (issue 21, item 3), on every corpus dump: no two offered
fixes touch the same text, a fixable result without a fix points to the one that carries it,
applying every offered fix in order gives exactly what `legalog fix` writes, and every region
carries its end."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from tests.conftest import CLI_ENV, CORPUS, legalog_cli

pytestmark = pytest.mark.slow  # `pytest -m 'not slow'` leaves it out

REPO = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())


def legalog(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV, timeout=900)


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory: pytest.TempPathFactory, corpus: list[Path]) -> tuple[Path, dict, Path]:
    """The corpus checked as SARIF, and a copy of it fixed in place by `legalog fix`."""
    base = tmp_path_factory.mktemp("sarif")
    shutil.copytree(CORPUS, base / "dumps", ignore=shutil.ignore_patterns("*.md"))
    shutil.copytree(CORPUS, base / "fixed", ignore=shutil.ignore_patterns("*.md"))
    sarif = json.loads(legalog("check", "--output-format", "sarif", "dumps", cwd=base).stdout)
    legalog("fix", "--in-place", "fixed", cwd=base)
    return base, sarif, base / "fixed"


def replacements(fix: dict) -> list[tuple[int, int, str]]:
    return [
        (r["deletedRegion"]["charOffset"], r["deletedRegion"]["charLength"], r["insertedContent"]["text"])
        for change in fix["artifactChanges"]
        for r in change["replacements"]
    ]


def apply_in_order(original: str, fixes: list[dict]) -> str:
    """Each fix applied to the text the fixes before it left, as a viewer applies them one by one
    (its regions are the original's: shifted by what earlier fixes changed before them)."""
    text, applied = original, []  # (original offset, original length, new length)
    for fix in fixes:
        for offset, length, new in sorted(replacements(fix), reverse=True):
            assert all(offset + length <= o or o + n <= offset for o, n, _ in applied), "two fixes overlap"
            shift = sum(m - n for o, n, m in applied if o < offset)
            text = text[: offset + shift] + new + text[offset + shift + length :]
        applied += [(offset, length, len(new)) for offset, length, new in replacements(fix)]
    return text


@pytest.mark.shared
def test_the_corpus_sarif_validates(corpus_run: tuple[Path, dict, Path]) -> None:
    _base, sarif, _fixed = corpus_run
    jsonschema.validate(sarif, SARIF_SCHEMA)


@pytest.mark.shared
def test_applying_every_offered_fix_in_order_gives_fix_output(corpus_run: tuple[Path, dict, Path]) -> None:
    base, sarif, fixed = corpus_run
    by_file: dict[str, list[dict]] = {}
    for result in sarif["runs"][0]["results"]:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        by_file.setdefault(unquote(uri), []).extend(result.get("fixes", []))
    rewritten = 0
    for path in sorted((base / "dumps").rglob("*.py")):
        rel = path.relative_to(base).as_posix()
        original = path.read_bytes().decode("utf-8")
        after = (fixed / path.relative_to(base / "dumps")).read_bytes().decode("utf-8")
        assert apply_in_order(original, by_file.get(rel, [])) == after, rel
        rewritten += original != after
    assert rewritten >= 15  # the corpus's rewritten dumps are in there


@pytest.mark.shared
def test_a_result_without_its_own_fix_points_to_the_one_that_carries_it(
    corpus_run: tuple[Path, dict, Path],
) -> None:
    _base, sarif, _fixed = corpus_run
    results = sarif["runs"][0]["results"]
    carriers = {r["guid"]: r for r in results if r.get("fixes")}
    pointing = [r for r in results if "fixedWith" in r.get("properties", {})]
    assert pointing, "the corpus has Graphs with several findings"
    for r in pointing:
        carrier = carriers[r["properties"]["fixedWith"]]
        where = carrier["locations"][0]["physicalLocation"]
        assert r["relatedLocations"][0]["physicalLocation"] == where
        assert f"also fixes {r['ruleId']} at " in carrier["fixes"][0]["description"]["text"]
    for r in results:  # every fixable finding is fixed by exactly one offered fix
        assert r["level"] != "note" or bool(r.get("fixes")) != ("fixedWith" in r.get("properties", {}))


@pytest.mark.shared
def test_every_region_carries_its_end(corpus_run: tuple[Path, dict, Path]) -> None:
    base, sarif, _fixed = corpus_run
    for r in sarif["runs"][0]["results"]:
        location = r["locations"][0]["physicalLocation"]
        region = location["region"]
        assert region["endLine"] == region["startLine"] and region["endColumn"] > region["startColumn"]
        line = (
            (base / unquote(location["artifactLocation"]["uri"]))
            .read_bytes()
            .decode("utf-8")
            .split("\n")[region["startLine"] - 1]
            .rstrip("\r")
        )
        assert region["endColumn"] == max(len(line) + 1, region["startColumn"] + 1)
