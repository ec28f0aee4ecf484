"""`python -m benchmarks --part` and `--overlay`: re-measured shapes replace
the same (template, shape) of the last full results, keep their date, and
the failures are counted again from the rows (not timed: the figures of a
tiny run are not checked, only the bookkeeping)."""

from __future__ import annotations

import json

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
