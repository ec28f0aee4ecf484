"""Parse many generations at once: Arrow tables and record batches, pandas
DataFrames, and dicts of columns (Hugging Face `datasets` batches).

    from runtime.batch import ParseBatch
    from generated.python import qwen3

    parse = ParseBatch(qwen3)                  # columns: output (text), prefix, tools
    table = parse(table)                       # + reasoning_content, content, tool_calls, message, error

`ParseBatch` is picklable: it carries its parser module as source code, so
Ray, Spark and `datasets` workers rebuild the module without importing it by
name. A module built without `--vendor` imports `runtime.core`, so the
workers need this package installed; a vendored module needs only the
standard library (and `regex` when its template has regex delimiters).

pyarrow is imported only when a batch is Arrow (or to declare the schema);
the generated parsers and `runtime.core` never need it.
"""

from __future__ import annotations

import hashlib
import json
import sys
import types
from collections.abc import Mapping
from typing import Any

__all__ = ["ParseBatch", "ADDED_COLUMNS", "added_schema", "parse_row", "row_columns"]

#: The columns ParseBatch adds, in order (each name behind the `output` prefix).
ADDED_COLUMNS = ("reasoning_content", "content", "tool_calls", "message", "error")

# Modules rebuilt from source in this process, by the source's SHA-256, so a
# worker that unpickles the same ParseBatch for every batch executes it once.
_MODULES: dict[str, types.ModuleType] = {}


def _module_source(module: types.ModuleType) -> str:
    """The source code of a generated parser module (compiled in memory or a file)."""
    code = getattr(module, "SOURCE_CODE", None)
    if isinstance(code, str):
        return code
    path = getattr(module, "__file__", None)
    if not path:
        raise TypeError(f"{module!r} has neither SOURCE_CODE nor a source file; pass a generated parser module")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _module_from_source(code: str, name: str) -> types.ModuleType:
    key = hashlib.sha256(code.encode("utf-8")).hexdigest()
    module = _MODULES.get(key)
    if module is None:
        module = types.ModuleType(f"batch_{name}_{key[:12]}")
        module.__file__ = f"<parser {name}>"
        exec(compile(code, module.__file__, "exec"), module.__dict__)
        module.SOURCE_CODE = code
        _MODULES[key] = module
    return module


def parse_row(module, text: Any, prefix: Any, tools: Any, *, text_name: str = "output", prefix_name: str = "prefix"):
    """The message for one row; raises for anything wrong with the row (the
    checks the JSON-lines CLI makes, so every path reports the same errors)."""
    if not isinstance(text, str):
        raise TypeError(f"field {text_name!r} must be a string, not {type(text).__name__}")
    if not isinstance(prefix, str) and prefix is not None:  # None: parse_response asks for one
        raise TypeError(f"field {prefix_name!r} must be a string, not {type(prefix).__name__}")
    if isinstance(tools, str):  # tools stored as JSON text (the portable form in Arrow and Parquet)
        tools = json.loads(tools)
    return module.parse_response(text, prefix=prefix, tools=tools)


def error_detail(error: BaseException) -> str:
    """The message of an exception as the CLI reports it (a KeyError's key without quotes)."""
    return str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)


# json.dumps(value, ensure_ascii=False), without building an encoder per call.
_json = json.JSONEncoder(ensure_ascii=False).encode


def _text(value: Any):
    """A string field as itself; a non-string one (a template's json/int parser) as JSON text."""
    if value is None or isinstance(value, str):
        return value
    return _json(value)


def _tool_call(call: Any) -> dict:
    """{id, name, arguments as JSON text} from an OpenAI-style call ({"function": {...}}) or a flat one."""
    if not isinstance(call, dict):
        return {"id": None, "name": None, "arguments": _json(call)}
    function = call.get("function")
    function = function if isinstance(function, dict) else call
    name = function.get("name")
    arguments = function.get("arguments")
    return {
        "id": _text(call.get("id")),
        "name": _text(name),
        "arguments": None if arguments is None and "arguments" not in function else _json(arguments),
    }


def row_columns(message: dict | None, error: BaseException | None) -> tuple:
    """The added columns' values for one row (message or error)."""
    if error is not None:
        return None, None, None, None, {"type": type(error).__name__, "message": error_detail(error)}
    calls = message.get("tool_calls")
    if calls is not None:
        calls = [_tool_call(call) for call in calls] if isinstance(calls, list) else [_tool_call(calls)]
    return _text(message.get("reasoning_content")), _text(message.get("content")), calls, _json(message), None


def added_schema(output: str = ""):
    """The columns ParseBatch adds, as a `pyarrow.Schema`; `output` prefixes their names."""
    import pyarrow as pa

    call = pa.struct([("id", pa.string()), ("name", pa.string()), ("arguments", pa.string())])
    error = pa.struct([("type", pa.string()), ("message", pa.string())])
    types_ = [pa.string(), pa.string(), pa.list_(call), pa.string(), error]
    return pa.schema([pa.field(output + name, type_) for name, type_ in zip(ADDED_COLUMNS, types_)])


def _missing(value) -> bool:
    if value is None or (isinstance(value, float) and value != value):
        return True
    pandas = sys.modules.get("pandas")
    return pandas is not None and value is pandas.NA


