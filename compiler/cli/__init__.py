"""Command line: `python -m compiler {build,check,ir,vectors,conformance,parse,coverage,grammar,infer,roundtrip,unicode} ...`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..version import __version__
from ..frontend import source as sources
from ..errors import TemplateError
from ..resources import GENERATED_DIR

DEFAULT_OUT = GENERATED_DIR / "python"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m compiler",
        description="Compile LLM response templates into specialised parsers.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="compile templates to parser modules (Python, JavaScript, Go)",
        description=(
            "Compile each TEMPLATE to OUTDIR/<name>.py. TEMPLATE is a response-template JSON file, a "
            "tokenizer_config.json (its 'response_template' key), a directory written by save_pretrained, "
            "or a bare name from templates_src/ (e.g. 'qwen3')."
        ),
    )
    build.add_argument("templates", nargs="*", metavar="TEMPLATE")
    build.add_argument("-o", "--out", type=Path, default=None, help=f"output directory (default: {DEFAULT_OUT})")
    build.add_argument("--all", action="store_true", help="build every template in templates_src/")
    build.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 naming every output that is stale or missing (default: all templates)",
    )
    build.add_argument(
        "--vendor",
        action="store_true",
        help="inline the runtime so the module needs only the standard library (and regex if its template does); "
        "for JavaScript, copy the runtime beside the module",
    )
    build.add_argument(
        "--lang",
        default=None,
        metavar="LANGS",
        help="comma list of target languages: py, js, go (default: py; every language with --all or --check)",
    )

    check = commands.add_parser(
        "check",
        help="lint templates: hazards and notes with JSON paths (exit 1 when there are hazards)",
        description="Report what compiles but is likely to parse wrongly or to depend on chunking (hazards), and "
        "what this compiler cannot do for the template: JavaScript or Go ports, structural tags (notes). Exit 0 "
        "when there are no hazards (notes are printed as `note:` lines), 1 with hazards (or notes with --strict), "
        "2 when a template does not compile.",
    )
    check.add_argument("templates", nargs="*", metavar="TEMPLATE", help="default: every template in templates_src/")
    check.add_argument("--strict", action="store_true", help="notes count as findings too (exit 1)")

    unicode = commands.add_parser(
        "unicode",
        help="the Unicode tables the ports use (compiler/regex/unicode_data.py): --regen, --check, --version",
        description="The JavaScript and Go backends read \\w, \\d, \\s, case folding, str.isspace and decimal "
        "digits from compiler/regex/unicode_data.py, not from the installed regex. --regen rewrites it from the "
        "installed regex (refused unless it is the documented release; --force moves the tables), --check exits 1 "
        "when the installed regex answers differently, --version prints the versions the data follows.",
    )
    unicode_action = unicode.add_mutually_exclusive_group(required=True)
    unicode_action.add_argument("--regen", action="store_true", help="rewrite the data from the installed regex")
    unicode_action.add_argument("--check", action="store_true", help="exit 1 when the installed regex disagrees")
    unicode_action.add_argument("--version", action="store_true", help="print the Unicode and regex versions")
    unicode.add_argument("--force", action="store_true", help="regenerate from a regex other than the documented one")

    ir = commands.add_parser("ir", help="print a template's intermediate representation")
    ir.add_argument("template", metavar="TEMPLATE")

    vectors = commands.add_parser(
        "vectors",
        help="regenerate compiler/conformance/vectors/*.jsonl from the reference interpreter (needs transformers)",
        description="Run the reference on every sample in templates_src/samples/, in several chunkings, "
        "and write one JSON case per line to compiler/conformance/vectors/<template>.jsonl.",
    )
    vectors.add_argument("--check", action="store_true", help="write nothing; exit 1 naming stale vector files")
    vectors.add_argument(
        "--coverage",
        action="store_true",
        help="write nothing; list each entry of compiler/conformance/inventory.json with the vectors that exercise it "
        "(exit 1 when an entry has none)",
    )

    conformance = commands.add_parser(
        "conformance",
        help="run cases (JSON lines on stdin) through the parser generated for one language",
        description='Build TEMPLATE for LANG in a temporary folder, read cases {"id", "prefix", "chunks", '
        '"tools"} as JSON lines on standard input and write one line per case: {"id", "initial_events", '
        '"feeds", "final_events", "message", "error"} (error: null or {"stage", "index", "type"}).',
    )
    conformance.add_argument("template", metavar="TEMPLATE")
    conformance.add_argument("--lang", default="py", help="py, js or go (default: py)")

    parse = commands.add_parser(
        "parse",
        help="parse model output(s) with a compiled template and print the message(s) as JSON",
        description=(
            "Compile TEMPLATE in process and parse TEXT (or standard input) with it; or, with --input, parse "
            "a JSON-lines file of generations: each input line gives exactly one output line, "
            '{"line": N, ID: ..., MESSAGE: {...}} or {"line": N, ID: ..., "error": {"type", "message", "line"}} '
            "(a blank input line gives a blank output line). A summary goes to standard error; the exit code is "
            "1 when any line failed."
        ),
    )
    parse.add_argument("template", metavar="TEMPLATE")
    source = parse.add_mutually_exclusive_group()
    source.add_argument("--text", help="the model output (default: read standard input)")
    source.add_argument(
        "--input", type=Path, metavar="FILE", help="a JSON-lines or Parquet file of generations ('-': stdin)"
    )
    parse.add_argument("--output", type=Path, metavar="FILE", help="where to write (default: standard output)")
    parse.add_argument(
        "--prefix", default="", help="the prompt sent to the model (default: none; with --input, for lines without one)"
    )
    parse.add_argument(
        "--tools",
        type=Path,
        help="a JSON file with a list of tools, to type their arguments (with --input: the default)",
    )
    fields = parse.add_argument_group("fields of --input lines")
    fields.add_argument("--text-field", default="output", metavar="NAME", help="the model output (default: output)")
    fields.add_argument("--prefix-field", default="prefix", metavar="NAME", help="the prompt (default: prefix)")
    fields.add_argument("--tools-field", default="tools", metavar="NAME", help="the tool list (default: tools)")
    fields.add_argument("--id-field", default="id", metavar="NAME", help="copied to the output line (default: id)")
    fields.add_argument(
        "--message-field", default="message", metavar="NAME", help="output key of the message (default: message)"
    )
    files = parse.add_argument_group("files (--input): JSON lines or Parquet, any size, in batches")
    files.add_argument(
        "--format", choices=("jsonl", "parquet"), help="output format (default: by --output's extension)"
    )
    files.add_argument("--input-format", choices=("jsonl", "parquet"), help="input format (default: by extension)")
    files.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: the machine's cores)")
    files.add_argument("--batch-rows", type=int, default=1000, metavar="N", help="rows per batch (default: 1000)")
    progress = parse.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="show a progress bar on standard error"
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")
    from .coverage import add_coverage_parser

    add_coverage_parser(commands)
    from .grammar import add_parser as add_grammar_parser

    add_grammar_parser(commands)
    from .infer import add_parsers as add_infer_parsers

    add_infer_parsers(commands)
    return parser


def _build(args: argparse.Namespace) -> int:
    from .build import build, languages

    specs = list(args.templates)
    every = args.all or (args.check and not specs)
    if every:
        specs += [str(path) for path in sources.bundled()]
    if not specs:
        print("build: name a TEMPLATE, or use --all", file=sys.stderr)
        return 2
    try:
        langs = languages(args.lang, every=every)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    return build(specs, langs=langs, out=args.out, vendor=args.vendor, check=args.check, every=every)


def _check(args: argparse.Namespace) -> int:
    from ..diagnostics.lint import lint
    from ..pipeline import to_program

    specs = args.templates or [str(path) for path in sources.bundled()]
    status = hazards = notes = 0
    for spec in specs:
        try:
            source = sources.read(spec)
            findings = lint(to_program(source))
        except TemplateError as error:
            print(error, file=sys.stderr)
            status = 2
            continue
        for finding in findings:
            print(f"{source.origin}: {finding}")
        counted = [finding for finding in findings if args.strict or finding.is_hazard]
        hazards += sum(finding.is_hazard for finding in findings)
        notes += sum(not finding.is_hazard for finding in findings)
        if counted and status == 0:
            status = 1
    if status == 0:
        print(f"{len(specs)} template(s), no hazards" + (f", {notes} note(s)" if notes else ""))
    elif status == 1:
        print(
            f"{len(specs)} template(s), {hazards} hazard(s), {notes} note(s)" + (" (--strict)" if args.strict else "")
        )
    return status


def _ir(args: argparse.Namespace) -> int:
    from ..pipeline import to_program

    try:
        program = to_program(sources.read(args.template))
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    from ..ir import format_program

    sys.stdout.write(format_program(program))
    return 0


def _parse(args: argparse.Namespace) -> int:
    # The disk cache of the transformers drop-in: a template parsed again is not compiled again.
    from ..integrations.transformers import load_compiled

    try:
        source = sources.read(args.template)
        module = load_compiled(source.template)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        tools = json.loads(args.tools.read_text(encoding="utf-8")) if args.tools else None
    except (OSError, ValueError) as error:
        print(f"--tools: {error}", file=sys.stderr)
        return 2
    if args.input is not None:
        from .parse_files import parse_file

        return parse_file(module, args, tools)
    text = args.text if args.text is not None else sys.stdin.read()
    try:
        message = module.parse_response(text, prefix=args.prefix, tools=tools)
    except (ValueError, KeyError, TypeError) as error:
        print(f"parse error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    rendered = json.dumps(message, indent=2, ensure_ascii=False)
    if args.output is not None:
        args.output.write_text(rendered + "\n", encoding="utf-8")
    else:
        print(rendered)
    return 0


def _vectors(args: argparse.Namespace) -> int:
    from ..conformance.vectors import write_all

    if args.coverage:
        from ..conformance.coverage import report

        text, missing = report()
        print(text)
        return 1 if missing else 0

    from ..conformance.recovery import stale_files

    stale = write_all(check=args.check) + stale_files(check=args.check)  # recovery vectors: skipped without vLLM
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path}", file=sys.stderr if args.check else sys.stdout)
    return 1 if (args.check and stale) else 0


def _unicode(args: argparse.Namespace) -> int:
    from ..regex.unicode_tables import main as unicode_main

    flags = [flag for flag in ("regen", "check", "version", "force") if getattr(args, flag)]
    return unicode_main([f"--{flag}" for flag in flags])


def _conformance(args: argparse.Namespace) -> int:
    from ..conformance import main as conformance_main

    return conformance_main(args.template, args.lang)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .coverage import run_coverage
    from .grammar import run as _grammar
    from .infer import run_infer, run_roundtrip

    commands = {
        "build": _build,
        "check": _check,
        "conformance": _conformance,
        "coverage": run_coverage,
        "grammar": _grammar,
        "infer": run_infer,
        "ir": _ir,
        "parse": _parse,
        "roundtrip": run_roundtrip,
        "unicode": _unicode,
        "vectors": _vectors,
    }
    return commands[args.command](args)
