"""``codeact bench list | run | report``.

``run`` exits 0 when every sample passed, 1 when some failed or errored (or the log
could not be written), 2 for bad usage, 3 when the sandbox failed, 130 when interrupted
(the finished samples stay logged: rerun to resume). ``list`` exits 1 when a built-in
suite cannot be loaded; ``report`` 2 when the directory holds no readable run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from codeact.bench.loading import BUILTIN, load_suite, suite_from_jsonl
from codeact.bench.logdir import LogDir, LogDirError
from codeact.bench.records import ActionMode, SampleRecord
from codeact.bench.suite import Suite, SuiteError
from codeact.bench.summarize import summarize, summary_table
from codeact.models import ModelError
from sandbox import PolicyError, SandboxError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SANDBOX = 0, 1, 2, 3
_MODES = ("code", "json", "text")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench`` and its subcommands."""
    bench = subparsers.add_parser(
        "bench", help="run an agent benchmark suite", description="Run benchmark suites."
    )
    sub = bench.add_subparsers(dest="bench_command", metavar="SUBCOMMAND")
    listing = sub.add_parser("list", help="the built-in suites, with task counts and domains")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=list_suites)
    _add_run(sub)
    report = sub.add_parser(
        "report", help="the summary of a run's log directory, or two runs compared"
    )
    report.add_argument("log_dir", metavar="LOG_DIR")
    report.add_argument(
        "other", metavar="OTHER_LOG_DIR", nargs="?", help="compare with this run, sample by sample"
    )
    report.add_argument("--json", action="store_true", help="print the summary as JSON")
    report.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    report.set_defaults(handler=report_run)
    bench.set_defaults(handler=lambda args: _help(bench))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run a suite against a model")
    run.add_argument("suite", nargs="?", help=f"{', '.join(BUILTIN)} or MODULE:ATTR")
    run.add_argument("--suite-file", metavar="TASKS.jsonl", help="tasks as JSON lines")
    run.add_argument("--tools", metavar="MODULE:ATTR", help="tools for --suite-file")
    run.add_argument("--grader", metavar="MODULE:FN", help="grader for --suite-file")
    run.add_argument("--model", required=True, help="golden, openai:…, anthropic:…, ...")
    run.add_argument("--log-dir", metavar="DIR", help="default: logs/SUITE-MODEL")
    run.add_argument("--concurrency", type=int, default=8, metavar="N", help="samples at once")
    run.add_argument("--max-connections", type=int, metavar="N", help="model calls at once")
    run.add_argument("--epochs", type=int, default=1, metavar="K")
    run.add_argument("--tasks", metavar="GLOB", help="task ids to run (comma-separated globs)")
    run.add_argument("--limit", type=int, metavar="N", help="at most N tasks")
    run.add_argument("--action-mode", default="code", metavar="MODES", help="code,json,text")
    run.add_argument("--protocol", choices=("codeact", "paper"), default="codeact")
    run.add_argument("--policy", default="default", help="strict, default or a policy file")
    run.add_argument("--max-steps", type=int, default=10, metavar="N")
    run.add_argument("--retry-on-error", type=int, default=1, metavar="N")
    run.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="run samples here or on a Ray cluster (pip install 'codeact[ray]')",
    )  # fmt: skip
    run.add_argument(
        "--ray-address", metavar="ADDRESS",
        help="Ray cluster to use (auto, ray://HOST:PORT, ...); default: a local Ray for the run",
    )  # fmt: skip
    run.add_argument("--display", choices=("rich", "plain", "none"))
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.set_defaults(handler=run_suite)


def list_suites(args: argparse.Namespace) -> int:
    """Carry out ``codeact bench list``."""
    rows: list[dict[str, Any]] = []
    for name in BUILTIN:
        try:
            suite = load_suite(name)
        except SuiteError as exc:
            rows.append({"name": name, "error": str(exc)})
            continue
        rows.append(
            {
                "name": name,
                "tasks": len(suite.tasks),
                "domains": {d: sum(t.domain == d for t in suite.tasks) for d in suite.domains},
                "golden": suite.golden is not None,
                "description": suite.description,
            }
        )
    # A built-in suite that does not load is a broken install: say so, and fail.
    status = EXIT_FAILED if any("error" in row for row in rows) else EXIT_OK
    if args.json:
        print(json.dumps(rows, indent=2))
        return status
    for row in rows:
        if "error" in row:
            print(f"{row['name']}: unavailable: {row['error']}", file=sys.stderr)
            continue
        domains = ", ".join(f"{d} {n}" for d, n in row["domains"].items())
        print(f"{row['name']}: {row['tasks']} tasks ({domains}) — {row['description']}")
    return status


