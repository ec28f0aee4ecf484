"""The generated JavaScript parsers in Node beside the Python ones, on the
speed suite's streams (benchmarks/streams.py), in ns per token.

    python -m benchmarks.node            # 8k and 32k tokens per template
    python -m benchmarks.node --quick    # 8k only

Python and Node each time their own parser in their own process (best of
N, streaming token by token and whole text); both messages must agree.
Beside the prose streams, the degenerate newline stream (1,600 and 8,000
newlines, one per token, in the template's main text region, as
benchmarks/go_streams.py has): a held whitespace run that a delimiter may
still start with (`\\s*<tool_call>`) must cost a flat amount per token.
Prints a table and writes benchmarks/node_latest.txt and node_results.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .__main__ import _timed, load_module
from .streams import TEMPLATES, build, degenerate, tokenize

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NEWLINE_COUNTS = (1_600, 8_000)


def python_timings(name: str, prefix: str, tokens: list[str], repeat: int) -> tuple[float, float, dict]:
    module = load_module(name)
    text = "".join(tokens)

    def stream():
        parser = module.ResponseParser(prefix)
        for token in tokens:
            parser.feed(token)
        return parser.finalize()[0]

    stream_ns = min(_timed(stream)[0] for _ in range(repeat))
    whole_ns = min(_timed(lambda: module.parse_response(text, prefix=prefix))[0] for _ in range(repeat))
    return stream_ns / len(tokens), whole_ns / len(tokens), stream()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.node", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8k tokens only, fewer repeats")
    args = parser.parse_args(argv)
    node = shutil.which("node")
    if node is None:
        print("node is not on PATH", file=sys.stderr)
        return 2
    lengths = [8_000] if args.quick else [8_000, 32_000]
    repeat = 3 if args.quick else 5
    cases = []
    for name in TEMPLATES:
        for length in lengths:
            stream = build(name, length)
            tokens = tokenize(stream.text, stream.specials, seed=length)
            cases.append({"template": name, "shape": "prose", "length": length, "prefix": stream.prefix, "tokens": tokens})
        for count in NEWLINE_COUNTS:
            stream = degenerate(name, "newlines", count)
            cases.append(
                {"template": name, "shape": "newlines", "length": count, "prefix": stream.prefix, "tokens": list(stream.text)}
            )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps({"cases": cases, "repeat": repeat}), encoding="utf-8")
        done = subprocess.run(
            [node, str(HERE / "node_bench.mjs"), str(path), str(ROOT / "generated" / "js")],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
    rows = json.loads(done.stdout)
    for row, case in zip(rows, cases):
        py_stream, py_whole, message = python_timings(case["template"], case["prefix"], case["tokens"], repeat)
        assert json.loads(json.dumps(message)) == row.pop("message"), f"{case['template']}: JS and Python messages differ"
        row["py_stream_ns_per_token"] = py_stream
        row["py_whole_ns_per_token"] = py_whole
    header = (
        "| template | stream | tokens | Python stream ns/token | Node stream ns/token "
        "| Python whole ns/token | Node whole ns/token |"
    )
    lines = [header, "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['template']} | {row['shape']} | {row['tokens']:,} | {row['py_stream_ns_per_token']:,.0f} | "
            f"{row['js_stream_ns_per_token']:,.0f} | {row['py_whole_ns_per_token']:,.0f} | {row['js_whole_ns_per_token']:,.0f} |"
        )
    table = "\n".join(lines)
    print(table)
    (HERE / "node_results.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    (HERE / "node_latest.txt").write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
