"""`check --shard K/N` and `legalog merge`: the shards partition the batch, and merging their
JSON reports gives, byte for byte, what one unsharded run prints (text, JSON and SARIF)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from legalog import cli
from legalog.surfaces.dumps import Target, plan
from legalog.surfaces.shard import Shard, entry_key, parse_shard, select, shard_of
from tests.cli.test_tool_cli import make_passes_dump
from tests.conftest import CORPUS

FORMATS = ("json", "text", "sarif")


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--no-progress", "--jobs", "1", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def merge(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["merge", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory: pytest.TempPathFactory, corpus: list[Path]) -> Path:
    """The corpus, a passes_dump folder (two pass positions, `passes_dump ...` lines) and a broken dump."""
    root = tmp_path_factory.mktemp("shards")
    dumps = root / "dumps"
    shutil.copytree(CORPUS, dumps, ignore=shutil.ignore_patterns("*.md"))
    make_passes_dump(dumps)
    (dumps / "zz_broken.py").write_text("x = (\n")
    return root


def test_shard_spec_is_checked() -> None:
    assert parse_shard("2/7") == Shard(2, 7) and str(parse_shard(" 1 / 1 ")) == "1/1"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


def test_the_partition_is_by_relative_path_and_adding_a_file_moves_no_other(tmp_path: Path) -> None:
    names = [f"d{i:03}.py" for i in range(60)]
    targets = [Target(f"some/checkout/dumps/{n}") for n in names]
    elsewhere = [Target(f"/abs/other/dumps/{n}") for n in names]
    for count in (2, 3, 7):
        parts = [select(targets, ["some/checkout/dumps"], Shard(k, count)) for k in range(1, count + 1)]
        indices = sorted(i for part in parts for i, _ in part)
        assert indices == list(range(len(targets)))  # every entry in exactly one shard
        assert all(parts), "60 names over at most 7 shards: none is empty"
        moved = [
            [i for i, _ in select(elsewhere, ["/abs/other/dumps"], Shard(k, count))]
            for k in range(1, count + 1)
        ]
        assert moved == [[i for i, _ in part] for part in parts]  # where the checkout lives does not matter
        before = {
            entry_key(t, ["some/checkout/dumps"]): shard_of(entry_key(t, ["some/checkout/dumps"]), count)
            for t in targets
        }
        grown = [*targets[:30], Target("some/checkout/dumps/new.py"), *targets[30:]]
        after = {
            entry_key(t, ["some/checkout/dumps"]): shard_of(entry_key(t, ["some/checkout/dumps"]), count)
            for t in grown
        }
        assert {k: v for k, v in after.items() if k != "new.py"} == before


@pytest.mark.shared
def test_both_positions_of_a_passes_dump_folder_share_a_shard(tmp_path: Path) -> None:
    make_passes_dump(tmp_path)
    targets = plan([tmp_path])
    assert len(targets) == 2 and targets[0].folder == targets[1].folder
    assert len({shard_of(entry_key(t, [tmp_path]), 5) for t in targets}) == 1


@pytest.mark.shared
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_merged_equal_one_run(
    count: int, batch_dir: Path, capsys, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(batch_dir)  # relative paths, as CI gives them
    whole = {fmt: check(capsys, "dumps", "--format", fmt) for fmt in FORMATS}
    assert whole["json"][0] == 2  # a rejected file and a broken one: exit as `check` would
    reports = []
    for k in range(1, count + 1):
        _, out, _ = check(capsys, "dumps", "--format", "json", "--shard", f"{k}/{count}")
        report = json.loads(out)
        assert report["run"]["shard"] == k and len(report["files"]) == len(report["run"]["entries"])
        reports.append(tmp_path / f"shard{k}.json")
        reports[-1].write_text(out)
    sizes = [len(json.loads(r.read_text())["files"]) for r in reports]
    assert sum(sizes) == len(json.loads(whole["json"][1])["files"])
    monkeypatch.chdir(tmp_path)  # the merging job has only the reports, not the dumps
    for fmt in FORMATS:
        assert merge(capsys, *map(str, reversed(reports)), "--format", fmt) == whole[fmt], fmt


@pytest.mark.shared
def test_a_shard_report_is_a_valid_report_of_its_files(batch_dir: Path, capsys, monkeypatch) -> None:
    import jsonschema

    from legalog.surfaces.report import ReportModel, json_schema

    monkeypatch.chdir(batch_dir)
    _, out, _ = check(capsys, "dumps", "--format", "json", "--shard", "2/3")
    report = json.loads(out)
    jsonschema.validate(report, json_schema(ReportModel))
    _, text, _ = check(capsys, "dumps", "--shard", "2/3")
    assert f"\n{len(report['files'])} files: " in text  # the summary counts this shard's files


@pytest.mark.shared
def test_merge_refuses_what_is_not_one_batch(batch_dir: Path, capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(batch_dir)

    def shard(name: str, *args: str, inputs: str = "dumps") -> str:
        path = tmp_path / name
        path.write_text(check(capsys, inputs, "--format", "json", *args)[1])
        return str(path)

    one, two = shard("1.json", "--shard", "1/2"), shard("2.json", "--shard", "2/2")
    other_runtime = shard("2t.json", "--shard", "2/2", "--runtime", "tensormap_and_ringbuffer")
    fewer = shard("2f.json", "--shard", "2/2", inputs="dumps/graph")
    three = shard("3.json", "--shard", "3/3")
    plain = shard("plain.json")
    data = json.loads(Path(two).read_text())
    data["run"]["legalog"] = "0.0.1"
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    cases = {
        (one, other_runtime): "different options",
        (one, str(old)): "different legalog versions",
        (one, fewer): "different batches",
        (one, three): "different shard counts",
        (one,): "missing shard 2/2",
        (one, one, two): "given twice",
        (one, plain): "not a shard report",
        (one, str(bad)): "not a legalog JSON report",
        (one, str(tmp_path / "nope.json")): "cannot read",
    }
    for reports, message in cases.items():
        code, out, err = merge(capsys, *reports)
        assert code == 2 and message in err and not out, (reports, err)
    assert merge(capsys, two, one, "--format", "json")[0] == 2