def _suite(args: argparse.Namespace) -> Suite:
    if args.suite_file:
        if args.suite:
            raise SuiteError("give SUITE or --suite-file, not both")
        return suite_from_jsonl(args.suite_file, args.tools, args.grader)
    if not args.suite:
        raise SuiteError("name a SUITE (see `codeact bench list`) or give --suite-file")
    if args.tools or args.grader:
        raise SuiteError("--tools and --grader go with --suite-file")
    return load_suite(args.suite)


def _modes(text: str) -> list[ActionMode]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in _MODES]
    if bad or not modes or len(set(modes)) != len(modes):
        raise SuiteError(f"--action-mode {text!r}: give distinct modes among code, json, text")
    return modes  # type: ignore[return-value]


def _default_log_dir(suite: str, model: str) -> Path:
    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{suite}-{model}")
    return Path("logs") / slug[:120]


def run_suite(args: argparse.Namespace) -> int:
    """Carry out ``codeact bench run``."""
    from codeact.bench.config import BenchConfig
    from codeact.bench.display import make_display
    from codeact.bench.runner import run_bench

    try:
        suite = _suite(args)
        log_dir = args.log_dir or _default_log_dir(suite.name, args.model)
        config = BenchConfig(
            suite=suite, model=args.model, log_dir=Path(log_dir),
            protocol=args.protocol, action_modes=_modes(args.action_mode), epochs=args.epochs,
            tasks=args.tasks, limit=args.limit, policy=args.policy, max_steps=args.max_steps,
            concurrency=args.concurrency, max_connections=args.max_connections,
            retry_on_error=args.retry_on_error, backend=args.backend,
            ray_address=args.ray_address,
        )  # fmt: skip
        config.check()
        display = make_display("none" if args.json and args.display is None else args.display)
        summary = asyncio.run(run_bench(config, display))
    except ImportError as exc:
        if args.backend != "ray":
            raise
        print(f"codeact bench run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (SuiteError, LogDirError, PolicyError, ModelError, ValueError) as exc:
        print(f"codeact bench run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SandboxError as exc:
        print(f"codeact bench run: the sandbox failed: {exc}", file=sys.stderr)
        return EXIT_SANDBOX
    except OSError as exc:
        print(f"codeact bench run: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(summary.model_dump_json(indent=2))
    else:
        print(summary_table(summary))
        print(f"logs: {config.log_dir}")
    return EXIT_OK if summary.passed == summary.samples else EXIT_FAILED


def load_records(log_dir: str | Path) -> tuple[LogDir, list[SampleRecord]]:
    """The samples of a log directory; `LogDirError` when it holds no run."""
    logs = LogDir(log_dir)
    info = logs.read_run()
    if info is None:
        raise LogDirError(f"{log_dir}: no run.json — not a `codeact bench run` log directory")
    return logs, logs.read_samples()


def report_run(args: argparse.Namespace) -> int:
    """Carry out ``codeact bench report``."""
    if args.other is not None:
        return compare_runs(args)
    try:
        logs, records = load_records(args.log_dir)
        info = logs.read_run()
        assert info is not None
        summary = summarize(info.config.suite, info.config.model, info.config.protocol, records)
        if args.html:
            from codeact.bench.html import write_report

            write_report(Path(args.html), info, summary, records)
    except (LogDirError, OSError) as exc:
        print(f"codeact bench report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(summary.model_dump_json(indent=2))
    else:
        print(summary_table(summary))
        if args.html:
            print(f"report: {args.html}")
    return EXIT_OK


def compare_runs(args: argparse.Namespace) -> int:
    """Carry out ``codeact bench report A B``."""
    from codeact.bench.compare import compare, comparison_text
    from codeact.bench.html_compare import write_comparison

    try:
        sides = []
        for log_dir in (args.log_dir, args.other):
            logs, records = load_records(log_dir)
            info = logs.read_run()
            assert info is not None
            config = info.config
            summary = summarize(config.suite, config.model, config.protocol, records)
            sides.append((info, summary, records))
        (info_a, summary_a, records_a), (info_b, summary_b, records_b) = sides
        comparison = compare(summary_a, records_a, summary_b, records_b)
        if args.html:
            write_comparison(Path(args.html), (info_a, info_b), comparison)
    except (LogDirError, OSError) as exc:
        print(f"codeact bench report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(comparison.model_dump_json(indent=2))
    else:
        print(comparison_text(comparison))
        if args.html:
            print(f"report: {args.html}")
    return EXIT_OK
