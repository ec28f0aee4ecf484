"""Batch throughput: rows per second per core parsing 100,000 generated
outputs (Parquet in, Parquet out) with `parse --input --jobs 1` and
`--jobs 2`, with Ray Data on the same file, and the reference interpreter's
rate on a sample of the same rows, for qwen3 (json tool calls) and qwen3_5
(xml-inline tool calls).

    python -m benchmarks.batch              # 100,000 rows per template
    python -m benchmarks.batch --rows 20000 --no-ray

Writes benchmarks/batch_results.json and prints a Markdown table. Each run
is timed by the wall clock and by the CPU time of every process it used (the
command and its workers; Ray's driver, raylet and workers): rows per
CPU-second is the rate per core, and it holds on a shared, loaded machine
where the wall clock does not. Runs count the whole job (start, read, parse,
write); `parse only` is the compiled parser alone in this process on the
reference's sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.streams import build  # noqa: E402

TEMPLATES = ("qwen3", "qwen3_5")
DISTINCT = 500  # distinct outputs, cycled: parsing does not depend on the row's position


def write_parquet(path: Path, template: str, rows: int) -> dict:
    """`rows` outputs of 100-1,000 tokens (reasoning, content, three tool calls)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(15)
    streams = [build(template, rng.randint(100, 1000), seed=index) for index in range(DISTINCT)]
    schema = pa.schema([("id", pa.int64()), ("output", pa.string()), ("prefix", pa.string())])
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, rows, 10_000):
            ids = list(range(start, min(rows, start + 10_000)))
            outputs = [streams[i % DISTINCT].text for i in ids]
            prefixes = [streams[i % DISTINCT].prefix for i in ids]
            writer.write_table(pa.table({"id": ids, "output": outputs, "prefix": prefixes}, schema=schema))
    total = sum(len(streams[i % DISTINCT].text) for i in range(rows))
    return {"rows": rows, "mean_chars": round(total / rows), "file_mb": round(path.stat().st_size / 1e6, 1)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # every waited-for descendant: the command and its workers
    return usage.ru_utime + usage.ru_stime


def _tree_cpu() -> float:
    """CPU seconds of this process and its live descendants (Ray's processes)."""
    import psutil

    total = 0.0
    for process in [psutil.Process(), *psutil.Process().children(recursive=True)]:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def run_cli(template: str, source: Path, target: Path, jobs: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of `parse --input source --output target --jobs N`."""
    command = [sys.executable, "-m", "compiler", "parse", template, "--input", str(source), "--output", str(target)]
    cpu, start = _children_cpu(), time.perf_counter()
    result = subprocess.run([*command, "--jobs", str(jobs), "--no-progress"], cwd=ROOT, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if result.returncode not in (0, 1):
        raise SystemExit(f"parse failed:\n{result.stderr}")
    return elapsed, cpu


def run_ray(template: str, source: Path, target: Path) -> tuple[float, float]:
    """Ray Data on 2 CPUs (started before the clock): read_parquet -> map_batches(ParseBatch) -> write_parquet."""
    import ray

    from compiler import compile_template
    from compiler.frontend import source as sources
    from runtime.batch import ParseBatch

    module = compile_template(sources.read(template).template, name=template)
    cpu, start = _tree_cpu(), time.perf_counter()
    dataset = ray.data.read_parquet(str(source)).map_batches(ParseBatch(module), batch_format="pyarrow")
    dataset.write_parquet(str(target))
    return time.perf_counter() - start, _tree_cpu() - cpu


def sample_rates(template: str, count: int) -> dict:
    """Rows per second on one core: the reference interpreter and the compiled parser, on the same rows."""
    from transformers.utils.chat_parsing import ResponseParser as ReferenceParser

    from compiler import compile_template
    from compiler.frontend import source as sources

    spec = sources.read(template)
    module = compile_template(spec.template, name=template)
    rng = random.Random(15)
    streams = [build(template, rng.randint(100, 1000), seed=index) for index in range(count)]

    def reference():
        for stream in streams:
            parser = ReferenceParser(spec.template, prefix=stream.prefix)
            parser.feed(stream.text)
            parser.finalize()

    def compiled():
        for stream in streams:
            module.parse_response(stream.text, prefix=stream.prefix)

    rates = {}
    for name, function in (("reference", reference), ("compiled", compiled)):
        best = min(_cpu_timed(function) for _ in range(3))
        rates[name] = count / best
    return rates


def _cpu_timed(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=500, help="rows for the reference's rate (default: 500)")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "batch_results.json")
    args = parser.parse_args(argv)
    results = {"cores": os.cpu_count(), "load_average_at_start": os.getloadavg()[0], "templates": {}}
    ray = None
    if not args.no_ray:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        import ray

        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=1 << 30,
            log_to_driver=False,
            configure_logging=False,
        )
        ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for template in TEMPLATES:
                source = Path(tmp) / f"{template}.parquet"
                entry = write_parquet(source, template, args.rows)
                runs = [
                    (f"jobs{jobs}", lambda jobs=jobs: run_cli(template, source, Path(tmp) / f"o{jobs}.parquet", jobs))
                    for jobs in (1, 2)
                ]
                if ray is not None:
                    runs.append(("ray2", lambda: run_ray(template, source, Path(tmp) / "ray_out")))
                for key, run in runs:
                    seconds, cpu = run()
                    entry[key] = {
                        "seconds": round(seconds, 2),
                        "cpu_seconds": round(cpu, 2),
                        "rows_per_s": round(args.rows / seconds),
                        "rows_per_cpu_s": round(args.rows / cpu),
                    }
                    print(f"{template}: {key}: {entry[key]}", file=sys.stderr)
                rates = sample_rates(template, args.sample)
                entry["reference_rows_per_cpu_s"] = round(rates["reference"])
                entry["compiled_rows_per_cpu_s"] = round(rates["compiled"])
                print(f"{template}: in process: {rates}", file=sys.stderr)
                results["templates"][template] = entry
    finally:
        if ray is not None:
            ray.shutdown()
    results["load_average_at_end"] = os.getloadavg()[0]
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    return 0


def table(results: dict) -> str:
    """Rows per CPU-second (per core) for each run, the wall-clock rate in brackets."""
    lines = [
        "| template | rows | mean chars | `--jobs 1` | `--jobs 2` | Ray Data, 2 CPUs | reference interpreter | compiled, parse only |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for template, entry in results["templates"].items():
        cells = []
        for key in ("jobs1", "jobs2", "ray2"):
            run = entry.get(key)
            cells.append(f"{run['rows_per_cpu_s']:,} ({run['rows_per_s']:,}/s)" if run else "-")
        lines.append(
            f"| {template} | {entry['rows']:,} | {entry['mean_chars']:,} | {' | '.join(cells)} "
            f"| {entry['reference_rows_per_cpu_s']:,} | {entry['compiled_rows_per_cpu_s']:,} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
