"""`python -m compiler grammar TEMPLATE --tools tools.json --format F`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..frontend import source as sources
from ..errors import TemplateError
from ..grammar import FORMATS, GrammarError, grammar_for_source


def add_parser(commands) -> None:
    grammar = commands.add_parser(
        "grammar",
        help="emit a grammar for constrained decoding (structural tag, Lark, GBNF, EBNF)",
        description="Write the grammar of what a model may output for TEMPLATE and the tools: reasoning, content, "
        "tool calls whose arguments follow the tools' JSON schemas, and the end-of-turn close. Exit 2 with the JSON "
        "path when the template, a tool schema or an option cannot be expressed in the format.",
    )
    grammar.add_argument("template", metavar="TEMPLATE")
    grammar.add_argument("--tools", type=Path, help="a JSON file with a list of tools (OpenAI form)")
    grammar.add_argument("--format", choices=FORMATS, default="lark")
    grammar.add_argument("-o", "--out", type=Path, help="output file (default: standard output)")
    grammar.add_argument("--prefix", default="", help="the prompt the output follows (as `parse` takes it)")
    grammar.add_argument("--tool-choice", default="auto", metavar="auto|required|none|NAME")
    grammar.add_argument(
        "--parallel", action=argparse.BooleanOptionalAction, default=True, help="several calls per turn"
    )
    grammar.add_argument("--reasoning", choices=("allow", "forbid", "require"), default="allow")


def run(args: argparse.Namespace) -> int:
    try:
        source = sources.read(args.template)
        tools = json.loads(args.tools.read_text(encoding="utf-8")) if args.tools else []
        text = grammar_for_source(
            source,
            tools,
            format=args.format,
            prefix=args.prefix,
            tool_choice=args.tool_choice,
            parallel=args.parallel,
            reasoning=args.reasoning,
        )
    except (TemplateError, GrammarError) as error:
        print(f"grammar: {error}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as error:
        print(f"grammar: --tools: {error}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
