"""The realistic workload: every bundled template's own samples, with their
prompts and tools, compiled parsers against the reference interpreter.

    python -m benchmarks.realistic                  # every template, 9 rounds, JS and Go beside
    python -m benchmarks.realistic --quick          # 3 rounds, one variant per sample per round
    python -m benchmarks.realistic --templates qwen3 qwen3_coder --rounds 5 --no-ports

For each template, each round parses fresh variants of the template's
samples (templates_src/samples/<name>.json): digits and ASCII words of the
output and prompt changed by a seeded RNG, the template's literals, the
tools' names and the message's keys kept, so no cache keyed by a text or a
body can answer a round; a variant that does not parse, with the
reference, to a message of the sample's shape is replaced by the sample.
Both parsers run in this process, interleaved, in CPU time with the cyclic
collector off: `parse_response` on the whole text and a `ResponseParser`
fed 4-character chunks, then finalized, each mode on its own variants. A template's ratio is the median of
its per-round ratios (reference time / compiled time). Beside them: the
construction of a parser with the sample's prompt and tools against one
short parse, and for qwen3 and qwen3_coder the compiled whole parse against
a hand-written floor parser (benchmarks/realistic_floors.py). The generated
JavaScript (Node) and Go parsers time the same variants in their own
processes (benchmarks/realistic_ports.py).

Prints a table and exits 1 naming each target missed. A full run (no
--templates) writes benchmarks/realistic.md and benchmarks/realistic.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import re
import sys
import time
from pathlib import Path
from statistics import median

from transformers.utils.chat_parsing import ResponseParser as ReferenceParser
from transformers.utils.chat_parsing import parse_response as reference_parse

from .__main__ import keep_freed_memory, load_module
from .realistic_floors import FLOORS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLES = ROOT / "templates_src" / "samples"
CHUNK = 4
TARGETS = {
    "whole": 10.0,  # x the interpreter, every template
    "whole_geomean": 15.0,
    "stream": 8.0,  # x the interpreter, 4-character chunks, every template
    "floor": 2.5,  # compiled whole / hand-written floor, at most
    "setup": 1.0,  # construction with the prompt and tools / one short parse, at most
    "ports": 1.0,  # JS and Go ns per sample / compiled Python's, at most
}
TOKEN = re.compile(r"\\u[0-9a-fA-F]{4}|\\.|[A-Za-z]+|[0-9]")
KEEP_WORDS = {"true", "false", "null", "True", "False", "None", "NaN", "Infinity", "nan", "inf"}


def template_names() -> list[str]:
    return sorted(path.stem for path in SAMPLES.glob("*.json"))


def load_samples(name: str) -> tuple[dict, list[dict]]:
    template = json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))
    samples = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))["samples"]
    return template, [
        {"id": s["id"], "prefix": s["prefix"], "text": s["output"], "tools": s.get("tools")} for s in samples
    ]


def outcome(function):
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - compared by class
        return ("error", "ValueError" if isinstance(error, ValueError) else type(error).__name__)


def shape(value):
    """What a variant must keep: keys in order, list lengths, value types."""
    if isinstance(value, dict):
        return tuple((key, shape(item)) for key, item in value.items())
    if isinstance(value, list):
        return ("list",) + tuple(shape(item) for item in value)
    if isinstance(value, tuple) and value[:1] == ("error",):
        return value
    return type(value).__name__


def message_words(value, out: set) -> None:
    """Every word of a message's keys and tool names (mutating one changes the shape)."""
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(TOKEN.findall(str(key)))
            if key == "name" and isinstance(item, str):
                out.update(TOKEN.findall(item))
            message_words(item, out)
    elif isinstance(value, list):
        for item in value:
            message_words(item, out)


def mutate(text: str, rng: random.Random, keep: set) -> str:
    """Digits and ASCII words changed, same length and case; escapes, kept words and '0' stay."""

    def swap(found: re.Match) -> str:
        token = found.group()
        if token[0] == "\\" or token in keep:
            return token
        if token.isdigit():
            return token if token == "0" else str(rng.randint(1, 9))
        return "".join(chr(rng.randint(65, 90)) if ch.isupper() else chr(rng.randint(97, 122)) for ch in token)

    return TOKEN.sub(swap, text)


