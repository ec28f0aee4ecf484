"""Memory stays bounded: a 200 MB JSON-lines file parsed with --jobs 2 keeps
the resident size of the whole process tree (the command and its workers)
under a fixed bound, measured by sampling every process's RSS."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import psutil
from batch_rows import ROOT, alone

from conftest import load_generated

FILE_BYTES = 200 * 10**6
# Measured on the project's 2-core machine: about 140 MB for the command and
# its two workers together (the command, which compiles the template, peaks
# near 55 MB, each worker near 35 MB, multiprocessing's resource tracker 15 MB;
# --jobs 1 alone peaks near 50 MB). The file is 200 MB: a run that held the
# file, the output or the parsed records in memory would exceed the bound.
PEAK_RSS_BOUND = 180 * 10**6


def write_generations(path, size: int) -> int:
    """About `size` bytes of qwen3 generations of 4-40 kB each; returns the line count."""
    rng = random.Random(15)
    words = "the model checks the weather first then answers résumé Zürich 東京 x < y and a > b".split()
    lines = []
    for index in range(64):
        reasoning = " ".join(rng.choice(words) for _ in range(rng.randint(300, 3000)))
        content = " ".join(rng.choice(words) for _ in range(rng.randint(300, 3000)))
        call = json.dumps({"name": "get_weather", "arguments": {"city": rng.choice(words)}}, ensure_ascii=False)
        output = f"<think>\n{reasoning}\n</think>\n\n{content}\n<tool_call>\n{call}\n</tool_call><|im_end|>"
        if index % 16 == 15:
            output = output[: -len("</tool_call><|im_end|>") - 3]  # a cut-off call: a row that fails
        lines.append(json.dumps({"id": index, "output": output, "prefix": ""}, ensure_ascii=False) + "\n")
    count = written = 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < size:
            line = lines[count % len(lines)]
            handle.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count


def tree_rss(process: psutil.Process) -> int:
    total = 0
    for each in [process, *process.children(recursive=True)]:
        try:
            total += each.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def test_200mb_jsonl_with_two_jobs_stays_under_the_bound(tmp_path):
    gens, out = tmp_path / "gens.jsonl", tmp_path / "parsed.jsonl"
    count = write_generations(gens, FILE_BYTES)
    assert gens.stat().st_size >= FILE_BYTES
    command = [sys.executable, "-m", "compiler", "parse", "qwen3", "--input", str(gens), "--output", str(out)]
    process = psutil.Popen([*command, "--jobs", "2"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process))
        time.sleep(0.02)
    err = process.stderr.read()
    process.stderr.close()  # an unclosed pipe is a ResourceWarning (an error here)
    assert process.returncode == 1, err  # every 16th row fails by design
    failed = (count // 64) * 4 + sum(1 for i in range(count % 64) if i % 16 == 15)
    assert f"{count} line(s): {count - failed} parsed, {failed} failed, 0 blank" in err
    print(f"\n{gens.stat().st_size / 1e6:.0f} MB, {count} lines: peak RSS of the process tree {peak / 1e6:.0f} MB")
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak / 1e6:.0f} MB, bound {PEAK_RSS_BOUND / 1e6:.0f} MB"
    module = load_generated("qwen3")
    with open(gens, encoding="utf-8") as source, open(out, encoding="utf-8") as parsed:
        for number, (line, result) in enumerate(zip(source, parsed), start=1):
            if number > 200:
                break
            message, error = alone(module, dict(json.loads(line), tools=None))
            assert json.loads(result) == (
                {"line": number, "id": (number - 1) % 64, "message": message}
                if error is None
                else {
                    "line": number,
                    "id": (number - 1) % 64,
                    "error": {"type": type(error).__name__, "message": str(error), "line": number},
                }
            )
