"""The `legalog` command line (CONTRACT.md): check, merge, fix, validate, why, query, facts, rule,
schema.

Exit codes: 0 nothing rejected; 1 at least one error diagnostic (see --fail-on); 2 usage error
or unreadable input; 3 an internal error (INTERNAL: a bug in legalog, or a file past `--timeout`).
No traceback ever reaches a user (unless `--debug`): bad input is a PARSE diagnostic with
file:line:col, and nothing half-written is left on disk (every write is temp file + rename).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from legalog.facts.limits import RUNTIMES
from legalog.rules.engine_names import DEFAULT_ENGINE, ENGINES, ENV_VAR, PROGRAMS, resolve_engine

FAIL_ON = (
    "error",
    "warning",
    "info",
    "never",
)  # `info`: also while a rewrite is pending (a GB2xx or SP310 finding)
EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    command = list(sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(command)
    if unknown:  # said by the command's own parser: its usage, and a suggestion among its options
        getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "engine", None):
        os.environ[ENV_VAR] = (
            args.engine
        )  # read where the rules are evaluated, in this process and its workers
    try:
        resolve_engine()  # a bad $LEGALOG_ENGINE is a usage error here, not a crash in every worker
    except ValueError as err:
        print(f"legalog: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        _configure(args)
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


def run() -> NoReturn:
    """The `legalog` command (and `python -m legalog`): `main`, then the exit.  The exit handlers
    run and the output is flushed as in any exit, but the interpreter's teardown, which frees
    every object the analysis loaded one by one, is skipped; a process with other threads still
    running exits as usual.  What the private `atexit._run_exitfuncs` and `os._exit` buy: a
    `check --no-cache examples/row_shift.py` took 269 ms of CPU (median of 15; min 251) against
    283 ms (min 272) through `raise SystemExit(main())`, and 40 ms after a `--jobs` batch."""
    import threading

    code = main()
    if threading.active_count() == 1:
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    raise SystemExit(code)


class UsageError(Exception):
    """A command that cannot run as asked; the message says why (exit 2, no traceback)."""


def _silence_stdout() -> None:
    # The reader went away (`legalog ... | head`): point stdout at devnull so the interpreter's
    # final flush does not raise a second BrokenPipeError.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class _Parser(argparse.ArgumentParser):
    """argparse, with "did you mean" for a misspelled command, choice or option (argparse's own
    `suggest_on_error` is Python 3.14's; this one works from 3.11 on)."""

    def error(self, message: str) -> NoReturn:
        super().error(message + _suggestion(self, message))


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    if "maybe you meant" in message:  # argparse already suggested one
        return ""
    if choice := re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message):
        known = re.findall(r"'?([\w.-]+)'?", choice[2])
        word = choice[1]
    elif unknown := re.search(r"unrecognized arguments: (\S+)", message):
        word = unknown[1].split("=", 1)[0]
        known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
        if word in RUFF_HABITS and word not in known:
            return f"; {RUFF_HABITS[word]}"
    else:
        return ""
    close = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


