"""`python -m compiler infer SOURCE` and `python -m compiler roundtrip TEMPLATE --chat-template SOURCE`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import TemplateError
from ..frontend import source as sources


def add_parsers(commands) -> None:
    infer = commands.add_parser(
        "infer",
        help="infer a response template from a model's chat template, and check it by a round trip",
        description="Render probe conversations through SOURCE's chat template (a chat_template.jinja, a "
        "tokenizer_config.json, or a save_pretrained directory) in transformers' sandboxed Jinja environment, diff the "
        "renders into the delimiters of a response template, then parse further probes rendered by the chat template "
        "with the compiled template. Writes the template (standard output, -o, or --write) and reports each part, "
        "what could not be inferred and why, and the round trip. Exit 0 when complete, 1 when partial (some probes do "
        "not come back, or tool calls were not inferred), 2 when nothing could be inferred (nothing is written).",
    )
    infer.add_argument("source", nargs="?", metavar="SOURCE")
    infer.add_argument("-o", "--out", type=Path, help="write the template to this file")
    infer.add_argument(
        "--write", action="store_true", help="store it as response_template in SOURCE's tokenizer_config.json"
    )
    infer.add_argument("--explain", action="store_true", help="print the probe renders and diffs used")
    infer.add_argument("--bos-token", help="bos_token for the renders (default: the tokenizer config's, else <s>)")
    infer.add_argument("--eos-token", help="eos_token for the renders (default: the tokenizer config's, else </s>)")
    infer.add_argument("--timeout", type=float, default=None, help="seconds per render (default: 10)")
    infer.add_argument("--corpus", type=Path, metavar="DIR", help="infer every *.jinja in DIR and summarise")
    infer.add_argument("--table", action="store_true", help="with --corpus: print the Markdown table of docs/infer.md")

    roundtrip = commands.add_parser(
        "roundtrip",
        help="check a response template against a chat template: rendered probes must parse back",
        description="Render the validation probes of `infer` through SOURCE's chat template and parse each render "
        "with TEMPLATE compiled; exit 1 listing the probes that do not come back as the message they were rendered "
        "from, 2 when the template does not compile or the chat template does not render.",
    )
    roundtrip.add_argument("template", metavar="TEMPLATE")
    roundtrip.add_argument("--chat-template", required=True, metavar="SOURCE")
    roundtrip.add_argument("--bos-token")
    roundtrip.add_argument("--eos-token")
    roundtrip.add_argument(
        "--kwargs", default="{}", help="template kwargs as JSON, e.g. '{\"enable_thinking\": true}' (default: none)"
    )


def _print_report(result, explain: bool) -> None:
    inferred = result.inferred
    out = sys.stderr
    if explain:
        print("probe renders and diffs:", file=out)
        for line in inferred.explain:
            print(f"  {line}", file=out)
    if not result.source.tokens_known:
        print(
            f"note: no bos/eos tokens in the source; rendered with {result.source.bos_token!r} / "
            f"{result.source.eos_token!r} (set --bos-token/--eos-token)",
            file=out,
        )
    if inferred.mode:
        print(f"mode: template kwargs {json.dumps(inferred.mode)}", file=out)
    for part, text in inferred.parts.items():
        print(f"{part}: {text}", file=out)
    for finding in inferred.findings:
        print(str(finding), file=out)
    for line in result.check.lines():
        print(line, file=out)
    print("complete" if result.complete else "partial: review the parts above before use", file=out)


def run_infer(args: argparse.Namespace) -> int:
    from ..infer import InferError, RenderError, SourceError, infer_source, load
    from ..infer.load import write_response_template

    if args.corpus is not None:
        from ..infer.corpus import agreement_table, quirks_table, run, table

        rows = run(args.corpus)
        if args.table:
            print(table(rows))
            print()
            print(agreement_table(rows))
            print()
            print(quirks_table())
        else:
            for row in rows:
                print(f"{row.name}: {row.status} {row.passed}/{row.total} {row.reason}")
            print(f"{sum(row.status == 'complete' for row in rows)}/{len(rows)} complete")
        return 0
    if args.source is None:
        print("infer: name a SOURCE (or --corpus DIR)", file=sys.stderr)
        return 2
    try:
        source = load(args.source, bos_token=args.bos_token, eos_token=args.eos_token)
        if args.write and source.config_path is None:
            raise SourceError(f"{args.source}: --write needs a tokenizer_config.json or a save_pretrained directory")
        result = infer_source(source, timeout=args.timeout)
    except (SourceError, InferError, RenderError) as error:
        print(f"infer: {error}", file=sys.stderr)
        print("nothing written", file=sys.stderr)
        return 2
    _print_report(result, args.explain)
    text = json.dumps(result.inferred.template, indent=2, ensure_ascii=False) + "\n"
    if args.write:
        write_response_template(source.config_path, result.inferred.template)
        print(f"wrote response_template to {source.config_path}", file=sys.stderr)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    if not args.write and args.out is None:
        sys.stdout.write(text)
    return 0 if result.complete else 1


def run_roundtrip(args: argparse.Namespace) -> int:
    from ..infer import RenderError, Renderer, SourceError, load, roundtrip

    try:
        template = sources.read(args.template).template
        source = load(args.chat_template, bos_token=args.bos_token, eos_token=args.eos_token)
        mode = json.loads(args.kwargs)
        if not isinstance(mode, dict):
            raise ValueError("--kwargs must be a JSON object")
    except (TemplateError, SourceError, ValueError) as error:
        print(f"roundtrip: {error}", file=sys.stderr)
        return 2
    try:
        with Renderer(source.chat_template, bos_token=source.bos_token, eos_token=source.eos_token) as renderer:
            report = roundtrip(template, renderer, mode)
    except RenderError as error:
        print(f"roundtrip: {error}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    if report.error:
        return 2
    return 0 if report.complete else 1
