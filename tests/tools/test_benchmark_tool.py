"""`python -m benchmarks --part` and `--overlay`: re-measured shapes replace
the same (template, shape) of the last full results, keep their date, and
the failures are counted again from the rows (not timed: the figures of a
tiny run are not checked, only the bookkeeping)."""

from __future__ import annotations

import json

import pytest

from benchmarks.__main__ import main, table


def test_overlay_replaces_the_remeasured_rows(tmp_path):
    part = tmp_path / "part.json"
    main(
        [
            "--templates",
            "qwen3",
            "--shapes",
            "calls",
            "--repeat",
            "1",
            "--tokens",
            "300",
            "--part",
            str(part),
            "--out",
            str(tmp_path / "run"),
        ]
    )
    measured = json.loads(part.read_text())
    assert [(row["template"], row["shape"]) for row in measured["rows"]] == [("qwen3", "calls")]
    assert measured["date"]

    out = tmp_path / "out"
    out.mkdir()
    old_calls = {
        "template": "qwen3",
        "shape": "calls",
        "status": "below",
        "ratio": 1.0,
        "target": 5.0,
        "tokens": 10,
        "reference_ns_per_token": 1.0,
        "compiled_ns_per_token": 1.0,
    }
    kept = {**old_calls, "template": "apertus", "status": "below"}
    results = {"mode": "full", "rows": [kept, old_calls], "growth": {"qwen3": 1.5}, "failures": []}
    (out / "results.json").write_text(json.dumps(results))
    (out / "latest.txt").write_text("old lines\n  BELOW TARGET: stale\n")

    main(["--overlay", str(part), "--out", str(out)])
    after = json.loads((out / "results.json").read_text())
    calls = next(row for row in after["rows"] if row["template"] == "qwen3")
    assert calls["remeasured"] == measured["date"] and calls["tokens"] == measured["rows"][0]["tokens"]
    assert next(row for row in after["rows"] if row["template"] == "apertus") == kept
    assert after["overlays"][0]["shapes"] == ["calls"] and after["overlays"][0]["templates"] == ["qwen3"]
    # failures counted again from the rows: apertus's stays, the old growth too
    assert "apertus/calls (below)" in after["failures"] and "qwen3/growth_8k_to_128k" in after["failures"]
    assert ("qwen3/calls (below)" in after["failures"]) == (calls["status"] == "below")
    latest = (out / "latest.txt").read_text()
    assert "stale" not in latest and "overlay of part.json" in latest
    assert "†" in table(after["rows"], after["growth"]).split("| qwen3 |")[1]


def test_floor_and_growth_take_their_own_rounds(monkeypatch):
    """The floor distance is the median of the compiled-over-floor ratios
    of the prose shape's rounds and FLOOR_ROUNDS more run later
    (measure_floor), while the ratio to the interpreter uses only the rounds
    the interpreter ran in; growth is the median of pairs of 8k and 128k
    runs; an interpreter slower than
    EXTRA_ROUND_NS per whole parse parses once (counted by wrapping the runs)."""
    from benchmarks import __main__ as bench
    from benchmarks.shapes import load_template

    calls = {"compiled": 0, "reference": 0, "floor": 0}

    def counting(kind, make):
        def wrapper(*args):
            run = make(*args)

            def counted():
                calls[kind] += 1
                return run()

            return counted

        return wrapper

    monkeypatch.setattr(bench, "stream_compiled", counting("compiled", bench.stream_compiled))
    monkeypatch.setattr(bench, "stream_reference", counting("reference", bench.stream_reference))
    monkeypatch.setattr(bench, "floor", counting("floor", bench.floor))
    module, template = bench.load_module("qwen3"), load_template("qwen3")
    row = bench.measure_shape("qwen3", module, template, "prose", 2, 200)
    assert row["status"] in ("met", "below") and row["floor_rounds"] == 2
    # one warm-up run, then one compiled run per round
    assert calls == {"compiled": 3, "reference": 2, "floor": 2}
    assert row["floor_compiled_ns_per_token"] == row["compiled_ns_per_token"]
    ratio, before = row["ratio"], dict(row)
    bench.measure_floor("qwen3", module, row, 3, 200)
    assert calls == {"compiled": 6, "reference": 2, "floor": 5} and row["floor_rounds"] == 5
    assert row["ratio"] == ratio and row["floor_compiled_ns_per_token"] <= before["floor_compiled_ns_per_token"]
    assert row["floor_ns_per_token"] <= before["floor_ns_per_token"]
    # one compiled-over-floor ratio per round, each timed next to each other
    assert len(row["floor_pairs"]) == 5 and before["floor_pairs"] == row["floor_pairs"][:2]
    assert row["distance_to_floor"] == sorted(row["floor_pairs"])[2]  # the median of five

    calls.update(compiled=0, reference=0, floor=0)
    row = bench.measure_shape("qwen3", module, template, "calls", 2, 200)
    assert "floor_rounds" not in row and calls == {"compiled": 3, "reference": 2, "floor": 0}

    calls.update(compiled=0, reference=0, floor=0)
    paired = bench.measure_growth("qwen3", module, rounds=3)
    # equal work: as many different 8k streams as make the 128k stream's tokens
    assert paired["small_streams_per_run"] == 16
    assert calls["compiled"] == 3 * (16 + 1) and len(paired["pairs"]) == 3
    assert paired["growth"] == sorted(paired["pairs"])[1]  # the median of three

    rows = bench.measure_mixed("qwen3", module, template, 1, [2_000])
    assert rows[0]["reference_runs"] == 3
    # an interpreter too slow for more than one parse
    monkeypatch.setattr(bench, "EXTRA_ROUND_NS", 0)
    parses = []
    real_parse = bench.reference_parse
    monkeypatch.setattr(
        bench, "reference_parse", lambda *args, **kwargs: parses.append(1) or real_parse(*args, **kwargs)
    )
    rows = bench.measure_mixed("qwen3", module, template, 1, [2_000])
    assert rows[0]["reference_runs"] == 1 and len(parses) == 1