class ParseBatch:
    """A picklable callable: batch in, the same batch with the parsed columns added.

    text, prefix, tools: the input columns holding the model output, the prompt
    and the tool list (JSON text or a list of schemas). A batch without the
    prefix column uses `default_prefix` for every row; without the tools
    column, `default_tools`. A row whose prefix is null fails as
    `parse_response(prefix=None)` does.
    output: a prefix for the added column names (`"parsed_"` -> `parsed_content`, ...).

    A row that fails gets null columns and its `error` struct (type, message);
    it never stops the batch. Rows keep their order; input columns are kept.
    """

    def __init__(
        self,
        parser_module,
        *,
        text: str = "output",
        prefix: str = "prefix",
        tools: str = "tools",
        output: str = "",
        default_prefix: str | None = "",
        default_tools: list | None = None,
    ):
        self._name = getattr(parser_module, "__name__", "parser").rsplit(".", 1)[-1]
        self._code = _module_source(parser_module)
        self.module = parser_module
        self.text, self.prefix, self.tools, self.output = text, prefix, tools, output
        self.default_prefix, self.default_tools = default_prefix, default_tools

    # Pickled as source code (never as a reference to a module that a worker may not have).
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["module"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.module = _module_from_source(self._code, self._name)

    @property
    def names(self) -> list[str]:
        """The added columns' names, in order."""
        return [self.output + name for name in ADDED_COLUMNS]

    def schema(self):
        """The added columns as a `pyarrow.Schema` (what Spark's mapInArrow and Ray need declared)."""
        return added_schema(self.output)

    def output_schema(self, input_schema):
        """`input_schema` (a pyarrow.Schema) followed by the added columns."""
        import pyarrow as pa

        return pa.schema(list(input_schema) + list(self.schema()))

    def spark_ddl(self) -> str:
        """The added columns as a Spark DDL string, to append to `df.schema` for mapInArrow."""
        names = self.names
        return (
            f"`{names[0]}` string, `{names[1]}` string, "
            f"`{names[2]}` array<struct<id: string, name: string, arguments: string>>, "
            f"`{names[3]}` string, `{names[4]}` struct<type: string, message: string>"
        )

    def parse_values(self, texts, prefixes=None, tools=None) -> list[tuple]:
        """Per row, the added columns' values; `prefixes`/`tools` None: the defaults for every row."""
        out = []
        for index, text in enumerate(texts):
            prefix = self.default_prefix if prefixes is None else prefixes[index]
            row_tools = self.default_tools if tools is None else tools[index]
            try:
                message = parse_row(self.module, text, prefix, row_tools, text_name=self.text, prefix_name=self.prefix)
            except Exception as error:  # a bad row gets its error; the batch goes on
                out.append(row_columns(None, error))
            else:
                out.append(row_columns(message, None))
        return out

    def _check_names(self, columns) -> None:
        if self.text not in columns:
            raise KeyError(f"the batch has no {self.text!r} column (columns: {list(columns)}); pass text=NAME")
        clash = [name for name in self.names if name in columns]
        if clash:
            raise ValueError(f"the batch already has column(s) {clash}; pass output='parsed_' (a name prefix)")

    def __call__(self, batch):
        if isinstance(batch, Mapping):
            return self._call_dict(batch)
        pandas = sys.modules.get("pandas")
        if pandas is not None and isinstance(batch, pandas.DataFrame):
            return self._call_pandas(batch)
        return self._call_arrow(batch)

    def _call_arrow(self, batch):
        import pyarrow as pa

        if not isinstance(batch, (pa.Table, pa.RecordBatch)):
            raise TypeError(
                f"ParseBatch takes a pyarrow Table or RecordBatch, a pandas DataFrame or a dict of columns, "
                f"not {type(batch).__name__}"
            )
        columns = batch.schema.names
        self._check_names(columns)
        texts = batch.column(self.text).to_pylist()
        prefixes = batch.column(self.prefix).to_pylist() if self.prefix in columns else None
        tools = batch.column(self.tools).to_pylist() if self.tools in columns else None
        rows = self.parse_values(texts, prefixes, tools)
        schema = self.schema()
        added = [pa.array([row[i] for row in rows], type=schema.field(i).type) for i in range(len(ADDED_COLUMNS))]
        arrays = list(batch.columns) + added
        full = pa.schema(list(batch.schema) + list(schema), metadata=batch.schema.metadata)
        if isinstance(batch, pa.RecordBatch):
            return pa.RecordBatch.from_arrays(arrays, schema=full)
        return pa.Table.from_arrays(arrays, schema=full)

    def _call_pandas(self, frame):
        columns = list(frame.columns)
        self._check_names(columns)

        def get(name):  # pandas' missing values (NaN, NA) as None, as Arrow's nulls are
            if name not in columns:
                return None
            return [None if _missing(value) else value for value in frame[name].tolist()]

        rows = self.parse_values(get(self.text), get(self.prefix), get(self.tools))
        out = frame.copy()
        for i, name in enumerate(self.names):
            out[name] = [row[i] for row in rows]
        return out

    def _call_dict(self, batch):
        """A dict of equal-length columns (a `datasets` batch) -> the same with the columns added."""
        columns = list(batch.keys())
        self._check_names(columns)
        get = lambda name: list(batch[name]) if name in columns else None  # noqa: E731
        rows = self.parse_values(list(batch[self.text]), get(self.prefix), get(self.tools))
        out = {name: batch[name] for name in columns}
        for i, name in enumerate(self.names):
            out[name] = [row[i] for row in rows]
        return out

    def __repr__(self) -> str:
        return f"ParseBatch({self._name}, text={self.text!r}, prefix={self.prefix!r}, tools={self.tools!r})"
