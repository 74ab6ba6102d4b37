"""The `legalog` command line (CONTRACT.md): check, fix, why, query, facts, schema.

Exit codes: 0 nothing rejected; 1 at least one error diagnostic (see --fail-on); 2 usage error
or unreadable input; 3 an internal error (INTERNAL: a bug in legalog, or a file past `--timeout`).
No traceback ever reaches a user (unless `--debug`): bad input is a PARSE diagnostic with
file:line:col, and nothing half-written is left on disk (every write is temp file + rename).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

RUNTIMES = ("host_build_graph", "tensormap_and_ringbuffer")
EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    command = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(command)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("legalog: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except UsageError as err:
        print(f"legalog: {err}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as err:
        print(f"legalog: {err.strerror or err}: {err.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_USAGE
    except Exception as err:  # anything else is legalog's own bug: INTERNAL, exit 3
        if getattr(args, "debug", False):
            raise
        from legalog.surfaces.internal import describe, report_hint

        print(f"legalog: INTERNAL {describe(err)}\nlegalog: {report_hint(command)}", file=sys.stderr)
        return EXIT_INTERNAL


class UsageError(Exception):
    """A command that cannot run as asked; the message says why (exit 2, no traceback)."""


def _silence_stdout() -> None:
    # The reader went away (`legalog ... | head`): point stdout at devnull so the interpreter's
    # final flush does not raise a second BrokenPipeError.
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="legalog", description="Make PyPTO IR dumps legal for host_build_graph.")
    parser.add_argument("--version", action="version", version=f"legalog {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="analyse dumps and report diagnostics")
    check.add_argument("paths", nargs="+", metavar="PATH", help="dump files or directories (searched for *.py)")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    _runtime(check)
    check.add_argument("--jobs", type=_positive, default=None, help="worker processes (default: the machine's cores)")
    check.add_argument("--fail-on", choices=("error", "warning", "never"), default="error",
                       help="which findings make the exit status 1 (default: error)")
    check.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    check.add_argument("--no-cache", action="store_true",
                       help="analyse every dump afresh (default: reuse results for unchanged bytes, legalog and options)")
    check.add_argument("--all-dumps", action="store_true",
                       help="in a passes_dump folder, check every dump instead of each pass's position")
    check.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                       help="stop a file's analysis after SECONDS and report it as an error (default: 300; 0: no limit)")
    check.set_defaults(handler=_check)

    fix = sub.add_parser("fix", help="write the legalized program")
    fix.add_argument("file", metavar="FILE")
    out = fix.add_mutually_exclusive_group(required=True)
    out.add_argument("-o", "--output", metavar="OUT", help="where to write the legalized dump")
    out.add_argument("--in-place", action="store_true", help="rewrite FILE itself (atomically)")
    out.add_argument("--diff", action="store_true", help="print a unified diff and write nothing")
    _runtime(fix)
    fix.set_defaults(handler=_fix)

    why = sub.add_parser("why", help="explain the decision for one value of a Graph function")
    why.add_argument("file", metavar="FILE")
    why.add_argument("--function", "-f", required=True, metavar="F", help="the function the value lives in")
    why.add_argument("--var", "-v", required=True, metavar="V", help="the value's name, with or without its SSA suffix")
    why.add_argument("--format", choices=("text", "json"), default="text")
    _runtime(why)
    why.set_defaults(handler=_why)

    query = sub.add_parser("query", help="answer an ad-hoc Datalog query over facts and derived relations")
    query.add_argument("file", metavar="FILE")
    query.add_argument("query", nargs="?", metavar="QUERY", help='one atom, e.g. \'hoisted_scalar(V)\' or \'blocking(R, X, "call")\'')
    query.add_argument("--list", action="store_true", help="name every relation with its columns")
    query.add_argument("--format", choices=("text", "json"), default="text")
    _runtime(query)
    query.set_defaults(handler=_query)

    facts = sub.add_parser("facts", help="export every extracted relation as Soufflé-style .facts files")
    facts.add_argument("file", metavar="FILE")
    facts.add_argument("-o", "--output", required=True, metavar="DIR")
    _runtime(facts)
    facts.set_defaults(handler=_facts)

    schema = sub.add_parser("schema", help="print the JSON Schema of `check --format json`")
    schema.set_defaults(handler=_schema)
    for command in (parser, *sub.choices.values()):  # `legalog --debug fix ...` or `legalog fix ... --debug`
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show the traceback of an internal error (a bug in legalog)")
    return parser


def _runtime(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runtime", choices=RUNTIMES, default="host_build_graph", help="the runtime compiled for")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a finite number of seconds, 0 for no limit")
    return value


def _version() -> str:
    from legalog.version import __version__

    return __version__


# ----------------------------------------------------------------------------------- check


def _check(args: argparse.Namespace) -> int:
    from legalog.surfaces import batch
    from legalog.surfaces.dumps import plan
    from legalog.surfaces.render import render_sarif, render_text, report

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    if args.no_cache:
        os.environ["LEGALOG_NO_CACHE"] = "1"  # read by the cache in this process and in the workers
    targets = plan(args.paths, args.all_dumps)
    if not targets:
        raise UsageError("no *.py dumps found under the given paths")
    # which dump stands for each pass's position: with the findings in text, on stderr otherwise
    where = sys.stdout if args.format == "text" else sys.stderr
    for target in targets:
        if target.folder is not None:
            print(f"passes_dump {target.describe()}", file=where)
    jobs = args.jobs or batch.default_jobs()
    show_bar = args.format == "text" and not args.no_progress and sys.stderr.isatty() and len(targets) > 1
    timeout = batch.DEFAULT_TIMEOUT if args.timeout is None else args.timeout or None
    results = (_run_with_progress(targets, args.runtime, jobs, timeout) if show_bar
               else batch.run(targets, args.runtime, jobs, timeout=timeout))  # fmt: skip
    if args.format == "json":
        print(report(results).model_dump_json(indent=2))
    elif args.format == "sarif":
        print(json.dumps(render_sarif(results), indent=2))
    else:
        print(render_text(results))
    return _exit_status(results, args.fail_on)


def _run_with_progress(targets, runtime: str, jobs: int, timeout: float | None):  # type: ignore[no-untyped-def]
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from legalog.surfaces import batch

    columns = (TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("check", total=len(targets))
        return batch.run(targets, runtime, jobs, progress=lambda _r: bar.advance(task), timeout=timeout)


def _exit_status(results, fail_on: str) -> int:  # type: ignore[no-untyped-def]
    errors = [r for r in results if r.status == "error"]
    if any(d.code in ("INTERNAL", "TIMEOUT") for r in errors for d in r.diagnostics):
        return EXIT_INTERNAL  # legalog failed on a file: its fault, not the input's
    if errors:
        return EXIT_USAGE
    severities = {"error": ("error",), "warning": ("error", "warning"), "never": ()}[fail_on]
    if any(d.severity in severities for r in results for d in r.diagnostics):
        return EXIT_REJECTED
    return EXIT_OK


# -------------------------------------------------------------------------- one-file commands


def _load(path: str, runtime: str):  # type: ignore[no-untyped-def]
    """Analyse one file, or raise UsageError with the PARSE diagnostic's file:line:col."""
    from legalog.pipeline import analyze
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_file

    if not Path(path).is_file():
        raise UsageError(f"no such file: {path}")
    try:
        program = parse_file(path)
    except ParseError as err:
        raise UsageError(f"PARSE {path}:{err.line}:{err.col}: {err.reason}") from None
    return analyze(program, path, runtime)


