"""``codeact policy``: show a policy, probe it with attack suites, diff two policies.

- ``show [PRESET|FILE] [--json]``: the effective policy, its digest, and the state of
  each confinement mechanism on this machine (from a started sandbox).
- ``probe [--policy P] [--suite escapes|redcode|DIR] [--layers language,os]... [--json]
  [--html FILE]``: the per-category table and attack success rate (``--layers``
  repeated: one run per configuration, compared side by side); ``--json`` prints one
  JSON record per case; ``--html`` writes a heat map of categories × configurations.
  Exit 1 if anything escaped, 0 otherwise.
- ``diff A B [--json] [--exit-code]``: the fields that differ (dotted paths) and what
  that changes; with ``--exit-code`` the status is 1 when their rules differ (their
  digests; the name is a label), as with
  ``git diff --exit-code``, so that a CI step can gate on a policy change.

Exit status 2 for bad usage (message on stderr), 3 when the sandbox itself failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from sandbox.errors import PolicyError, SandboxError
from sandbox.host.sandbox import Sandbox
from sandbox.policy import Mount, SandboxPolicy
from sandbox.probe import (
    SUITES,
    CaseResult,
    ProbeRefused,
    render_comparison,
    render_table,
    run_suite,
)
from sandbox.probe.diff import diff_policies
from sandbox.probe.progress import DisplayKind, ProbeProgress
from sandbox.probe.report_html import render_probe_report
from sandbox.probe.report_info import probe_info

EXIT_OK, EXIT_ESCAPED, EXIT_USAGE, EXIT_SANDBOX = 0, 1, 2, 3
#: ``diff --exit-code``: the policies differ.
EXIT_DIFFERENT = 1
LAYERS = ("language", "os")


class PolicyReport(BaseModel):
    """``codeact policy show --json``."""

    policy: dict[str, object]
    digest: str
    confinement: dict[str, str]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``policy`` and its subcommands on the top-level parser."""
    parser = subparsers.add_parser(
        "policy",
        help="show, probe or compare sandbox policies",
        description="Show a policy, probe it with attack suites, or compare two policies.",
    )
    commands = parser.add_subparsers(dest="policy_command", metavar="COMMAND")
    parser.set_defaults(handler=lambda args: _usage(parser))

    show = commands.add_parser("show", help="the effective policy and what this machine enforces")
    show.add_argument("policy", nargs="?", default="default", help="preset or policy file")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(handler=run_show)

    probe = commands.add_parser("probe", help="run an attack suite against a policy")
    probe.add_argument("--policy", default="default", help="preset or policy file")
    probe.add_argument(
        "--suite", default="escapes", help=f"{' or '.join(SUITES)}, or a directory of cases"
    )
    probe.add_argument(
        "--layers",
        action="append",
        help="the layers left on, comma-separated (default: language,os); "
        "repeat to compare configurations",
    )
    probe.add_argument(
        "--html", metavar="FILE", help="write a heat map of categories × configurations"
    )
    probe.add_argument(
        "--display",
        choices=("rich", "plain", "none"),
        help="progress: a live bar on a terminal (default), plain lines, or nothing",
    )
    probe.add_argument(
        "--category", action="append", default=[], help="run only this category (repeatable)"
    )
    probe.add_argument("--json", action="store_true", help="one JSON record per case")
    probe.add_argument(
        "--allow-unconfined",
        action="store_true",
        help="run plain-Python attacks even where the OS layer is degraded",
    )
    probe.set_defaults(handler=run_probe)

    diff = commands.add_parser("diff", help="what differs between two policies")
    diff.add_argument("a", help="preset or policy file")
    diff.add_argument("b", help="preset or policy file")
    diff.add_argument("--json", action="store_true", help="one JSON array of changes")
    diff.add_argument(
        "--exit-code",
        action="store_true",
        help="exit with status 1 when the policies differ (0 when they are the same)",
    )
    diff.set_defaults(handler=run_diff)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _fail(command: str, message: str, status: int = EXIT_USAGE) -> int:
    print(f"codeact policy {command}: {message}", file=sys.stderr)
    return status