# What a Ruff user types that legalog spells otherwise (`ruff check --fix`: `legalog fix`).
RUFF_HABITS = {
    "--fix": "fixes are written by `legalog fix PATH... --in-place` (`--diff` shows them first)",
    "--unsafe-fixes": "every fix `legalog fix` writes is verified safe: `legalog fix PATH... --in-place`",
}


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="legalog", description="Make PyPTO IR dumps legal for host_build_graph.")
    parser.add_argument("-V", "--version", action="version", version=f"legalog {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="analyse dumps and report diagnostics")
    check.add_argument(
        "paths",
        nargs="*",
        default=["."],
        metavar="PATH",
        help="dump files or directories (searched for *.py; default: the current folder)",
    )
    _report_options(check, "error, or the config's fail-on")
    check.add_argument(
        "--verbose", action="store_true", help="also list the values kept in place, and why that is safe"
    )
    check.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    check.add_argument(
        "--all-dumps",
        action="store_true",
        help="in a passes_dump folder, check every dump instead of each pass's position",
    )
    _selection(check)
    check.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the config's exclude to files named on the command line too (for pre-commit)",
    )
    check.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="check only the K-th of N parts of the inputs (by a stable hash of each path); "
        "`legalog merge` joins the parts' JSON reports",
    )
    _report_destination(check)
    _batch_options(check)
    check.set_defaults(handler=_check)

    merge = sub.add_parser(
        "merge", help="combine the JSON reports of `check --shard K/N` into the whole batch's report"
    )
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="every shard's `--format json` report")
    _output_format(merge)
    merge.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="which findings make the exit status 1 (default: error)",
    )
    _report_destination(merge)
    merge.set_defaults(handler=_merge)

    fix = sub.add_parser("fix", help="write the legalized program")
    fix.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a dump; with --in-place or --diff also several, and folders (a passes_dump folder: its pass positions)",
    )
    out = fix.add_mutually_exclusive_group(required=True)
    out.add_argument(
        "-o", "--output", metavar="OUT", help="where to write the legalized dump (one FILE only)"
    )
    out.add_argument("--in-place", action="store_true", help="rewrite each dump itself (atomically)")
    out.add_argument("--diff", action="store_true", help="print a unified diff and write nothing")
    _runtime(fix)
    _engine(fix)
    fix.add_argument(
        "--jobs",
        type=_positive,
        default=None,
        help="worker processes for many dumps (default: the machine's cores)",
    )
    fix.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    fix.add_argument("-q", "--quiet", action="store_true", help="say nothing but what is rejected or failed")
    fix.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the config's exclude to files named on the command line too (for pre-commit)",
    )
    _batch_options(fix)
    fix.set_defaults(handler=_fix)

    validate = sub.add_parser(
        "validate",
        help="judge a pass's output: is AFTER a correct LegalizeGraphBoundary or LegalizeSpmdLaunches of BEFORE?",
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="BEFORE AFTER (the pass's input and output), or passes_dump folders (every pair in them)",
    )
    validate.add_argument(
        "--pass",
        dest="pass_name",
        choices=("graph", "spmd"),
        default=None,
        help="graph: LegalizeGraphBoundary, spmd: LegalizeSpmdLaunches (default: as the dumps' names say)",
    )
    _report_options(validate, "error: a seed reading, TV541, is a warning")
    _report_destination(validate)
    validate.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    _batch_options(validate)
    validate.set_defaults(handler=_validate)

    why = sub.add_parser("why", help="explain the decision for one value of a Graph function")
    why.add_argument("file", metavar="FILE")
    why.add_argument("--function", "-f", required=True, metavar="F", help="the function the value lives in")
    why.add_argument(
        "--var", "-v", required=True, metavar="V", help="the value's name, with or without its SSA suffix"
    )
    why.add_argument(
        "--format",
        choices=("text", "json", "dot", "svg"),
        default="text",
        help="dot: the derivation as a Graphviz graph; svg: rendered by Graphviz's `dot`",
    )
    _runtime(why)
    _engine(why)
    why.set_defaults(handler=_why)

    query = sub.add_parser("query", help="answer an ad-hoc Datalog query over facts and derived relations")
    query.add_argument("file", metavar="FILE")
    query.add_argument(
        "query",
        nargs="?",
        metavar="QUERY",
        help="one atom, e.g. 'hoisted_scalar(V)' or 'blocking(R, X, \"call\")'",
    )
    query.add_argument("--list", action="store_true", help="name every relation with its columns")
    query.add_argument("--format", choices=("text", "json"), default="text")
    _runtime(query)
    _engine(query)
    query.set_defaults(handler=_query)

    facts = sub.add_parser("facts", help="export every extracted relation as Soufflé-style .facts files")
    facts.add_argument("file", metavar="FILE")
    facts.add_argument("-o", "--output", required=True, metavar="DIR")
    _runtime(facts)
    facts.set_defaults(handler=_facts)

    rule = sub.add_parser(
        "rule", help="document a diagnostic code: meaning, the runtime's reason, before/after, what to do"
    )
    rule.add_argument("code", nargs="?", metavar="CODE")
    rule.add_argument("--all", action="store_true", help="every code")
    rule.set_defaults(handler=_rule)

    rules = sub.add_parser(
        "rules", help="print the Python a rule program is compiled into (the default engine)"
    )
    rules.add_argument(
        "--emit",
        required=True,
        choices=PROGRAMS,
        metavar="NAME",
        help=f"the rule program: {', '.join(PROGRAMS)}",
    )
    rules.set_defaults(handler=_rules)

    schema = sub.add_parser("schema", help="print the JSON Schema of `check --format json`")
    schema.set_defaults(handler=_schema)
    for one in sub.choices.values():
        one.set_defaults(parser=one)
    for command in (parser, *sub.choices.values()):  # `legalog --debug fix ...` or `legalog fix ... --debug`
        command.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show the traceback of an internal error (a bug in legalog)",
        )
    return parser