# ------------------------------------------------------------------------------------- fix


def _fix(args: argparse.Namespace) -> int:
    from legalog.surfaces.render import file_model, render_text

    analysis = _load(args.file, args.runtime)
    text = analysis.legalized_text()
    if text is None:
        print(render_text([file_model(analysis)], show_summary=False), file=sys.stderr)
        print(f"legalog: {args.file} is rejected; nothing written", file=sys.stderr)
        return EXIT_REJECTED
    original = Path(args.file).read_text(encoding="utf-8")
    if args.diff:
        sys.stdout.writelines(difflib.unified_diff(original.splitlines(True), text.splitlines(True),
                                                   fromfile=args.file, tofile=f"{args.file} (legalized)"))  # fmt: skip
        return EXIT_OK
    target = Path(args.file if args.in_place else args.output)
    write_atomic(target, text)
    print(f"legalog: {analysis.status}: wrote {target}", file=sys.stderr)
    return EXIT_OK


def write_atomic(target: Path, text: str) -> None:
    """Write through a temporary file in the same folder and rename it over the target, so an
    interrupted run never leaves a half-written dump.  A failure names `target`, never the
    temporary file (which is gone by then)."""
    if target.is_dir():
        raise UsageError(f"{target} is a folder: give the path of the file to write")
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OSError(err.errno, f"cannot write: {err.strerror or err}", str(target)) from None
        raise


