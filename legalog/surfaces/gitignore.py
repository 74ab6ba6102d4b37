"""What a repository's `.gitignore` files leave out of a folder search, as Ruff reads them
(`respect-gitignore`, on by default): inside a git repository (a folder above holding `.git`),
every `.gitignore` from the repository's root down to a path's folder, and `.git/info/exclude`,
with git's own precedence (a deeper file over a shallower one, a later line over an earlier one,
`!pattern` re-including).  Outside a git repository no `.gitignore` is read, as Ruff does.  The
patterns are matched by `pathspec`, a maintained implementation of git's wildmatch rules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a .gitignore is found: pathspec takes 40 ms to import
    from pathspec import GitIgnoreSpec


class GitIgnores:
    """The `.gitignore` files met by one run, each read once."""

    def __init__(self) -> None:
        self._specs: dict[Path, GitIgnoreSpec | None] = {}
        self._roots: dict[Path, Path | None] = {}

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether git would ignore `path` (a folder when `is_dir`: a pattern ending in `/`
        matches folders only)."""
        path = path.absolute()
        root = self._repository(path.parent)
        if root is None:
            return False
        verdict = False
        for folder in (*reversed(path.parent.relative_to(root).parents), path.parent.relative_to(root)):
            spec = self._spec(root / folder, root)
            if spec is not None:
                rel = path.relative_to(root / folder).as_posix() + ("/" if is_dir else "")
                if (include := spec.check_file(rel).include) is not None:
                    verdict = include
        return verdict

    def _repository(self, folder: Path) -> Path | None:
        """The root of the git repository `folder` is in (None: in none)."""
        if folder not in self._roots:
            if (folder / ".git").exists():
                self._roots[folder] = folder
            else:
                self._roots[folder] = None if folder.parent == folder else self._repository(folder.parent)
        return self._roots[folder]

    def _spec(self, folder: Path, root: Path) -> GitIgnoreSpec | None:
        if folder not in self._specs:
            lines = _lines(root / ".git" / "info" / "exclude") if folder == root else []
            lines += _lines(folder / ".gitignore")
            if lines:
                from pathspec import GitIgnoreSpec

                self._specs[folder] = GitIgnoreSpec.from_lines(lines)
            else:
                self._specs[folder] = None
        return self._specs[folder]


def _lines(file: Path) -> list[str]:
    try:
        return file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:  # none there, or `.git` is a worktree's file: nothing to read
        return []
