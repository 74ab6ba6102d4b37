"""`legalog fix PATH... --in-place`: legalize many dumps, each written atomically or not at all.

The analysis is `check`'s batch (process pool, cache, one failing file never stops the others);
each result carries `fix`'s output as edits on the input (legalog/surfaces/edits.py), so writing
a file is applying its edits to the text that was analysed.  A rejected, unreadable or crashed
file is never written; neither is one that changed on disk since it was analysed, nor one whose
edits do not land where the analysed text had its functions (`reread_mismatch`: an `internal`
outcome, legalog's bug, exit 3).
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from legalog.digest import sha256
from legalog.facts.store import current_umask
from legalog.files import kind, read_regular
from legalog.ir.errors import ParseError
from legalog.ir.parser import parse
from legalog.surfaces.dumps import Target
from legalog.surfaces.edits import WHOLE_FILE, apply_edits
from legalog.surfaces.formats import lossy
from legalog.surfaces.report import EditModel, FileModel

Outcome = Literal["fixed", "unchanged", "legal", "rejected", "error", "internal"]


@dataclass(frozen=True, slots=True)
class FixResult:
    path: str  # the dump written (or not)
    outcome: Outcome
    reason: str = ""


def write_atomic(target: Path, text: str) -> bool:
    """Write through a temporary file in the same folder and rename it over the target, so an
    interrupted run never leaves a half-written dump; False (nothing written, not even the mtime
    touched) when the target already holds exactly these bytes.  The target keeps its mode and,
    where the user may set them, its owner and group; a new file gets the mode `open` would give
    it.  A symbolic link is written through: its target is replaced (the temporary file beside
    it), the link stays.  Only a regular file is ever replaced: a folder, device, FIFO or socket
    is an OSError saying what it is.  A failure names `target`, never the temporary file (which
    is gone by then)."""
    final = _through_links(target)
    before = _regular_or_none(final, target)
    data = text.encode("utf-8")
    tmp: str | None = None
    try:
        if before is not None and before.st_size == len(data) and _holds(final, data):
            return False
        final.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(final), suffix=".tmp", dir=final.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        _keep_attributes(Path(tmp), before)
        os.replace(tmp, final)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OSError(err.errno, f"cannot write: {err.strerror or err}", str(target)) from None
        raise
    return True


def write_output(target: str, text: str) -> bool:
    """`fix -o OUT`: a character device (`/dev/null`, a terminal) or a FIFO (`/dev/stdout` in a
    pipeline) is written into as a stream, never replaced; anything else as `write_atomic`."""
    try:
        found = os.stat(target)  # through links, the kernel's own too (/dev/stdout -> the pipe)
    except OSError:
        found = None
    if found is None or not (stat.S_ISCHR(found.st_mode) or stat.S_ISFIFO(found.st_mode)):
        return write_atomic(Path(target), text)
    try:
        with open(os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0)), "wb") as stream:
            stream.write(text.encode("utf-8"))
    except OSError as err:
        raise OSError(err.errno, f"cannot write: {err.strerror or err}", target) from None
    return True


def _through_links(path: Path) -> Path:
    """The file `path` names: the final target of a symbolic link (the path itself otherwise)."""
    if not path.is_symlink():
        return path
    final = Path(os.path.realpath(path))
    if final.is_symlink():  # realpath stops where links loop
        raise OSError(errno.ELOOP, f"cannot write: {os.strerror(errno.ELOOP)}", str(path))
    return final


def _regular_or_none(final: Path, target: Path) -> os.stat_result | None:
    """The status of the regular file `final`, None when there is none yet; an OSError naming
    `target` for what `fix` must not replace."""
    try:
        found = final.stat()
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder: give the path of the file to write", str(target))
    if not stat.S_ISREG(found.st_mode):
        raise OSError(
            errno.EINVAL, f"cannot write: {kind(found.st_mode)}, which fix never replaces", str(target)
        )
    return found


def _holds(path: Path, data: bytes) -> bool:
    try:
        return read_regular(path, len(data)) == data
    except OSError:  # changed meanwhile: written anew
        return False


def _temporary_prefix(target: Path) -> str:
    """`.NAME.`, NAME cut so that the temporary name (the prefix, mkstemp's 8 random characters,
    `.tmp`) fits in the longest name the folder takes (255 bytes on most file systems)."""
    try:
        longest = os.pathconf(target.parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # not said: the common limit
        longest = 255
    room = longest - len("..XXXXXXXX.tmp")
    name = target.name
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return f".{name}."


def _keep_attributes(tmp: Path, before: os.stat_result | None) -> None:
    # mkstemp creates 0600: a rewritten dump would lose its group/other bits (a shared dump
    # would become unreadable to its team)
    if before is None:
        os.chmod(tmp, 0o666 & ~current_umask())
        return
    with contextlib.suppress(PermissionError, AttributeError):  # only root may give a file away
        os.chown(tmp, before.st_uid, before.st_gid)
    os.chmod(tmp, stat.S_IMODE(before.st_mode))


def read_dump(path: str | Path) -> str:
    """A dump's text exactly as the parser saw it: its own line breaks (`read_text` would turn a
    CRLF dump into LF, and the edits' offsets are offsets into the bytes as decoded), without the
    byte order mark the parser drops (every offset would be one off)."""
    return read_regular(path).decode("utf-8").removeprefix("\ufeff")


def diff_lines(path: str, original: str, text: str) -> list[str]:
    """A unified diff of `fix`'s output, lines as Python counts them (a form feed is no break).
    A last line without a line break is followed by `\\ No newline at end of file`, as `diff`
    writes it (else the next line would be glued to it: a malformed patch)."""
    from legalog.ir.lines import source_lines

    lines = difflib.unified_diff(
        source_lines(original),
        source_lines(text),
        fromfile=diff_name(path),
        tofile=diff_name(f"{path} (legalized)"),
    )
    return [
        line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n" for line in lines
    ]


_C_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def diff_name(path: str) -> str:
    """A file name as a diff header gives it: as it is, or, when it holds a control character,
    a quote, a backslash or bytes that are not UTF-8, in double quotes with C escapes, as git
    writes it (`"\\033[31m.py"`, `"\\377.py"`; git apply and GNU patch read both)."""
    raw = os.fsencode(path)
    if not any(b < 0x20 or b == 0x7F or b in (34, 92) for b in raw) and lossy(path) == path:
        return path
    escaped = (_C_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw)
    return '"' + "".join(escaped) + '"'


def fixed_text(model: FileModel, original: str) -> str | None:
    """`fix`'s output for an analysed dump, or None when nothing may be written."""
    if model.status in ("error", "rejected") or not model.edits:
        return None
    return apply_edits(original, model.edits)