# ------------------------------------------------------------------------------ why, query


def _why(args: argparse.Namespace) -> int:
    from legalog.analyzer.explain import WhyError

    analysis = _load(args.file, args.runtime)
    try:
        explanation = analysis.explain(args.function, args.var)
    except WhyError as err:
        hint = f"; candidates: {', '.join(err.candidates)}" if err.candidates else ""
        raise UsageError(f"{err}{hint}") from None
    if args.format == "json":
        print(json.dumps(explanation.to_json(), indent=2))
    else:
        print(explanation.render_text())
    return EXIT_OK


def _query(args: argparse.Namespace) -> int:
    from legalog.surfaces.query import QueryError, ask, catalogue, parse_query

    if args.list == (args.query is not None):
        raise UsageError("give either a QUERY or --list")
    analysis = _load(args.file, args.runtime)
    if analysis.full_derived is None:  # stopped before the rules: say by what
        why = "; ".join(f"{d.code} {d.line}:{d.column}: {d.message}" for d in analysis.errors)
        raise UsageError(f"{args.file} could not be analysed{': ' + why if why else ''}")
    if args.list:
        return _list_relations(catalogue(analysis.full_derived), args.format)
    try:
        answer = ask(analysis.full_derived, parse_query(args.query))
    except QueryError as err:
        raise UsageError(str(err)) from None
    print(json.dumps(answer.to_json(), indent=2) if args.format == "json" else answer.render_text())
    return EXIT_OK


def _list_relations(relations, fmt: str) -> int:  # type: ignore[no-untyped-def]
    if fmt == "json":
        print(json.dumps([{"name": r.name, "columns": list(r.columns), "kind": r.kind, "meaning": r.meaning}
                          for r in relations.values()], indent=2))  # fmt: skip
        return EXIT_OK
    for kind in ("input", "derived"):
        print(f"# {kind} relations")
        for r in (r for r in relations.values() if r.kind == kind):
            print(f"{r.signature():<48} {r.meaning}".rstrip())
    return EXIT_OK


# ----------------------------------------------------------------------------- facts, schema


def _facts(args: argparse.Namespace) -> int:
    from legalog.facts.schema import INPUT_RELATIONS
    from legalog.facts.store import write_facts
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_file
    from legalog.pipeline import extract

    if not Path(args.file).is_file():
        raise UsageError(f"no such file: {args.file}")
    try:
        program = parse_file(args.file)
    except ParseError as err:
        raise UsageError(f"PARSE {args.file}:{err.line}:{err.col}: {err.reason}") from None
    facts = extract(program, args.runtime)
    written = write_facts(facts.as_mapping(), INPUT_RELATIONS, Path(args.output))
    print(f"legalog: {facts.count()} facts in {len(written)} relations written to {args.output}", file=sys.stderr)
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from legalog.surfaces.report import ReportModel

    print(json.dumps(ReportModel.model_json_schema(), indent=2))
    return EXIT_OK