def run_show(args: argparse.Namespace) -> int:
    """Carry out ``codeact policy show``."""
    try:
        policy = SandboxPolicy.load(args.policy)
        policy.worker_config()  # a mount whose directory is missing is the file's fault
    except PolicyError as exc:
        return _fail("show", str(exc))
    try:
        with Sandbox(policy, spares=0) as sandbox, sandbox.session():
            confinement = dict(sandbox.confinement)
    except PolicyError as exc:  # found when the sandbox starts, as `codeact exec` says
        return _fail("show", str(exc))
    except SandboxError as exc:
        return _fail("show", f"the sandbox failed: {exc}", EXIT_SANDBOX)
    report = PolicyReport(
        policy=policy.model_dump(mode="json"), digest=policy.digest(), confinement=confinement
    )
    label = _label(args.policy, policy)
    print(
        report.model_dump_json(indent=2)
        if args.json
        else render_policy(policy, confinement, label=label)
    )
    return EXIT_OK


def render_policy(
    policy: SandboxPolicy, confinement: dict[str, str], *, label: str | None = None
) -> str:
    """A readable description of a policy (named ``label``, by default its name) and of
    what this machine enforces."""
    limits = policy.limits.model_dump()
    layers = ", ".join(f"{n} {'on' if getattr(policy.layers, n) else 'off'}" for n in LAYERS)
    lines = [
        f"policy: {label or policy.name}",
        f"digest: {policy.digest()}",
        f"layers: {layers}",
        f"modules ({len(policy.modules)}, curated): {' '.join(policy.modules)}",
        *_uncurated_lines(policy),
        f"builtins: {len(policy.builtins)} names",
        "limits: " + ", ".join(f"{k}={v}" for k, v in limits.items()),
    ]
    if policy.mounts:
        lines.append("mounts:")
        lines += [f"  {m.sandbox_path} -> {m.host_path} ({_access(m)})" for m in policy.mounts]
    else:
        lines.append("mounts: none")
    lines.append(f"requires: {', '.join(policy.require) or 'nothing beyond the layers'}")
    lines.append("enforced on this machine:")
    width = max([len(k) for k in confinement] + [1])
    lines += [f"  {name:<{width}}  {state}" for name, state in confinement.items()]
    return "\n".join(lines)


def _access(mount: Mount) -> str:
    if mount.mode == "ro":
        return "read-only"
    return f"read-write, {mount.max_bytes} bytes writable per session"


def _label(spec: str, policy: SandboxPolicy) -> str:
    """A policy's name for reports: a file's own ``name``, else the file's path."""
    if spec in SandboxPolicy.PRESETS or policy.name not in ("custom", *SandboxPolicy.PRESETS):
        return policy.name
    return spec if policy.name == "custom" else f"{spec} (extends {policy.name})"


def _uncurated_lines(policy: SandboxPolicy) -> list[str]:
    if not policy.extra_modules:
        return []
    lines = [
        f"modules ({len(policy.extra_modules)}, uncurated, contained by the OS layer only): "
        + " ".join(policy.extra_modules)
    ]
    if "*" in policy.extra_modules:
        lines.append(
            "WARNING: '*' allows EVERY installed module (ctypes, subprocess...): the language "
            "layer no longer holds; only the OS layer contains the script"
        )
    if policy.trust_uncurated:
        lines.append(
            "WARNING: trust_uncurated = true: uncurated modules run even where the OS layer "
            "is off or degraded"
        )
    else:
        lines.append("  (the sandbox refuses to start unless the whole OS layer is active)")
    if policy.deny:
        lines.append(
            "denied members (policy): "
            + "; ".join(f"{m}: {', '.join(v)}" for m, v in policy.deny.items())
        )
    return lines


