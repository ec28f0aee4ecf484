"""runtime.batch.ParseBatch on Arrow tables and record batches, pandas
DataFrames and dicts of columns: row for row what the parser gives for that
row alone (and the interpreter), bad rows included; order and input columns kept."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pytest
from batch_rows import ROOT, check_row, rows, vendored_module

from compiler import compile_template
from conftest import load_generated
from runtime.batch import ADDED_COLUMNS, ParseBatch

# qwen3 (json arguments), qwen3_5 (xml-inline arguments), kimi_k2 (tool call ids).
TEMPLATES = ["qwen3", "qwen3_5", "kimi_k2"]


def table_of(batch_rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(
        batch_rows, schema=pa.schema([(key, pa.string()) for key in ("id", "output", "prefix", "tools")])
    )


@pytest.mark.parametrize("name", TEMPLATES)
def test_table_row_for_row(name):
    module = load_generated(name)
    batch_rows = rows(name)
    out = ParseBatch(module)(table_of(batch_rows))
    assert isinstance(out, pa.Table)
    assert out.schema.names == ["id", "output", "prefix", "tools", *ADDED_COLUMNS]
    assert out.num_rows == len(batch_rows)
    errors = 0
    for row, got in zip(batch_rows, out.to_pylist()):
        check_row(module, name, row, got)
        errors += got["error"] is not None
    assert errors >= 3  # the null output, null prefix and bad tools rows at least


def test_record_batch_and_pickled_copy():
    module = load_generated("qwen3")
    batch_rows = rows("qwen3", 60)
    batch = table_of(batch_rows).to_batches()[0]
    parse = pickle.loads(pickle.dumps(ParseBatch(module)))  # travels as source code
    assert parse.module is not module
    out = parse(batch)
    assert isinstance(out, pa.RecordBatch) and out.schema == parse.output_schema(batch.schema)
    for row, got in zip(batch_rows, out.to_pylist()):
        check_row(module, "qwen3", row, got)


def test_pandas_and_dict_batches():
    module = load_generated("qwen3_5")
    batch_rows = rows("qwen3_5")
    frame = pd.DataFrame(batch_rows)
    out = ParseBatch(module)(frame)
    assert list(out.columns) == ["id", "output", "prefix", "tools", *ADDED_COLUMNS]
    assert list(frame.columns) == ["id", "output", "prefix", "tools"]  # the input is not changed
    records = [
        {key: None if pd.api.types.is_scalar(value) and pd.isna(value) else value for key, value in record.items()}
        for record in out.to_dict("records")
    ]
    as_dict = ParseBatch(module)({key: [row[key] for row in batch_rows] for key in batch_rows[0]})
    for index, row in enumerate(batch_rows):
        check_row(module, "qwen3_5", row, records[index])
        check_row(module, "qwen3_5", row, {key: values[index] for key, values in as_dict.items()})


def test_column_names_defaults_and_prefix():
    module = compile_template(json.loads((ROOT / "templates_src" / "qwen3.json").read_text()), name="qwen3")
    sample = rows("qwen3")[3]  # single_call_typed: its tools type the arguments
    tools = json.loads(sample["tools"])
    table = pa.table({"gen": [sample["output"]], "content": ["an input column named content"]})
    parse = ParseBatch(module, text="gen", output="parsed_", default_prefix=sample["prefix"], default_tools=tools)
    out = parse(table).to_pylist()[0]
    assert out["content"] == "an input column named content"
    assert json.loads(out["parsed_message"]) == module.parse_response(
        sample["output"], prefix=sample["prefix"], tools=tools
    )
    assert json.loads(out["parsed_tool_calls"][0]["arguments"])["days"] == 3
    with pytest.raises(ValueError, match="already has column"):
        ParseBatch(module, text="gen")(table)
    with pytest.raises(KeyError, match="no 'output' column"):
        ParseBatch(module)(table)
    with pytest.raises(TypeError, match="pyarrow Table or RecordBatch"):
        ParseBatch(module)([sample["output"]])


def test_vendored_module_needs_only_runtime_batch(tmp_path):
    """A pickled ParseBatch of a vendored module parses where runtime.core and the compiler cannot be imported."""
    module = vendored_module("qwen3")
    batch_rows = rows("qwen3", 30)
    (tmp_path / "job.pkl").write_bytes(pickle.dumps((ParseBatch(module), table_of(batch_rows))))
    script = (
        "import pickle, sys\n"
        "sys.modules['runtime.core'] = None; sys.modules['compiler'] = None\n"  # importing either fails
        "parse, table = pickle.load(open(sys.argv[1], 'rb'))\n"
        "sys.stdout.write(parse(table).to_pandas().to_json(orient='records'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "job.pkl")], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    for row, got in zip(batch_rows, json.loads(result.stdout)):
        check_row(module, "qwen3", row, got)