def _report_options(p: argparse.ArgumentParser, fail_on_default: str) -> None:
    """A batch reported as `check` reports it: its format, runtime and engine, workers, and what fails it."""
    _output_format(p)
    _runtime(p)
    _engine(p)
    p.add_argument(
        "--jobs", type=_positive, default=None, help="worker processes (default: the machine's cores)"
    )
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help=f"which findings make the exit status 1 (default: {fail_on_default})",
    )


def _output_format(p: argparse.ArgumentParser) -> None:
    from legalog.surfaces.formats import ALIASES, FORMATS

    p.add_argument(
        "--output-format",
        "--format",
        dest="format",
        type=lambda v: ALIASES.get(v, v),
        choices=FORMATS,
        default="full",
        metavar="FORMAT",
        help=f"{', '.join(FORMATS)} (default: full; `text` is full)",
    )
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="only the findings: no Graph lines, no summary, no passes_dump lines, no progress bar",
    )


def _report_destination(p: argparse.ArgumentParser) -> None:
    """Where the report goes and what it holds, with Ruff's names: `check`, `validate` and `merge`."""
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument(
        "--statistics",
        action="store_true",
        help="print how many findings of each code instead of the findings (`[*]`: fixable)",
    )
    p.add_argument(
        "--show-fixes",
        action="store_true",
        help="after the report, list per file what `legalog fix` would change",
    )
    p.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 whatever the findings (as --fail-on never; a dump legalog cannot read is still 2)",
    )


def _batch_options(p: argparse.ArgumentParser) -> None:
    """How a batch runs, for `check` and for `fix` over many dumps alike."""
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="analyse every dump afresh (default: reuse results for unchanged bytes, legalog and options)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="stop a file's analysis after SECONDS and report it as an error (default: 300; 0: no limit)",
    )
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="the result cache, shareable by many processes and machines (default: "
        "$LEGALOG_CACHE_DIR, else ~/.cache/legalog)",
    )
    p.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="where files are analysed: local processes (--jobs) or a Dask cluster (--scheduler)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the Dask scheduler for --executor dask (default: $LEGALOG_DASK_SCHEDULER)",
    )


