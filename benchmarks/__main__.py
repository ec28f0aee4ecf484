"""Compiled parsers against the reference interpreter, side by side.

    python -m benchmarks            # full run: 1k, 8k, 32k, 128k tokens
    python -m benchmarks --quick    # 1k and 8k only, fewer repeats

Both parsers run in this process, interleaved, best of N. Prints a table
(ns per token, ratio to the reference, growth from 8k to 128k), checks the
targets, writes benchmarks/results.json and benchmarks/plot.png.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
from pathlib import Path

from transformers.utils.chat_parsing import ResponseParser as ReferenceParser
from transformers.utils.chat_parsing import parse_response as reference_parse

from .streams import TEMPLATES, Stream, build, degenerate, tokenize

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

TARGETS = {
    "streaming_ratio_20k": 10.0,
    "whole_ratio_20k": 20.0,
    "growth_8k_to_128k": 1.25,
    "newline_stream_ratio": 100.0,
}


def load_module(name: str):
    import importlib.util

    path = ROOT / "generated" / "python" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def template_dict(name: str) -> dict:
    return json.loads((ROOT / "templates_src" / f"{name}.json").read_text(encoding="utf-8"))


def _timed(function) -> float:
    """One run with the cyclic collector off (it would add noise, not work).
    Runs shorter than 20 ms are timed again right away and the faster is
    kept: a collection just before a run leaves cold caches behind, which
    costs a short run far more than its own work."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter_ns()
        function()
        elapsed = time.perf_counter_ns() - start
        if elapsed < 20_000_000:
            start = time.perf_counter_ns()
            function()
            elapsed = min(elapsed, time.perf_counter_ns() - start)
        return elapsed
    finally:
        gc.enable()


def stream_compiled(module, stream: Stream, tokens: list[str]):
    def run():
        parser = module.ResponseParser(stream.prefix)
        feed = parser.feed
        for token in tokens:
            feed(token)
        parser.finalize()

    return run


def stream_reference(template: dict, stream: Stream, tokens: list[str]):
    def run():
        parser = ReferenceParser(template, prefix=stream.prefix)
        feed = parser.feed
        for token in tokens:
            feed(token)
        parser.finalize()

    return run


def floor(tokens: list[str]):
    """The least any streaming parser must do: one event dict per token."""

    def run():
        for token in tokens:
            [{"type": "region_chunk", "field": "content", "text": token, "dirty": False}]

    return run


