"""Command line: `python -m compiler {build,check,ir,vectors,parse,coverage} ...`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import __version__
from . import source as sources
from .errors import TemplateError
from .ir import format_program
from .pipeline import python_source, to_program

DEFAULT_OUT = sources.PROJECT_ROOT / "generated" / "python"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m compiler",
        description="Compile LLM response templates into specialised parsers.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="compile templates to Python parser modules",
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
        help="inline the runtime so the module needs only the standard library (and regex if its template does)",
    )

    check = commands.add_parser(
        "check",
        help="lint templates: findings with JSON paths (exit 1 when there are any)",
        description="Report what compiles but is likely to parse wrongly, to depend on chunking, or not to port "
        "to JavaScript or Go. Exit 0 when clean, 1 with findings, 2 when a template does not compile.",
    )
    check.add_argument("templates", nargs="*", metavar="TEMPLATE", help="default: every template in templates_src/")

    ir = commands.add_parser("ir", help="print a template's intermediate representation")
    ir.add_argument("template", metavar="TEMPLATE")

    vectors = commands.add_parser(
        "vectors",
        help="regenerate tests/vectors/*.jsonl from the reference interpreter (needs transformers)",
        description="Run the reference on every sample in templates_src/samples/, in several chunkings, "
        "and write one JSON case per line to tests/vectors/<template>.jsonl.",
    )
    vectors.add_argument("--check", action="store_true", help="write nothing; exit 1 naming stale vector files")

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
    source.add_argument("--input", type=Path, metavar="FILE", help="a JSON-lines file of generations ('-': stdin)")
    parse.add_argument("--output", type=Path, metavar="FILE", help="where to write (default: standard output)")
    parse.add_argument(
        "--prefix", default="", help="the prompt sent to the model (default: none; with --input, for lines without one)"
    )
    parse.add_argument(
        "--tools", type=Path, help="a JSON file with a list of tools, to type their arguments (with --input: the default)"
    )
    fields = parse.add_argument_group("fields of --input lines")
    fields.add_argument("--text-field", default="output", metavar="NAME", help="the model output (default: output)")
    fields.add_argument("--prefix-field", default="prefix", metavar="NAME", help="the prompt (default: prefix)")
    fields.add_argument("--tools-field", default="tools", metavar="NAME", help="the tool list (default: tools)")
    fields.add_argument("--id-field", default="id", metavar="NAME", help="copied to the output line (default: id)")
    fields.add_argument(
        "--message-field", default="message", metavar="NAME", help="output key of the message (default: message)"
    )
    from .coverage_cli import add_coverage_parser

    add_coverage_parser(commands)
    progress = parse.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="show a progress bar on standard error"
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")
    return parser


def _build(args: argparse.Namespace) -> int:
    specs = list(args.templates)
    if args.all or (args.check and not specs):
        specs += [str(path) for path in sources.bundled()]
    if not specs:
        print("build: name a TEMPLATE, or use --all", file=sys.stderr)
        return 2
    out_dir = args.out or DEFAULT_OUT
    failed = False
    stale: list[str] = []
    for spec in dict.fromkeys(specs):
        try:
            source = sources.read(spec)
            code = python_source(source, vendored=args.vendor)
        except TemplateError as error:
            print(error, file=sys.stderr)
            failed = True
            continue
        target = out_dir / f"{source.name}.py"
        if args.check:
            if not target.is_file() or target.read_text(encoding="utf-8") != code:
                stale.append(str(target))
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != code:
            target.write_text(code, encoding="utf-8")
            print(f"wrote {target}")
        else:
            print(f"unchanged {target}")
    if failed:
        return 2
    if stale:
        print("stale or missing (run `python -m compiler build --all`):", file=sys.stderr)
        for name in stale:
            print(f"  {name}", file=sys.stderr)
        return 1
    if args.check:
        print("generated/ is up to date")
    return 0


def _check(args: argparse.Namespace) -> int:
    from .lint import lint

    specs = args.templates or [str(path) for path in sources.bundled()]
    status = 0
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
        if findings and status == 0:
            status = 1
    if status == 0:
        print(f"{len(specs)} template(s), no findings")
    return status


def _ir(args: argparse.Namespace) -> int:
    try:
        program = to_program(sources.read(args.template))
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    sys.stdout.write(format_program(program))
    return 0


def _parse(args: argparse.Namespace) -> int:
    from .pipeline import compile_template

    try:
        source = sources.read(args.template)
        module = compile_template(source.template, name=source.name)
    except TemplateError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        tools = json.loads(args.tools.read_text(encoding="utf-8")) if args.tools else None
    except (OSError, ValueError) as error:
        print(f"--tools: {error}", file=sys.stderr)
        return 2
    if args.input is not None:
        return _parse_lines(module, args, tools)
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


class _Progress:
    """A one-line progress bar on standard error, redrawn at most ten times a second."""

    WIDTH = 24

    def __init__(self, stream, total_bytes: int | None):
        self.stream = stream
        self.total = total_bytes if total_bytes else None
        self.start = self.last = time.monotonic()

    def update(self, lines: int, failed: int, done_bytes: int, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 0.1:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = f"{lines / elapsed:,.0f} lines/s"
        if self.total:
            fraction = min(done_bytes / self.total, 1.0)
            filled = int(fraction * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            eta = "" if final or fraction <= 0 else f"  eta {_duration(elapsed * (1 - fraction) / fraction)}"
            head = f"[{bar}] {fraction:4.0%}"
        else:
            head, eta = "", ""
        line = f"\r{head}  {lines:,} lines  {failed:,} failed  {rate}  {_duration(elapsed)}{eta}"
        self.stream.write(line.ljust(getattr(self, "_width", 0)))
        self._width = len(line)
        if final:
            self.stream.write("\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


def _parse_record(module, args, record, default_tools):
    """The message for one input record; raises for anything wrong with it."""
    if not isinstance(record, dict):
        raise TypeError(f"a line must hold a JSON object, not {type(record).__name__}")
    if args.text_field not in record:
        raise KeyError(f"no {args.text_field!r} field (set the name with --text-field)")
    text = record[args.text_field]
    if not isinstance(text, str):
        raise TypeError(f"field {args.text_field!r} must be a string, not {type(text).__name__}")
    prefix = record.get(args.prefix_field, args.prefix)  # null stays null: parse_response then asks for one
    if not isinstance(prefix, str) and prefix is not None:
        raise TypeError(f"field {args.prefix_field!r} must be a string, not {type(prefix).__name__}")
    tools = record.get(args.tools_field, default_tools)
    return module.parse_response(text, prefix=prefix, tools=tools)


def _parse_line(module, args, number: int, raw: bytes, default_tools) -> tuple[dict, BaseException | None]:
    """One non-blank input line -> (output object, the error if it failed)."""
    out: dict = {"line": number}
    record = None
    try:
        record = json.loads(raw.decode("utf-8"))
        if isinstance(record, dict) and args.id_field in record:
            out[args.id_field] = record[args.id_field]
        out[args.message_field] = _parse_record(module, args, record, default_tools)
        return out, None
    except Exception as error:  # whatever a line does, it gets its own error object
        out.pop(args.message_field, None)
        detail = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        out["error"] = {"type": type(error).__name__, "message": detail, "line": number}
        return out, error


def _parse_lines(module, args, default_tools) -> int:
    """--input: one output line per input line; errors are recorded, never dropped."""
    from_stdin = str(args.input) == "-"
    to_stdout = args.output is None or str(args.output) == "-"
    try:
        infile = sys.stdin.buffer if from_stdin else open(args.input, "rb")
    except OSError as error:
        print(f"--input: {error}", file=sys.stderr)
        return 2
    try:
        outfile = sys.stdout if to_stdout else open(args.output, "w", encoding="utf-8", newline="\n")
    except OSError as error:
        print(f"--output: {error}", file=sys.stderr)
        if not from_stdin:
            infile.close()
        return 2
    encoding = (getattr(outfile, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    ascii_only = encoding not in ("utf8", "utf8sig")
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    total = None
    if not from_stdin:
        try:
            total = os.fstat(infile.fileno()).st_size
        except OSError:
            pass
    bar = _Progress(sys.stderr, total) if show else None
    parsed = blank = 0
    failures: list[str] = []
    done_bytes = number = 0
    try:
        for number, raw in enumerate(infile, start=1):
            done_bytes += len(raw)
            raw = raw.rstrip(b"\r\n")
            if not raw.strip():
                outfile.write("\n")  # kept, so output line N still answers input line N
                blank += 1
            else:
                out, error = _parse_line(module, args, number, raw, default_tools)
                outfile.write(json.dumps(out, ensure_ascii=ascii_only) + "\n")
                if error is None:
                    parsed += 1
                else:
                    message = out["error"]["message"].splitlines()
                    failures.append(f"  line {number}: {out['error']['type']}: {message[0] if message else ''}")
            if bar is not None:
                bar.update(number, len(failures), done_bytes)
    finally:
        if bar is not None:
            bar.update(number, len(failures), done_bytes, final=True)
        if not from_stdin:
            infile.close()
        if to_stdout:
            outfile.flush()
        else:
            outfile.close()
    print(f"parse: {number} line(s): {parsed} parsed, {len(failures)} failed, {blank} blank", file=sys.stderr)
    shown = 10
    for failure in failures[:shown]:
        print(failure, file=sys.stderr)
    if len(failures) > shown:
        print(f"  ... and {len(failures) - shown} more (see the error objects in the output)", file=sys.stderr)
    return 1 if failures else 0


def _vectors(args: argparse.Namespace) -> int:
    from .vectors import write_all

    stale = write_all(check=args.check)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path}", file=sys.stderr if args.check else sys.stdout)
    return 1 if (args.check and stale) else 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .coverage_cli import run_coverage

    commands = {"build": _build, "check": _check, "ir": _ir, "parse": _parse, "vectors": _vectors, "coverage": run_coverage}
    return commands[args.command](args)