def _shard(text: str):
    from legalog.surfaces.shard import parse_shard

    try:
        return parse_shard(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _runtime(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--runtime",
        choices=RUNTIMES,
        default=None,
        help="the runtime compiled for (default: host_build_graph, or the config's runtime)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="read [tool.legalog] from FILE for every file (default: each file's nearest legalog.toml, "
        "or pyproject.toml with [tool.legalog])",
    )


def _selection(p: argparse.ArgumentParser) -> None:
    """What is reported, over the configuration's lists (Ruff's options)."""
    p.add_argument(
        "--select", type=_codes, metavar="CODES", help="report only these codes or prefixes (comma-separated)"
    )
    p.add_argument(
        "--ignore",
        type=_codes,
        metavar="CODES",
        help="never report these codes or prefixes (replaces the config's)",
    )
    p.add_argument(
        "--extend-ignore",
        type=_codes,
        default=(),
        metavar="CODES",
        help="also ignore these (added to ignore)",
    )
    p.add_argument(
        "--per-file-ignores",
        action="append",
        type=_per_file,
        metavar="GLOB:CODES",
        help="ignore CODES in files matching GLOB (relative to the working folder; repeatable; "
        "replaces the config's)",
    )


def _codes(text: str) -> tuple[str, ...]:
    # as written: checked with the configuration file's own check (config.Overrides)
    return tuple(code.strip() for code in text.split(","))


def _per_file(text: str) -> tuple[str, tuple[str, ...]]:
    glob, sep, codes = text.rpartition(":")
    if not sep or not glob:
        raise argparse.ArgumentTypeError(f"expected GLOB:CODES, got {text!r}")
    return glob, _codes(codes)


def _configure(args: argparse.Namespace) -> None:
    """Fill what the command line left open from the configuration file (CLI overrides file)."""
    if not hasattr(args, "config"):
        return
    from legalog.surfaces.config import ConfigError, Overrides, resolve

    paths = getattr(args, "paths", None) or [getattr(args, "file", ".")]
    try:
        overrides = Overrides(
            getattr(args, "select", None),
            getattr(args, "ignore", None),
            getattr(args, "extend_ignore", ()),
            dict(args.per_file_ignores) if getattr(args, "per_file_ignores", None) else None,
        )
        args.project = resolve(paths, args.config, overrides)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    settings = args.project.settings
    args.runtime = args.runtime or settings.runtime or "host_build_graph"
    if hasattr(args, "fail_on"):
        args.fail_on = args.fail_on or settings.fail_on or "error"
    if getattr(args, "exit_zero", False):
        args.fail_on = "never"


def _engine(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help=f"the Datalog engine that evaluates the rules (default: ${ENV_VAR}, else {DEFAULT_ENGINE}); "
        "both give the same answers",
    )


def _seconds(text: str) -> float:
    from legalog.surfaces.batch import MAX_TIMEOUT

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TIMEOUT:.0f} seconds, 0 for no limit")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _version() -> str:
    from legalog.version import __version__

    return __version__


# ----------------------------------------------------------------------------------- check


def _batch_inputs(args: argparse.Namespace):
    """`check`'s and `fix`'s common set-up of a batch: the paths exist, the cache options agree,
    and the dumps to analyse (less the config's `exclude`)."""
    _batch_setup(args)
    return _planned(args)


def _batch_setup(args: argparse.Namespace) -> None:
    """What every batch checks first: the paths exist, and the cache options agree."""
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    if args.no_cache and args.cache_dir:
        raise UsageError("--no-cache and --cache-dir exclude each other")
    if args.no_cache:
        os.environ["LEGALOG_NO_CACHE"] = "1"  # read by the cache in this process and in the workers


def _batch_results(targets, args: argparse.Namespace, executor, show_bar: bool, verb: str = "checking"):
    """The batch's results in the order of `targets`, run as the options say."""
    from legalog.surfaces import batch

    jobs = args.jobs or batch.default_jobs()
    timeout = batch.DEFAULT_TIMEOUT if args.timeout is None else args.timeout or None
    options = {"cache_dir": args.cache_dir, "executor": executor, "timeout": timeout}
    if show_bar:
        return _run_with_progress(targets, args.runtime, jobs, verb, **options)
    return batch.results(targets, args.runtime, jobs, **options)


def _check(args: argparse.Namespace) -> int:
    from legalog.surfaces.config import without_ignored

    targets = _batch_inputs(args)
    if not targets:
        return EXIT_OK
    indexed = list(enumerate(targets)) if args.shard is None else _shard_targets(targets, args)
    mine = [t for _, t in indexed]
    _say_positions(mine, args.quiet, args.format == "full")
    show_bar = (
        args.format == "full"
        and not (args.no_progress or args.quiet)
        and sys.stderr.isatty()
        and len(mine) > 1
    )
    with _executor(args) as executor:
        results = _batch_results(mine, args, executor, show_bar)
        if show_bar and sys.stdout.isatty():
            results = list(
                results
            )  # the bar and the report share a terminal: the report waits for the bar to go
        # streamed: each entry is printed once every entry before it is done, then dropped
        counts = _print_report(
            without_ignored(results, args.project),
            args,
            _shard_run(indexed, targets, args),
            verbose=args.verbose,
        )
    return _exit_status(counts, args.fail_on)


def _validate(args: argparse.Namespace) -> int:
    """Each pair judged in the batch (`--jobs`, the cache), reported as `check` reports."""
    from legalog.surfaces.dumps import validation_plan

    if args.executor != "local":
        raise UsageError(
            "validate runs on local processes (--jobs): a Dask worker is shipped AFTER but not BEFORE"
        )
    _batch_setup(args)
    try:
        targets = validation_plan(args.paths, args.pass_name)
    except ValueError as err:
        raise UsageError(str(err)) from None
    _say_positions(targets, args.quiet, args.format == "full")
    show_bar = args.format == "full" and not (args.no_progress or args.quiet) and sys.stderr.isatty()
    with _executor(args) as executor:
        results = _batch_results(targets, args, executor, show_bar and len(targets) > 1, "validating")
        counts = _print_report(results, args)
    return _exit_status(counts, args.fail_on)


def _planned(args: argparse.Namespace):
    """The dumps to analyse, less what the config excludes and, in a folder searched, what
    `.gitignore` ignores: a file named on the command line is checked anyway (as Ruff does),
    unless `--force-exclude`."""
    from legalog.surfaces.dumps import Target, plan

    named = {Path(p).resolve() for p in args.paths if not Path(p).is_dir()}
    force = getattr(args, "force_exclude", False)
    targets: list[Target] = []
    excluded: list[Target] = []
    for t in plan(args.paths, getattr(args, "all_dumps", False), args.project.skipped):
        config = None if (Path(t.path).resolve() in named and not force) else args.project.excluded(t.path)
        (excluded if config is not None else targets).append(t)
        if config is not None and Path(t.path).resolve() in named:
            print(f"legalog: {t.path}: excluded by {config.path}", file=sys.stderr)
    if not targets:
        if excluded and force:  # everything named is excluded (pre-commit passing only excluded files)
            print(
                "legalog: nothing to check: every path given is excluded by the configuration",
                file=sys.stderr,
            )
            return []
        raise UsageError(
            "no *.py dumps found under the given paths"
            + (f" ({len(excluded)} excluded by the configuration's `exclude`)" if excluded else "")
        )
    return targets


def _shard_targets(targets, args: argparse.Namespace):
    from legalog.surfaces.shard import select

    return select(targets, args.paths, args.shard)


def _shard_run(indexed, targets, args: argparse.Namespace):
    """What makes a shard's `run` block (what `merge` needs) from the quoted source lines; None
    for an unsharded check."""
    if args.shard is None:
        return None
    from legalog.surfaces.merge import run_block
    from legalog.surfaces.shard import batch_digest

    # every option that changes a result; merge refuses shards that disagree on one
    options = {"runtime": args.runtime, "all_dumps": args.all_dumps, "engine": resolve_engine()}
    digest = batch_digest(targets, args.paths)
    return lambda sources: run_block(
        sources, indexed, args.shard, batch_entries=len(targets), batch_digest=digest, options=options
    )


def _executor(args: argparse.Namespace):
    """A context holding the batch's executor (None: local processes)."""
    import contextlib

    if args.executor == "local":
        if args.scheduler:
            raise UsageError("--scheduler needs --executor dask")
        return contextlib.nullcontext(None)
    from legalog.surfaces.executors import DaskExecutor, ExecutorError

    address = args.scheduler or os.environ.get("LEGALOG_DASK_SCHEDULER")
    if not address:
        raise UsageError("--executor dask needs --scheduler ADDRESS or $LEGALOG_DASK_SCHEDULER")
    try:
        return DaskExecutor(address)
    except ExecutorError as err:
        raise UsageError(str(err)) from None


def _say_positions(targets, quiet: bool, with_full_report: bool) -> None:
    # which dump stands for each pass's position (or which pair `validate` judges): with the
    # findings in full text, on stderr otherwise
    from legalog.surfaces.formats import printable

    if quiet:
        return
    where = sys.stdout if with_full_report else sys.stderr
    for target in targets:
        if target.before is not None:
            print(f"validate {printable(target.describe())}", file=where)
        elif target.folder is not None:
            print(f"passes_dump {printable(target.describe())}", file=where)


def _print_report(results, args: argparse.Namespace, run=None, lines_of=None, verbose: bool = False):
    """Print the report entry by entry as `results` yields them (to `--output-file` when given);
    the Tally of what was printed.  `--statistics` prints the count of each code instead;
    `--show-fixes` adds what `legalog fix` would change, file by file."""
    import contextlib

    from legalog.surfaces.render import fixes_listing, statistics, tally
    from legalog.surfaces.stream import write_report

    fixable: list = []  # only the entries with something to fix, and only for --show-fixes
    if args.show_fixes:
        results = _noting(results, fixable)
    with contextlib.ExitStack() as stack:
        out = sys.stdout
        if args.output_file:
            out = stack.enter_context(open(args.output_file, "w", encoding="utf-8"))
        if args.statistics:
            counts = tally(results)
            out.write(statistics(counts))
        else:
            counts = write_report(
                results,
                args.format,
                out,
                run=run,
                verbose=verbose,
                lines_of=lines_of,
                colour=colour(out),
                quiet=args.quiet,
            )
        if args.show_fixes:
            out.write(fixes_listing(fixable))
    return counts


def _noting(results, fixable: list):
    for f in results:
        if any(d.fixable for d in f.diagnostics):
            fixable.append(f)
        yield f


def colour(stream) -> bool:
    """Colour for a terminal only: never when piped; `NO_COLOR` (non-empty) turns it off and
    `FORCE_COLOR` (non-empty) on, NO_COLOR winning (no-color.org, force-color.org, as rich does)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", None) and stream.isatty()) and os.environ.get("TERM") != "dumb"


def _run_with_progress(targets, runtime: str, jobs: int, verb: str = "checking", **options):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from legalog.surfaces import batch

    columns = (TextColumn(verb), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(verb, total=len(targets))
        yield from batch.results(targets, runtime, jobs, progress=lambda _r: bar.advance(task), **options)


def _merge(args: argparse.Namespace) -> int:
    from legalog.surfaces.merge import MergeError, load_report, merge

    try:
        merged = merge([(name, load_report(name)) for name in args.reports])
    except MergeError as err:
        raise UsageError(str(err)) from None
    _say_positions(merged.targets, args.quiet, args.format == "full")
    counts = _print_report(merged.files, args, lines_of=merged.lines_of)
    return _exit_status(counts, args.fail_on)


def _exit_status(counts, fail_on: str) -> int:
    """From the report's Tally (render.Tally): what its entries' statuses and severities say."""
    if counts.error_codes & {"INTERNAL", "TIMEOUT"}:
        return EXIT_INTERNAL  # legalog failed on a file: its fault, not the input's
    if counts.statuses["error"]:
        return EXIT_USAGE
    severities = {
        "error": ("error",),
        "warning": ("error", "warning"),
        "info": ("error", "warning", "info"),
        "never": (),
    }[fail_on]
    if counts.severities & set(severities):
        return EXIT_REJECTED
    return EXIT_OK


# -------------------------------------------------------------------------- one-file commands


def _load(path: str, runtime: str):
    """Analyse one file, or raise UsageError with the PARSE diagnostic's file:line:col."""
    from legalog.pipeline import analyze

    return analyze(_parsed(path), path, runtime)


def _parsed(path: str):
    """One file's program, or a UsageError: not there, or the PARSE diagnostic's file:line:col
    (a file that is not a regular file, or too large, among them)."""
    from legalog.ir.errors import ParseError
    from legalog.ir.parser import parse_file

    if not os.path.lexists(path):
        raise UsageError(f"no such file: {path}")
    try:
        return parse_file(path)
    except ParseError as err:
        raise UsageError(f"PARSE {path}:{err.line}:{err.col}: {err.reason}") from None


# ------------------------------------------------------------------------------------- fix


def _fix(args: argparse.Namespace) -> int:
    from legalog.surfaces.file_models import file_model
    from legalog.surfaces.fixes import write_atomic, write_output
    from legalog.surfaces.render import render_text

    if len(args.paths) > 1 or Path(args.paths[0]).is_dir():
        return _fix_many(args)
    args.file = args.paths[0]
    if args.force_exclude and (config := args.project.excluded(args.file)) is not None:
        print(f"legalog: {args.file}: excluded by {config.path}", file=sys.stderr)
        return EXIT_OK
    analysis = _load(args.file, args.runtime)
    text = analysis.legalized_text()
    if text is None:
        print(
            render_text([file_model(analysis)], show_summary=False, colour=colour(sys.stderr)),
            file=sys.stderr,
        )
        print(f"legalog: {args.file} is rejected; nothing written", file=sys.stderr)
        return EXIT_REJECTED
    if args.diff:
        return _diff_many([_target(args.file)], [file_model(analysis)], args.quiet)
    if args.in_place:
        written = write_atomic(Path(args.file), text)
    elif args.output == "-":
        sys.stdout.write(text)
        written = True
    else:
        written = write_output(args.output, text)
    if not args.quiet:
        target = args.file if args.in_place else args.output
        print(f"legalog: {analysis.status}: {'wrote' if written else 'unchanged'} {target}", file=sys.stderr)
    return EXIT_OK


def _target(path: str):
    from legalog.surfaces.dumps import Target

    return Target(path)


def _fix_many(args: argparse.Namespace) -> int:
    """Many dumps: `check`'s batch, then each fixable dump written in place (or diffed)."""
    from legalog.surfaces import fixes
    from legalog.surfaces.render import render_text

    if args.output:
        raise UsageError("-o names one output: give one FILE, or use --in-place / --diff for many")
    targets = _batch_inputs(args)
    if not targets:
        return EXIT_OK
    _say_positions(targets, args.quiet, False)  # on stderr: stdout carries the diff
    digests = fixes.digests(targets)
    show_bar = not (args.no_progress or args.quiet) and sys.stderr.isatty() and len(targets) > 1
    with _executor(args) as executor:
        models = list(_batch_results(targets, args, executor, show_bar, "diffing" if args.diff else "fixing"))
    rejected = [m for m in models if m.status in ("rejected", "error")]
    if rejected:
        print(render_text(rejected, show_summary=False, colour=colour(sys.stderr)), file=sys.stderr)
    if args.diff:
        return _diff_many(targets, models, args.quiet)
    results = fixes.apply(targets, models, digests)
    for r in results:
        if r.outcome in ("rejected", "error", "internal") or (r.outcome != "legal" and not args.quiet):
            print(f"legalog: {r.outcome}: {r.path}" + (f" ({r.reason})" if r.reason else ""), file=sys.stderr)
    if not args.quiet:
        print(fixes.summary(results), file=sys.stderr)
    if any(r.outcome == "internal" for r in results):
        return EXIT_INTERNAL
    if any(r.outcome == "error" for r in results):
        return EXIT_USAGE
    return EXIT_REJECTED if any(r.outcome == "rejected" for r in results) else EXIT_OK


def _diff_many(targets, models, quiet: bool = False) -> int:
    """Each pending change as a unified diff on stdout, then `check`'s summary on stderr; exit 1
    when a change is pending (as `ruff check --diff`) or a file is rejected."""
    from legalog.surfaces.fixes import diff_lines, fixed_text, read_dump
    from legalog.surfaces.render import tally

    pending = False
    for target, model in zip(targets, models):
        if model.status == "error":
            continue
        original = read_dump(target.path)
        text = fixed_text(model, original)
        if text is not None and text != original:
            pending = True
            sys.stdout.writelines(diff_lines(target.path, original, text))
    counts = tally(models)
    if not quiet:
        print(counts.summary(), file=sys.stderr)
    status = _exit_status(counts, "error")
    return EXIT_REJECTED if pending and status == EXIT_OK else status


# ------------------------------------------------------------------------------ why, query


def _why(args: argparse.Namespace) -> int:
    from legalog.analyzer.explain import WhyError

    analysis = _load(args.file, args.runtime)
    try:
        explanation = analysis.explain(args.function, args.var)
    except WhyError as err:
        hint = f"; candidates: {', '.join(err.described())}" if err.candidates else ""
        raise UsageError(f"{err}{hint}") from None
    if args.format == "json":
        print(json.dumps(explanation.to_json(), indent=2))
    elif args.format in ("dot", "svg"):
        from legalog.surfaces.dot import GraphvizError, render_dot, render_svg

        text = render_dot(explanation)
        try:
            sys.stdout.write(render_svg(text) if args.format == "svg" else text)
        except GraphvizError as err:
            raise UsageError(str(err)) from None
    else:
        print(explanation.render_text())
    return EXIT_OK


def _query(args: argparse.Namespace) -> int:
    from legalog.surfaces.query import QueryError, ask, catalogue, parse_query, resolve_names, spellings

    if args.list == (args.query is not None):
        raise UsageError("give either a QUERY or --list")
    analysis = _load(args.file, args.runtime)
    if analysis.full_derived is None:  # stopped before the rules: say by what
        why = "; ".join(f"{d.code} {d.line}:{d.column}: {d.message}" for d in analysis.errors)
        raise UsageError(f"{args.file} could not be analysed{': ' + why if why else ''}")
    if args.list:
        return _list_relations(catalogue(analysis.full_derived), args.format)
    derived = analysis.full_derived
    names = spellings(
        (str(v) for v, _f in derived["var_fn"]), {f: v.printed for f, v in analysis.versions.items()}
    )
    try:
        query, used = resolve_names(parse_query(args.query), derived, names)
        answer = ask(derived, query)
    except QueryError as err:
        raise UsageError(str(err)) from None
    if args.format == "json":
        print(json.dumps({**answer.to_json(), "resolved": used}, indent=2))
        return EXIT_OK
    for name, vid in used.items():  # on stderr: the answer on stdout stays the table
        print(f'legalog: "{name}" read as "{vid}"', file=sys.stderr)
    print(answer.render_text())
    return EXIT_OK


def _list_relations(relations, fmt: str) -> int:
    if fmt == "json":
        print(
            json.dumps(
                [
                    {"name": r.name, "columns": list(r.columns), "kind": r.kind, "meaning": r.meaning}
                    for r in relations.values()
                ],
                indent=2,
            )
        )
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
    from legalog.pipeline import extract

    facts = extract(_parsed(args.file), args.runtime)
    written = write_facts(facts.as_mapping(), INPUT_RELATIONS, Path(args.output))
    print(
        f"legalog: {facts.count()} facts in {len(written)} relations written to {args.output}",
        file=sys.stderr,
    )
    return EXIT_OK


def _rule(args: argparse.Namespace) -> int:
    from legalog.analyzer.codes import CODES
    from legalog.surfaces.rule_docs import all_rules, rule_text

    if args.all == (args.code is not None):
        raise UsageError("give either a CODE or --all")
    if args.all:
        print(all_rules())
        return EXIT_OK
    names = {info.name: c for c, info in CODES.items()}  # `rule graph-view-offset-varies`
    code = names.get(args.code.lower(), args.code.upper())
    if code not in CODES:
        close = difflib.get_close_matches(code, list(CODES), n=3) or [
            names[n] for n in difflib.get_close_matches(args.code.lower(), list(names), n=3)
        ]
        raise UsageError(
            f"unknown code {args.code}"
            + (f"; did you mean {', '.join(f'{c} ({CODES[c].name})' for c in close)}?" if close else "")
            + " (`legalog rule --all` lists every code)"
        )
    print(rule_text(code))
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    from legalog.rules.backends.compiled import source
    from legalog.rules.language import RuleProgram
    from legalog.rules.programs import PROGRAMS as FILES

    print(source(RuleProgram.load(FILES[args.emit])), end="")
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from legalog.surfaces.report import ReportModel, json_schema

    print(json.dumps(json_schema(ReportModel), indent=2))
    return EXIT_OK
