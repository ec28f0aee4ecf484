"""Go against compiled Python (and, with --ollama, against Ollama's
hand-written qwen3 parser), ns per token on the same token streams.

    python -m benchmarks.go_bench [--ollama] [--count N]

Writes the streams (benchmarks/go_streams.py) to a temporary file, times
the compiled Python parsers on them (best of N, as `python -m benchmarks`
does), runs `go test -bench` in benchmarks/go (and benchmarks/ollama; it
downloads github.com/ollama/ollama from the Go module proxy), keeps each
Go benchmark's best of N, prints the tables and writes
benchmarks/go_latest.txt. The Go columns: Feed (every step's events a new
slice the caller keeps) and AppendFeed (one event buffer reused). Every figure is CPU time per token (the Go
benchmarks read the process's CPU time, the collector's included), so
runs on a shared machine stay comparable. Targets: Go at least 5x faster per token than
compiled Python on every shape; the generated parser at least as fast as
Ollama's on every shape.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from .__main__ import _timed, load_module
from .go_streams import ollama_streams, streams
from .streams import Stream

HERE = Path(__file__).resolve().parent
LINE = re.compile(r"^Benchmark(\w+)/(\S+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) cpu-ns/token")


def go_bench(folder: Path, stream_file: Path, count: int) -> dict[tuple[str, str], float]:
    env = dict(os.environ, STREAMS=str(stream_file), GOWORK="off")
    done = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", ".", "-benchtime", "10x", "-count", str(count)],
        cwd=folder, env=env, capture_output=True, text=True, check=True,
    )
    best: dict[tuple[str, str], float] = {}
    for line in done.stdout.splitlines():
        found = LINE.match(line)
        if found:
            key = (found.group(1), found.group(2))
            best[key] = min(best.get(key, float("inf")), float(found.group(3)))
    return best


def python_ns(items: list[dict], count: int) -> dict[str, float]:
    out = {}
    for item in items:
        module = load_module(item["template"])
        stream = Stream(item["template"], item["prefix"], "".join(item["tokens"]), ())
        tokens = item["tokens"]

        def run(module=module, stream=stream, tokens=tokens):
            parser = module.ResponseParser(stream.prefix)
            feed = parser.feed
            for token in tokens:
                feed(token)
            parser.finalize()

        out[item["name"]] = min(_timed(run)[0] for _ in range(count)) / len(tokens)
    return out


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--ollama", action="store_true", help="also compare with Ollama's parser (downloads it)")
    args.add_argument("--count", type=int, default=3, help="runs per measurement; the best is kept")
    options = args.parse_args(argv)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        suite = streams()
        path = Path(tmp) / "streams.json"
        path.write_text(json.dumps(suite, ensure_ascii=False), encoding="utf-8")
        py = python_ns(suite, options.count)
        go = go_bench(HERE / "go", path, options.count)
        lines.append(
            f"{'stream':28} {'tokens':>7} {'python ns/tok':>14} {'go ns/tok':>10} {'go speedup':>11}"
            f" {'append ns/tok':>14} {'speedup':>8}"
        )
        met = {"Stream": True, "StreamAppend": True}
        for item in suite:
            cells = []
            for bench in met:
                g = go[(bench, item["name"])]
                ratio = py[item["name"]] / g
                met[bench] &= ratio >= 5
                cells.append((g, ratio))
            (g, ratio), (a, append_ratio) = cells
            lines.append(
                f"{item['name']:28} {len(item['tokens']):>7} {py[item['name']]:>14.0f} {g:>10.0f} {ratio:>10.1f}x"
                f" {a:>14.0f} {append_ratio:>7.1f}x"
            )
        for bench, api in (("Stream", "Feed"), ("StreamAppend", "AppendFeed")):
            verdict = "met" if met[bench] else "NOT met"
            lines.append(f"target: Go >= 5x compiled Python on every stream, {api}: {verdict}")
        if options.ollama:
            suite = ollama_streams()
            path = Path(tmp) / "ollama.json"
            path.write_text(json.dumps(suite, ensure_ascii=False), encoding="utf-8")
            both = go_bench(HERE / "ollama", path, options.count)
            lines.append("")
            lines.append(f"{'stream':28} {'tokens':>7} {'ollama ns/tok':>14} {'generated ns/tok':>17} {'ratio':>7}")
            met = True
            for item in suite:
                theirs, ours = both[("Ollama", item["name"])], both[("Generated", item["name"])]
                met &= ours <= theirs
                lines.append(f"{item['name']:28} {len(item['tokens']):>7} {theirs:>14.0f} {ours:>17.0f} {theirs / ours:>6.2f}x")
            lines.append(f"target: generated at least as fast as Ollama's on every stream: {'met' if met else 'NOT met'}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    (HERE / "go_latest.txt").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
