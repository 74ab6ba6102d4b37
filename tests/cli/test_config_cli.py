"""Configuration (issue 21, item 4) through the real command line: read with tomllib, found per
file as Ruff finds it, the command line's --select/--ignore/--extend-ignore/--per-file-ignores over
the file, explicitly named files checked unless --force-exclude, --fail-on info, and a rejected
file whose errors are all ignored says so."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CLI_ENV, legalog_cli

REPO = Path(__file__).resolve().parents[2]
ROW_SHIFT, MIXED = REPO / "examples" / "row_shift.py", REPO / "examples" / "mixed_offsets.py"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return legalog_cli(*args, cwd=cwd, env=CLI_ENV)


def codes(result: subprocess.CompletedProcess[str]) -> dict[str, list[str]]:
    return {f["path"]: [d["code"] for d in f["diagnostics"]] for f in json.loads(result.stdout)["files"]}


def tree(tmp_path: Path, files: dict[str, str | Path]) -> Path:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copy(content, path)
        else:
            path.write_text(content)
    return tmp_path


def test_a_pyproject_with_only_a_subtable_is_found(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {"pyproject.toml": '[tool.legalog.per-file-ignores]\n"*.py" = ["GB201"]\n', "d.py": ROW_SHIFT},
    )
    assert codes(run("check", "--format", "json", "d.py", cwd=tmp_path)) == {"d.py": []}


def test_each_file_gets_its_nearest_configuration(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.legalog]\nignore = ["GB201"]\n',
            "a/d.py": ROW_SHIFT,
            "b/pyproject.toml": "[project]\nname = 'b'\n",  # no [tool.legalog]: not a configuration
            "b/d.py": ROW_SHIFT,
            "c/legalog.toml": 'ignore = ["GB119"]\n',  # a legalog.toml is one whatever it holds
            "c/d.py": ROW_SHIFT,
            "c/m.py": MIXED,
        },
    )
    found = codes(run("check", "--format", "json", "a", "b", "c", cwd=tmp_path))
    assert found == {"a/d.py": [], "b/d.py": [], "c/d.py": ["GB201"], "c/m.py": ["GB113", "GB118"]}
    explicit = codes(run("check", "--format", "json", "--config", "c/legalog.toml", "a", cwd=tmp_path))
    assert explicit == {"a/d.py": ["GB201"]}  # --config is every file's


@pytest.mark.parametrize(
    ("text", "line"), [("[tool.legalog\nruntime = 1\n", 1), ("[tool.legalog]\nignore = [\n", 2)]
)
def test_a_broken_toml_is_an_error_with_its_line(tmp_path: Path, text: str, line: int) -> None:
    tree(tmp_path, {"pyproject.toml": text, "d.py": ROW_SHIFT})
    result = run("check", "d.py", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(
        f"legalog: {tmp_path / 'pyproject.toml'}:{line}: not valid TOML"
    )


def test_the_command_line_selects_and_ignores_over_the_file(tmp_path: Path) -> None:
    tree(
        tmp_path, {"pyproject.toml": '[tool.legalog]\nignore = ["GB113"]\n', "m.py": MIXED, "d.py": ROW_SHIFT}
    )

    def check(*options: str) -> dict[str, list[str]]:
        return codes(run("check", "--format", "json", *options, "m.py", "d.py", cwd=tmp_path))

    assert check() == {"d.py": ["GB201"], "m.py": ["GB118", "GB119", "GB119"]}
    assert check("--select", "GB11") == {"d.py": [], "m.py": ["GB118", "GB119", "GB119"]}
    assert check("--ignore", "GB119") == {
        "d.py": ["GB201"],
        "m.py": ["GB113", "GB118"],
    }  # replaces the file's
    assert check("--extend-ignore", "GB119,GB2") == {"d.py": [], "m.py": ["GB118"]}  # adds to it
    assert check("--per-file-ignores", "m.*:GB118") == {"d.py": ["GB201"], "m.py": ["GB119", "GB119"]}
    wrong = run("check", "--select", "GB999", "d.py", cwd=tmp_path)
    assert wrong.returncode == 2 and "unknown code 'GB999'" in wrong.stderr


def test_a_rejected_file_whose_errors_are_all_ignored_says_so(tmp_path: Path) -> None:
    tree(tmp_path, {"m.py": MIXED})
    result = run("check", "--ignore", "GB1", "m.py", cwd=tmp_path)
    assert result.returncode == 0  # ignored codes leave the exit status
    assert (
        "m.py: rejected, but every error is ignored (GB113, GB118, GB119); `legalog fix` writes nothing for it"
        in result.stdout
    )
    assert "1 file: 1 rejected" in result.stdout
    [entry] = json.loads(run("check", "--format", "json", "--ignore", "GB1", "m.py", cwd=tmp_path).stdout)[
        "files"
    ]
    assert (
        entry["status"] == "rejected"
        and entry["diagnostics"] == []
        and entry["ignored"] == ["GB113", "GB118", "GB119"]
    )


def test_a_file_named_explicitly_is_checked_though_excluded_unless_forced(tmp_path: Path) -> None:
    tree(
        tmp_path, {"pyproject.toml": '[tool.legalog]\nexclude = ["scratch/**"]\n', "scratch/d.py": ROW_SHIFT}
    )
    named = run("check", "scratch/d.py", cwd=tmp_path)
    assert named.returncode == 0 and "1 file: 1 rewritten" in named.stdout
    folder = run("check", "scratch", cwd=tmp_path)
    assert folder.returncode == 2 and "1 excluded by the configuration's `exclude`" in folder.stderr
    forced = run("check", "--force-exclude", "scratch/d.py", cwd=tmp_path)
    assert forced.returncode == 0 and forced.stdout == ""
    assert f"legalog: scratch/d.py: excluded by {tmp_path / 'pyproject.toml'}" in forced.stderr
    fixed = run("fix", "--force-exclude", "--in-place", "scratch/d.py", cwd=tmp_path)
    assert fixed.returncode == 0 and (tmp_path / "scratch" / "d.py").read_bytes() == ROW_SHIFT.read_bytes()


def test_fail_on_info_fails_while_a_rewrite_is_pending(tmp_path: Path) -> None:
    tree(tmp_path, {"d.py": ROW_SHIFT, "pyproject.toml": '[tool.legalog]\nfail-on = "info"\n'})
    assert run("check", "d.py", cwd=tmp_path).returncode == 1
    assert run("check", "--fail-on", "error", "d.py", cwd=tmp_path).returncode == 0
    assert run("fix", "--in-place", "d.py", cwd=tmp_path).returncode == 0
    assert run("check", "d.py", cwd=tmp_path).returncode == 0  # nothing pending any more


def _search_tree(tmp_path: Path, *, git: bool = True, table: str = "") -> Path:
    """A project whose folders a search must leave out: the usual ones (.venv, build,
    node_modules) and what .gitignore ignores, each holding a file that is no dump."""
    broken = "x = (\n"
    files: dict[str, str | Path] = {
        "dumps/d.py": ROW_SHIFT,
        "dumps/keep.tmp.py": ROW_SHIFT,
        "dumps/x.tmp.py": broken,
        ".venv/lib/site.py": broken,
        "build/lib/gen.py": broken,
        "node_modules/pkg/gen.py": broken,
        "out/gen.py": broken,
        ".gitignore": "out/\n*.tmp.py\n!keep.tmp.py\n",
    }
    if table:
        files["pyproject.toml"] = f"[tool.legalog]\n{table}\n"
    tree(tmp_path, files)
    if git:
        (tmp_path / ".git").mkdir()
    return tmp_path


def checked(tmp_path: Path, *paths: str) -> set[str]:
    result = run("check", "--format", "json", *paths, cwd=tmp_path)
    assert "Traceback" not in result.stderr
    return {f["path"] for f in json.loads(result.stdout)["files"]}


def test_check_with_no_path_searches_the_current_folder_as_ruff_does(tmp_path: Path) -> None:
    """The usual folders are skipped, and what the repository's .gitignore ignores (`!` re-includes)."""
    _search_tree(tmp_path)
    result = run("check", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert checked(tmp_path) == {"dumps/d.py", "dumps/keep.tmp.py"}
    assert checked(tmp_path, "dumps") == {"dumps/d.py", "dumps/keep.tmp.py"}
    # a file named is checked whatever ignores it
    assert checked(tmp_path, "dumps/x.tmp.py") == {"dumps/x.tmp.py"}


def test_gitignore_is_read_only_inside_a_git_repository(tmp_path: Path) -> None:
    _search_tree(tmp_path, git=False)
    assert checked(tmp_path) == {"dumps/d.py", "dumps/keep.tmp.py", "dumps/x.tmp.py", "out/gen.py"}


@pytest.mark.parametrize(
    ("table", "more"),
    [
        ("respect-gitignore = false", {"dumps/x.tmp.py", "out/gen.py"}),
        ('extend-exclude = ["keep*"]', {"-dumps/keep.tmp.py"}),
        # `exclude` replaces the defaults, as Ruff's does
        ('exclude = ["node_modules"]', {".venv/lib/site.py", "build/lib/gen.py"}),
    ],
)
def test_the_search_is_configured_as_ruffs(tmp_path: Path, table: str, more: set[str]) -> None:
    _search_tree(tmp_path, table=table)
    expected = {"dumps/d.py", "dumps/keep.tmp.py"} | {m for m in more if not m.startswith("-")}
    assert checked(tmp_path) == expected - {m[1:] for m in more if m.startswith("-")}
