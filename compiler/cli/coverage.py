"""`python -m compiler coverage TEMPLATE --input outputs.jsonl`: report, with
offsets, every span of each output that reaches neither the message nor a
delimiter (see compiler/diagnostics/loss.py). Exit 1 when any loss is unexplained or
a line fails, 2 when the template does not load."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..frontend import source as sources
from ..errors import TemplateError


def add_coverage_parser(commands) -> None:
    coverage = commands.add_parser(
        "coverage",
        help="report spans of model outputs that reach neither the message nor a delimiter (needs transformers)",
        description=(
            "Parse each output with TEMPLATE (through the reference interpreter) and report every span, with "
            "offsets into the output, that is lost: null-sink text, overwritten regions, text a content parser "
            "skips, bodies a transform never uses. Whitespace is not loss. Losses explained for this template in "
            "templates_src/coverage/<template>.json are marked as such. With --input, one JSON line per input line: "
            '{"line": N, ID: ..., "loss": [{"start", "end", "text", "kind", "field", "explained"?}]} or '
            '{"line": N, ID: ..., "error": {...}}. Exit 1 when a loss is unexplained or a line fails.'
        ),
    )
    coverage.add_argument("template", metavar="TEMPLATE")
    given = coverage.add_mutually_exclusive_group()
    given.add_argument("--text", help="one model output (default: read standard input)")
    given.add_argument("--input", type=Path, metavar="FILE", help="a JSON-lines file of outputs ('-': stdin)")
    coverage.add_argument(
        "--prefix", default="", help="the prompt (default: none; with --input, for lines without one)"
    )
    coverage.add_argument("--tools", type=Path, help="a JSON file with a list of tools")
    coverage.add_argument("--text-field", default="output", metavar="NAME", help="the model output (default: output)")
    coverage.add_argument("--prefix-field", default="prefix", metavar="NAME", help="the prompt (default: prefix)")
    coverage.add_argument("--tools-field", default="tools", metavar="NAME", help="the tool list (default: tools)")
    coverage.add_argument("--id-field", default="id", metavar="NAME", help="copied to the output line (default: id)")


def run_coverage(args: argparse.Namespace) -> int:
    from ..diagnostics.loss import explain, trace, unexplained

    try:
        source = sources.read(args.template)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        tools = json.loads(args.tools.read_text(encoding="utf-8")) if args.tools else None
    except (OSError, ValueError) as error:
        print(f"--tools: {error}", file=sys.stderr)
        return 2
    template, name = source.template, source.name

    def losses_of(text: str, prefix: str, line_tools) -> list:
        return explain(trace(template, text, prefix=prefix, tools=line_tools), name)

    if args.input is None:
        text = args.text if args.text is not None else sys.stdin.read()
        try:
            losses = losses_of(text, args.prefix, tools)
        except (ValueError, KeyError, TypeError) as error:
            print(f"parse error: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        print(json.dumps([loss.as_dict() for loss in losses], indent=2, ensure_ascii=False))
        return 1 if unexplained(losses) else 0

    stream = sys.stdin if str(args.input) == "-" else args.input.open(encoding="utf-8")
    lines = failed = lossy = 0
    with stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                print()
                continue
            lines += 1
            out: dict = {"line": number}
            try:
                record = json.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError("a line must be a JSON object")
                if args.id_field in record:
                    out[args.id_field] = record[args.id_field]
                if args.text_field not in record:
                    raise ValueError(f"missing field {args.text_field!r}")
                losses = losses_of(
                    record[args.text_field],
                    record.get(args.prefix_field, args.prefix) or "",
                    record.get(args.tools_field, tools),
                )
                out["loss"] = [loss.as_dict() for loss in losses]
                lossy += bool(unexplained(losses))
            except (ValueError, KeyError, TypeError) as error:
                failed += 1
                out["error"] = {"type": type(error).__name__, "message": str(error), "line": number}
            print(json.dumps(out, ensure_ascii=False))
    print(f"{lines} outputs: {lossy} with unexplained loss, {failed} failed", file=sys.stderr)
    return 1 if (lossy or failed) else 0