def best_of(runs: dict, repeat: int) -> dict:
    """Interleave the candidates `repeat` times; keep each one's best time."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            best[name] = min(best[name], _timed(run))
    return best


def measure(name: str, length: int, repeat: int) -> dict:
    module, template = load_module(name), template_dict(name)
    stream = build(name, length)
    tokens = tokenize(stream.text, stream.specials, seed=length)
    assert module.parse_response(stream.text, prefix=stream.prefix) == reference_parse(
        stream.text, template, prefix=stream.prefix
    ), f"{name}: compiled and reference messages differ on the benchmark stream"
    # The reference is quadratic: fewer repeats on long streams keep the run short.
    ref_repeat = max(1, repeat if length <= 32_000 else repeat // 2)
    timings = best_of(
        {
            "compiled_stream": stream_compiled(module, stream, tokens),
            "compiled_whole": lambda: module.parse_response(stream.text, prefix=stream.prefix),
            "floor": floor(tokens),
        },
        repeat,
    )
    timings.update(
        best_of(
            {
                "reference_stream": stream_reference(template, stream, tokens),
                "reference_whole": lambda: reference_parse(stream.text, template, prefix=stream.prefix),
            },
            ref_repeat,
        )
    )
    n = len(tokens)
    row = {"template": name, "length": length, "tokens": n}
    row.update({f"{key}_ns_per_token": value / n for key, value in timings.items()})
    row["stream_ratio"] = timings["reference_stream"] / timings["compiled_stream"]
    row["whole_ratio"] = timings["reference_whole"] / timings["compiled_whole"]
    row["distance_to_floor"] = timings["compiled_stream"] / timings["floor"]
    return row


def measure_degenerate(name: str, kind: str, repeat: int) -> dict:
    module, template = load_module(name), template_dict(name)
    stream = degenerate(name, kind)
    tokens = list(stream.text)
    timings = best_of(
        {
            "compiled": stream_compiled(module, stream, tokens),
            "reference": stream_reference(template, stream, tokens),
        },
        repeat,
    )
    return {
        "template": name,
        "stream": f"{len(tokens)} {kind}",
        "compiled_ns_per_token": timings["compiled"] / len(tokens),
        "reference_ns_per_token": timings["reference"] / len(tokens),
        "ratio": timings["reference"] / timings["compiled"],
    }


def plot(rows: list[dict], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plot)")
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for name in dict.fromkeys(row["template"] for row in rows):
        mine = [row for row in rows if row["template"] == name]
        lengths = [row["tokens"] for row in mine]
        line = ax.plot(lengths, [row["compiled_stream_ns_per_token"] for row in mine], marker="o", label=f"{name} compiled")
        ax.plot(
            lengths,
            [row["reference_stream_ns_per_token"] for row in mine],
            marker="x",
            linestyle="--",
            color=line[0].get_color(),
            label=f"{name} reference",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("stream length (tokens)")
    ax.set_ylabel("ns per token, streaming (best of N)")
    ax.set_title("Compiled parsers vs transformers' interpreter")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k and 8k tokens only, fewer repeats")
    parser.add_argument("--repeat", type=int, default=None, help="best of N (default 5, quick 3)")
    parser.add_argument("--templates", nargs="*", default=list(TEMPLATES))
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 5)
    lengths = [1_000, 8_000] if args.quick else [1_000, 8_000, 32_000, 128_000]

    rows = []
    print(f"{'template':<13}{'tokens':>8}{'ref ns/tok':>12}{'ours ns/tok':>12}{'stream x':>10}{'whole x':>9}{'floor ns':>10}{'/floor':>8}")
    for name in args.templates:
        for length in lengths:
            row = measure(name, length, repeat)
            rows.append(row)
            print(
                f"{name:<13}{row['tokens']:>8}{row['reference_stream_ns_per_token']:>12.0f}"
                f"{row['compiled_stream_ns_per_token']:>12.0f}{row['stream_ratio']:>9.1f}x{row['whole_ratio']:>8.1f}x"
                f"{row['floor_ns_per_token']:>10.0f}{row['distance_to_floor']:>7.1f}x",
                flush=True,
            )
    growth = {}
    for name in args.templates:
        by_length = {row["length"]: row for row in rows if row["template"] == name}
        if 8_000 in by_length and 128_000 in by_length:
            growth[name] = {
                side: by_length[128_000][f"{side}_stream_ns_per_token"] / by_length[8_000][f"{side}_stream_ns_per_token"]
                for side in ("compiled", "reference")
            }
    if growth:
        print("\ngrowth of ns/token from 8k to 128k tokens (1.0 = linear time)")
        for name, values in growth.items():
            print(f"  {name:<13} compiled {values['compiled']:.2f}   reference {values['reference']:.2f}")

    print("\ndegenerate streams, fed one character per token")
    degenerate_rows = []
    for name in args.templates:
        for kind in ("newlines", "angles"):
            row = measure_degenerate(name, kind, max(1, repeat // 2))
            degenerate_rows.append(row)
            print(
                f"  {name:<13}{row['stream']:<15} reference {row['reference_ns_per_token']:>9.0f} ns/tok"
                f"   compiled {row['compiled_ns_per_token']:>7.0f} ns/tok   {row['ratio']:>7.1f}x",
                flush=True,
            )

    # Targets, on a qwen3 stream of 20k tokens.
    target_row = measure("qwen3", 20_000, repeat) if "qwen3" in args.templates else None
    checks = {}
    if target_row:
        checks["streaming_ratio_20k"] = target_row["stream_ratio"]
        checks["whole_ratio_20k"] = target_row["whole_ratio"]
        checks["distance_to_floor_20k"] = target_row["distance_to_floor"]
    if "qwen3" in growth:
        checks["growth_8k_to_128k"] = growth["qwen3"]["compiled"]
    newline = next((r for r in degenerate_rows if r["template"] == "qwen3" and "newlines" in r["stream"]), None)
    if newline:
        checks["newline_stream_ratio"] = newline["ratio"]
    print("\ntargets (qwen3)")
    all_met = True
    for key, value in checks.items():
        goal = TARGETS.get(key)
        if goal is None:
            print(f"  {key:<24} {value:8.2f}   (reported)")
            continue
        met = value <= goal if key.startswith("growth") else value >= goal
        all_met &= met
        relation = "<=" if key.startswith("growth") else ">="
        print(f"  {key:<24} {value:8.2f}   target {relation} {goal:<6} {'met' if met else 'NOT MET'}")
    print("every target met" if all_met and len(checks) > 3 else "some targets not met or not measured")

    args.out.mkdir(parents=True, exist_ok=True)
    results = {
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(), "processor": platform.machine()},
        "repeat": repeat,
        "rows": rows,
        "growth": growth,
        "degenerate": degenerate_rows,
        "targets": {"goals": TARGETS, "measured": checks, "all_met": all_met},
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if plot(rows, args.out / "plot.png"):
        print(f"wrote {args.out / 'results.json'} and {args.out / 'plot.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
