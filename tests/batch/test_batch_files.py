"""`parse TEMPLATE --input FILE --output FILE` on JSON lines and Parquet, one
process and several: row for row what the parser gives for that row alone."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batch_rows import alone, check_row, rows

from compiler.cli import main
from conftest import load_generated
from runtime.batch import ADDED_COLUMNS

NAME = "qwen3"
COUNT = 300


@pytest.fixture(scope="module")
def module():
    return load_generated(NAME)


@pytest.fixture(scope="module")
def generations():
    return rows(NAME, COUNT)


def as_record(row: dict) -> dict:
    """A JSON-lines record: tools as a list (the bad-tools row keeps its string, which is read as JSON text)."""
    record = dict(row)
    if record["tools"] is None:
        del record["tools"]
    elif record["tools"].startswith("[{not"):
        pass
    else:
        record["tools"] = json.loads(record["tools"])
    return record


@pytest.fixture
def jsonl(tmp_path, generations):
    path = tmp_path / "gens.jsonl"
    path.write_text("".join(json.dumps(as_record(row), ensure_ascii=False) + "\n" for row in generations), encoding="utf-8")
    return path


@pytest.fixture
def parquet(tmp_path, generations):
    path = tmp_path / "gens.parquet"
    schema = pa.schema([(key, pa.string()) for key in ("id", "output", "prefix", "tools")])
    pq.write_table(pa.Table.from_pylist(generations, schema=schema), path, row_group_size=100)
    return path


def check_lines(module, generations, path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(generations)
    for number, (row, line) in enumerate(zip(generations, lines), start=1):
        out = json.loads(line)
        message, error = alone(module, row)
        assert out["line"] == number and out["id"] == row["id"]
        if error is None:
            assert out["message"] == message and "error" not in out
        else:
            assert out["error"] == {"type": type(error).__name__, "message": str(error), "line": number}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jsonl_to_jsonl(module, generations, jsonl, tmp_path, capsys, jobs):
    out = tmp_path / "parsed.jsonl"
    code = main(["parse", NAME, "--input", str(jsonl), "--output", str(out), "--jobs", jobs, "--batch-rows", "64"])
    assert code == 1  # some rows fail by design
    check_lines(module, generations, out)
    err = capsys.readouterr().err
    failed = sum(alone(module, row)[1] is not None for row in generations)
    assert f"{COUNT} line(s): {COUNT - failed} parsed, {failed} failed, 0 blank" in err and f"--jobs {jobs}" in err
    assert "errors by type: " in err and "TypeError" in err and "JSONDecodeError" in err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_parquet_to_parquet_keeps_every_column_in_order(module, generations, parquet, tmp_path, capsys, jobs):
    out = tmp_path / "parsed.parquet"
    assert main(["parse", NAME, "--input", str(parquet), "--output", str(out), "--jobs", jobs, "--batch-rows", "50"]) == 1
    table = pq.read_table(out)
    assert table.schema.names == ["id", "output", "prefix", "tools", *ADDED_COLUMNS]
    assert table.num_rows == len(generations)
    for row, got in zip(generations, table.to_pylist()):
        check_row(module, NAME, row, got)
    assert f"{COUNT} row(s)" in capsys.readouterr().err


def test_parquet_to_jsonl_and_jsonl_to_parquet(module, generations, parquet, jsonl, tmp_path, capsys):
    lines = tmp_path / "parsed.jsonl"
    assert main(["parse", NAME, "--input", str(parquet), "--output", str(lines), "--jobs", "1"]) == 1
    check_lines(module, generations, lines)
    table_path = tmp_path / "parsed.parquet"
    assert main(["parse", NAME, "--input", str(jsonl), "--output", str(table_path), "--batch-rows", "100"]) == 1
    table = pq.read_table(table_path)
    assert table.schema.names == ["line", "id", "output", "prefix", "tools", *ADDED_COLUMNS]
    for number, (row, got) in enumerate(zip(generations, table.to_pylist()), start=1):
        assert got["line"] == number
        check_row(module, NAME, row, got)
    capsys.readouterr()


def test_format_flags_blank_lines_and_bad_lines_in_parquet(module, tmp_path, capsys):
    good = rows(NAME)[0]
    gens = tmp_path / "gens.txt"  # not a known extension: --input-format says what it is
    gens.write_text(json.dumps(good) + "\n\n{broken\n" + json.dumps(good) + "\n", encoding="utf-8")
    out = tmp_path / "parsed.bin"
    argv = ["parse", NAME, "--input", str(gens), "--input-format", "jsonl", "--output", str(out), "--format", "parquet"]
    assert main(argv) == 1
    got = pq.read_table(out).to_pylist()
    assert [row["line"] for row in got] == [1, 3, 4]  # the blank line has no row
    assert got[1]["error"]["type"] == "JSONDecodeError" and got[1]["output"] is None
    check_row(module, NAME, good, got[0])
    check_row(module, NAME, good, got[2])
    capsys.readouterr()


def test_clear_errors_for_unusable_files(parquet, tmp_path, capsys):
    assert main(["parse", NAME, "--input", str(parquet), "--text-field", "generation"]) == 2
    assert "no 'generation' column" in capsys.readouterr().err
    assert main(["parse", NAME, "--input", str(parquet), "--format", "parquet"]) == 2
    assert "Parquet needs a file" in capsys.readouterr().err
    parsed = tmp_path / "parsed.parquet"
    main(["parse", NAME, "--input", str(parquet), "--output", str(parsed)])
    capsys.readouterr()
    assert main(["parse", NAME, "--input", str(parsed), "--output", str(tmp_path / "again.parquet")]) == 2
    err = capsys.readouterr().err
    assert "already has the column(s)" in err and "Traceback" not in err
    assert main(["parse", NAME, "--input", str(tmp_path / "missing.parquet"), "--output", str(parsed)]) == 2
    assert "--input:" in capsys.readouterr().err


def test_progress_counts_rows_per_second(parquet, tmp_path, capsys):
    main(["parse", NAME, "--input", str(parquet), "--output", str(tmp_path / "p.parquet"), "--progress", "--jobs", "1"])
    err = capsys.readouterr().err
    assert "\r[" in err and "100%" in err and f"{COUNT:,} rows" in err and "rows/s" in err