def apply(
    targets: Sequence[Target], models: Sequence[FileModel], analysed: dict[str, str]
) -> list[FixResult]:
    """Write every fixable dump in place.  `analysed` maps each dump to the SHA-256 of the text
    it was analysed from, so a file edited meanwhile is left alone."""
    out = []
    for target, model in zip(targets, models):
        out.append(_apply_one(Path(target.path), model, analysed.get(target.path)))
    return out


def _apply_one(path: Path, model: FileModel, digest: str | None) -> FixResult:
    if model.status == "error":
        return FixResult(str(path), "error", model.diagnostics[0].message if model.diagnostics else "")
    if model.status == "legal":
        return FixResult(str(path), "legal")
    try:
        original = read_dump(path)
    except (OSError, UnicodeDecodeError) as err:
        return FixResult(str(path), "error", f"cannot read: {err}")
    if digest is not None and text_digest(original) != digest:
        return FixResult(str(path), "error", "changed on disk since it was analysed; nothing written")
    text = fixed_text(model, original)
    if text is None:
        return FixResult(str(path), "rejected", "rejected; nothing written")
    if (mismatch := reread_mismatch(original, text, model.edits)) is not None:
        return FixResult(str(path), "internal", f"INTERNAL: {mismatch}; nothing written (a bug in legalog)")
    try:
        written = write_atomic(path, text)
    except OSError as err:
        return FixResult(str(path), "error", f"cannot write: {err.strerror or err}")
    return FixResult(str(path), "fixed" if written else "unchanged")


def reread_mismatch(original: str, text: str, edits: Sequence[EditModel]) -> str | None:
    """Why `text` (the edits applied to `original`) is not what the analysis verified, or None.
    The analysis proved its output reads back as the program it verified (`print_checked`) and
    made its edits against the text it read; here both are read again: each edit must replace
    exactly one function of `original` as legalog's parser finds it (or the whole text), and the
    text to write must parse."""
    try:
        read = parse(original)
    except ParseError as err:
        return f"the dump no longer reads as it did ({err.line}:{err.col}: {err.reason})"
    spans = dict(zip((f.name for f in read.functions), read.layout.function_spans if read.layout else ()))
    for e in edits:
        expected = (0, len(original)) if e.function == WHOLE_FILE else spans.get(e.function)
        if expected != (e.char_offset, e.char_offset + e.char_length):
            return f"the edit of `{e.function}` does not cover that function in the text on disk"
    try:
        parse(text)
    except ParseError as err:
        return f"the text to write does not parse ({err.line}:{err.col}: {err.reason})"
    return None


def text_digest(text: str) -> str:
    return sha256(text.encode("utf-8")).hexdigest()


def digests(targets: Sequence[Target]) -> dict[str, str]:
    """Each readable dump's text digest, taken before the analysis."""
    out = {}
    for t in targets:
        try:
            out[t.path] = text_digest(read_dump(t.path))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def summary(results: Sequence[FixResult]) -> str:
    from legalog.surfaces.render import counted

    counts = Counter(r.outcome for r in results)
    parts = [
        counted(counts[o], o)
        for o in ("fixed", "unchanged", "legal", "rejected", "error", "internal")
        if counts[o]
    ]
    noun = "file" if len(results) == 1 else "files"
    line = f"{len(results)} {noun}: {', '.join(parts) or 'nothing to fix'}"
    if counts["rejected"] or counts["error"] or counts["internal"]:
        line += " (nothing written for rejected or failed files)"
    return line