class Workload:
    """A template's samples and, per round, fresh variants of them."""

    def __init__(self, name: str, per_round: int):
        self.name = name
        self.per_round = per_round
        self.template, self.samples = load_samples(name)
        source = (ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8")
        # kept in every sample: the words of the template's literals, of every
        # sample's tools, and of every message's keys and tool names
        self.keep = set(TOKEN.findall(source)) | KEEP_WORDS
        for sample in self.samples:
            reference = self.reference_whole(sample)
            sample["shape"] = shape(reference)
            self.keep.update(TOKEN.findall(json.dumps(sample["tools"])) if sample["tools"] else ())
            message_words(reference, self.keep)
        self.fallbacks = 0
        self.variants = 0

    def reference_whole(self, item: dict):
        return outcome(lambda: reference_parse(item["text"], self.template, prefix=item["prefix"], tools=item["tools"]))

    def variant(self, sample: dict, seed: str) -> dict:
        rng = random.Random(seed)
        self.variants += 1
        text = mutate(sample["text"], rng, self.keep)
        for prefix in (mutate(sample["prefix"], rng, self.keep), sample["prefix"]):
            item = {"id": sample["id"], "prefix": prefix, "text": text, "tools": sample["tools"]}
            if shape(self.reference_whole(item)) == sample["shape"]:
                return item
        self.fallbacks += 1
        return {key: sample[key] for key in ("id", "prefix", "text", "tools")}

    def round(self, number) -> list[dict]:
        items = [
            self.variant(sample, f"{self.name}:{sample['id']}:{number}:{copy}")
            for copy in range(self.per_round)
            for sample in self.samples
        ]
        for item in items:
            item["chunks"] = [item["text"][at : at + CHUNK] for at in range(0, len(item["text"]), CHUNK)]
        return items


def timed(function) -> int:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time_ns()
        function()
        return max(time.process_time_ns() - start, 1)
    finally:
        gc.enable()


def runs(module, template: dict, items: list[dict], floor=None, streamed: list[dict] | None = None) -> dict:
    """The round's timed runs, each returning nothing: whole texts and the
    floor over `items`, streams over `streamed` (default: `items`)."""
    streamed = items if streamed is None else streamed

    def c_whole():
        parse = module.parse_response
        for item in items:
            try:
                parse(item["text"], prefix=item["prefix"], tools=item["tools"])
            except Exception:  # noqa: BLE001, S110 - error samples are timed too
                pass

    def r_whole():
        for item in items:
            try:
                reference_parse(item["text"], template, prefix=item["prefix"], tools=item["tools"])
            except Exception:  # noqa: BLE001, S110
                pass

    def c_stream():
        make = module.ResponseParser
        for item in streamed:
            try:
                parser = make(item["prefix"], tools=item["tools"])
                feed = parser.feed
                for chunk in item["chunks"]:
                    feed(chunk)
                parser.finalize()
            except Exception:  # noqa: BLE001, S110
                pass

    def r_stream():
        for item in streamed:
            try:
                parser = ReferenceParser(template, prefix=item["prefix"], tools=item["tools"])
                feed = parser.feed
                for chunk in item["chunks"]:
                    feed(chunk)
                parser.finalize()
            except Exception:  # noqa: BLE001, S110
                pass

    out = {"c_whole": c_whole, "r_whole": r_whole, "c_stream": c_stream, "r_stream": r_stream}
    if floor is not None:

        def f_whole():
            for item in items:
                try:
                    floor(item["text"], item["prefix"], item["tools"])
                except Exception:  # noqa: BLE001, S110
                    pass

        out["f_whole"] = f_whole
    return out


def check_exact(work: Workload, module, items: list[dict], floor) -> list[str]:
    """Untimed: compiled whole and streamed, and the floor, give the reference's message."""
    problems = []
    for item in items:
        expected = work.reference_whole(item)
        whole = outcome(lambda: module.parse_response(item["text"], prefix=item["prefix"], tools=item["tools"]))

        def stream():
            parser = module.ResponseParser(item["prefix"], tools=item["tools"])
            for chunk in item["chunks"]:
                parser.feed(chunk)
            return parser.finalize()[0]

        if whole != expected or outcome(stream) != expected:
            problems.append(f"{work.name}/{item['id']}: compiled message differs from the reference")
        if floor is not None and outcome(lambda: floor(item["text"], item["prefix"], item["tools"])) != whole:
            problems.append(f"{work.name}/{item['id']}: floor parser differs from the compiled parser")
    return problems


def measure(name: str, rounds: int, per_round: int) -> tuple[dict, list[list[dict]]]:
    work = Workload(name, per_round)
    module = load_module(name)
    floor = FLOORS.get(name)
    warm = work.round(-1)
    problems = check_exact(work, module, warm, floor)
    for run in runs(module, work.template, warm, floor).values():
        run()  # untimed: imports, regex compilation, the compiled class's tables
    plain = [s for s in work.samples if s["shape"][:1] != ("error",)] or work.samples
    short = min(plain, key=lambda s: len(s["text"]))
    ratios = {"whole": [], "stream": [], "floor": [], "setup": []}
    per_sample = {"c_whole": [], "r_whole": [], "c_stream": [], "r_stream": [], "f_whole": [], "setup": []}
    all_items = [{"whole": warm, "stream": warm}]  # the ports warm up on the first set
    for number in range(rounds):
        # whole texts and streams on variants of their own: a text one mode
        # parsed is no longer fresh for the other
        items, streamed = work.round(f"{number}w"), work.round(f"{number}s")
        all_items.append({"whole": items, "stream": streamed})
        order = list(runs(module, work.template, items, floor, streamed).items())
        if number % 2:
            order.reverse()
        times = {key: timed(run) for key, run in order}
        for key, ns in times.items():
            per_sample[key].append(ns / len(items))
        ratios["whole"].append(times["r_whole"] / times["c_whole"])
        ratios["stream"].append(times["r_stream"] / times["c_stream"])
        if floor is not None:
            ratios["floor"].append(times["c_whole"] / times["f_whole"])
        # construction and the short parse on variants of their own, so
        # that neither meets a prompt or a text this round has parsed
        fresh = [work.variant(sample, f"{name}:{sample['id']}:setup:{number}") for sample in work.samples]
        tools_prefix = [(item["prefix"], item["tools"]) for item in fresh]
        shorts = [work.variant(short, f"{name}:{short['id']}:short:{number}:{copy}") for copy in range(3)]

        def setup(pairs=tools_prefix):
            make = module.ResponseParser
            for prefix, tools in pairs:
                make(prefix, tools=tools)

        setup_ns = timed(setup) / len(tools_prefix)
        short_ns = timed(runs(module, work.template, shorts)["c_whole"]) / len(shorts)
        per_sample["setup"].append(setup_ns)
        ratios["setup"].append(setup_ns / short_ns)
        if number == 0:  # after its timing: a checked text is no longer fresh
            problems += check_exact(work, module, items + streamed, floor)
    row = {
        "template": name,
        "samples": len(work.samples),
        "per_round": per_round,
        "rounds": rounds,
        "variants": work.variants,
        "fallbacks": work.fallbacks,
        "short_sample": short["id"],
        "problems": problems,
    }
    for key, values in ratios.items():
        if values:
            row[f"{key}_ratio"] = median(values)
    for key, values in per_sample.items():
        if values:
            row[f"{key}_ns"] = median(values)
    return row, all_items


def misses(rows: list[dict], ports: dict | None) -> list[str]:
    out = []
    for row in rows:
        name = row["template"]
        out += row["problems"][:3]
        if row["whole_ratio"] < TARGETS["whole"]:
            out.append(f"{name}: whole {row['whole_ratio']:.1f}x < {TARGETS['whole']:g}x")
        if row["stream_ratio"] < TARGETS["stream"]:
            out.append(f"{name}: stream {row['stream_ratio']:.1f}x < {TARGETS['stream']:g}x")
        if row.get("floor_ratio", 0) > TARGETS["floor"]:
            out.append(f"{name}: whole {row['floor_ratio']:.2f}x its hand-written floor > {TARGETS['floor']:g}x")
        if row["setup_ratio"] > TARGETS["setup"]:
            out.append(f"{name}: construction {row['setup_ratio']:.2f}x one short parse > {TARGETS['setup']:g}")
        for lang in ("js", "go"):
            port = (ports or {}).get(lang, {}).get(name)
            for mode in ("whole", "stream"):
                if port and port[mode] > row[f"c_{mode}_ns"] * TARGETS["ports"]:
                    out.append(
                        f"{name}: {lang} {mode} {port[mode] / 1000:.1f} us/sample slower than Python's "
                        f"{row[f'c_{mode}_ns'] / 1000:.1f}"
                    )
    if rows:
        mean = geomean(row["whole_ratio"] for row in rows)
        if mean < TARGETS["whole_geomean"]:
            out.append(f"whole geometric mean {mean:.1f}x < {TARGETS['whole_geomean']:g}x")
    return out


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def us(ns) -> str:
    return "-" if ns is None else f"{ns / 1000:,.1f}"


def table(rows: list[dict], ports: dict | None) -> str:
    lines = [
        "| template | whole x | stream x | floor | setup/short | whole us py / ref | stream us py / ref "
        "| js us whole / stream | go us whole / stream |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = []
        for lang in ("js", "go"):
            port = (ports or {}).get(lang, {}).get(row["template"])
            cells.append(f"{us(port['whole'])} / {us(port['stream'])}" if port else "-")
        floor = f"{row['floor_ratio']:.2f}" if "floor_ratio" in row else ""
        lines.append(
            f"| {row['template']} | {row['whole_ratio']:.1f} | {row['stream_ratio']:.1f} | {floor} "
            f"| {row['setup_ratio']:.2f} | {us(row['c_whole_ns'])} / {us(row['r_whole_ns'])} "
            f"| {us(row['c_stream_ns'])} / {us(row['r_stream_ns'])} | {cells[0]} | {cells[1]} |"
        )
    if rows:
        lines.append(
            f"| geometric mean | {geomean(r['whole_ratio'] for r in rows):.1f} "
            f"| {geomean(r['stream_ratio'] for r in rows):.1f} | | | | | | |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realistic", description=__doc__.splitlines()[0])
    parser.add_argument("--templates", nargs="+", help="a part (no results files are written)")
    parser.add_argument("--rounds", type=int, help="timed rounds per template (default 9, --quick 3)")
    parser.add_argument("--per-round", type=int, help="variants of each sample per round (default 3, --quick 1)")
    parser.add_argument("--quick", action="store_true", help="3 rounds of one variant per sample")
    parser.add_argument("--no-ports", action="store_true", help="skip the JavaScript and Go columns")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 9)
    per_round = args.per_round or (1 if args.quick else 3)
    names = args.templates or template_names()
    unknown = sorted(set(names) - set(template_names()))
    if unknown:
        parser.error(f"no samples for {', '.join(unknown)}")
    allocator = keep_freed_memory()
    started, load_before = time.time(), os.getloadavg()
    rows, rounds_items = [], {}
    for name in names:
        row, items = measure(name, rounds, per_round)
        rows.append(row)
        rounds_items[name] = items
        print(
            f"{name:20} whole {row['whole_ratio']:6.1f}x  stream {row['stream_ratio']:6.1f}x  "
            f"setup/short {row['setup_ratio']:.2f}"
            + (f"  floor {row['floor_ratio']:.2f}" if "floor_ratio" in row else "")
            + (f"  fallbacks {row['fallbacks']}/{row['variants']}" if row["fallbacks"] else ""),
            flush=True,
        )
    ports = None
    if not args.no_ports:
        from .realistic_ports import run_ports

        ports = run_ports(rounds_items)
    text = table(rows, ports)
    missed = misses(rows, ports)
    print()
    print(text)
    print()
    for line in (ports or {}).get("notes", []):
        print("note:", line)
    for line in missed:
        print("MISSED:", line)
    if not missed:
        print("every target met")
    if not args.templates:
        meta = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "allocator": allocator,
            "rounds": rounds,
            "per_round": per_round,
            "chunk": CHUNK,
            "seconds": round(time.time() - started),
            "load_average": {"start": load_before, "end": os.getloadavg()},  # the machine is shared
            "targets": TARGETS,
        }
        (HERE / "realistic.json").write_text(
            json.dumps({"meta": meta, "rows": rows, "ports": ports, "missed": missed}, indent=1, default=list) + "\n",
            encoding="utf-8",
        )
        intro = (
            "Written by `python -m benchmarks.realistic` (method: docs/performance.md). Ratios are reference time "
            "over compiled time, medians of per-round ratios; floor is compiled whole over the hand-written "
            "floor; setup/short is construction with the prompt and tools over one short whole parse; "
            "us are microseconds per sample (CPU time). Load average (1, 5, 15 min) at the start "
            f"{', '.join(f'{v:.1f}' for v in load_before)}, at the end "
            f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}, on {os.cpu_count()} CPUs: on a shared, busy "
            "machine the figures are indicative.\n\n"
        )
        missed_text = "".join(f"- {line}\n" for line in missed) or "- none\n"
        (HERE / "realistic.md").write_text(
            "# Realistic workload\n\n" + intro + text + "\n\nTargets missed:\n\n" + missed_text, encoding="utf-8"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