def _layers(text: str) -> dict[str, bool]:
    names = [n.strip() for n in text.split(",") if n.strip() and n.strip() != "none"]
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        raise ValueError(f"--layers: unknown layer(s) {', '.join(unknown)}; use language,os")
    return {name: name in names for name in LAYERS}


def run_probe(args: argparse.Namespace) -> int:
    """Carry out ``codeact policy probe``."""
    configurations = args.layers or ["language,os"]
    try:
        policies = {
            layers: SandboxPolicy.load(args.policy).with_layers(**_layers(layers))
            for layers in configurations
        }
    except (PolicyError, ValueError) as exc:
        return _fail("probe", str(exc))
    runs: dict[str, list[CaseResult]] = {}
    for layers, policy in policies.items():
        kind: DisplayKind | None = "none" if args.json and not args.display else args.display
        progress = ProbeProgress(kind, f"layers on: {layers or 'none'}")
        try:
            results = run_suite(
                policy,
                args.suite,
                categories=args.category or None,
                allow_unconfined=args.allow_unconfined,
                on_start=progress.start,
                on_result=progress.result,
            )
        except (ProbeRefused, ValueError, FileNotFoundError) as exc:
            return _fail("probe", str(exc))
        except SandboxError as exc:
            return _fail("probe", f"the sandbox failed: {exc}", EXIT_SANDBOX)
        finally:
            progress.close()
        if not results:
            return _fail("probe", "no case matched the selected categories")
        runs[f"layers on: {layers or 'none'}"] = results
        _report(args, layers, policy, results)
    if len(runs) > 1 and not args.json:
        print("attack success rate (escaped / cases):")
        print(render_comparison(runs))
    if args.html:
        title = f"suite {args.suite} under policy {args.policy}"
        labelled = {f"layers on: {layers or 'none'}": p for layers, p in policies.items()}
        page = render_probe_report(probe_info(title, labelled), runs)
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as exc:
            return _fail("probe", f"cannot write {args.html}: {exc.strerror or exc}")
    escaped = any(r.outcome == "escaped" for results in runs.values() for r in results)
    return EXIT_ESCAPED if escaped else EXIT_OK


def _report(
    args: argparse.Namespace, layers: str, policy: SandboxPolicy, results: list[CaseResult]
) -> None:
    if args.json:
        for result in results:
            print(result.model_dump_json())
        return
    title = (
        f"suite {args.suite} under policy {_label(args.policy, policy)} "
        f"(layers on: {layers or 'none'}; digest {policy.digest()[:12]})"
    )
    print(render_table(results, title))
    for result in results:
        if result.outcome == "escaped":
            print(f"ESCAPED {result.id}: {result.detail}")


def run_diff(args: argparse.Namespace) -> int:
    """Carry out ``codeact policy diff``."""
    try:
        a, b = SandboxPolicy.load(args.a), SandboxPolicy.load(args.b)
    except PolicyError as exc:
        return _fail("diff", str(exc))
    changes = diff_policies(a, b)
    # The rules differ when the digests do: a new name alone changes no rule.
    differ = EXIT_DIFFERENT if args.exit_code and a.digest() != b.digest() else EXIT_OK
    if args.json:
        print(json.dumps([c.model_dump(mode="json") for c in changes], indent=2))
        return differ
    if not changes:
        print(f"no differences (digest {a.digest()[:12]})")
        return EXIT_OK
    print(f"{args.a} (digest {a.digest()[:12]}) -> {args.b} (digest {b.digest()[:12]})")
    for change in changes:
        before, after = _short(change.before), _short(change.after)
        print(f"{change.path}: {before} -> {after}\n    {change.meaning}")
    return differ


def _short(value: object, limit: int = 60) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sandbox.policy_cli policy ...``, for use before the command is wired."""
    parser = argparse.ArgumentParser(prog="codeact")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
