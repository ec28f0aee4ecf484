"""`parse TEMPLATE --input FILE --output FILE`: parse a file of generations of
any size, JSON lines or Parquet, in batches, on N processes.

Memory stays bounded: the file is read one batch at a time (a few MB of JSON
lines, or `--batch-rows` Parquet rows), at most two batches per process are
in flight, and results are written in input order as soon as they are ready.
Workers get the parser module as source code (no compiling, no imports by
name), so they start in a fraction of a second.

The JSON-lines path needs only the standard library; Parquet needs pyarrow.
"""

from __future__ import annotations

import json
import os
import sys
import time
import types
from collections import Counter, deque
from dataclasses import dataclass, field

from runtime.batch import added_schema, error_detail, parse_row, row_columns

PARQUET_SUFFIXES = (".parquet", ".pq")
CHUNK_BYTES = 1 << 20  # JSON lines per batch: at most this many bytes ...
IN_FLIGHT_PER_JOB = 2  # ... and this many batches queued or running per process


@dataclass
class Options:
    """What a worker needs to know about the fields (picklable)."""

    text_field: str = "output"
    prefix_field: str = "prefix"
    tools_field: str = "tools"
    id_field: str = "id"
    message_field: str = "message"
    default_prefix: str | None = ""
    default_tools: list | None = None
    ascii_only: bool = False
    output_format: str = "jsonl"


@dataclass
class Result:
    """One batch's output and its counts."""

    payload: object  # str (JSON lines) or a pyarrow RecordBatch
    rows: int = 0
    parsed: int = 0
    blank: int = 0
    nbytes: int = 0
    failures: list = field(default_factory=list)  # (line, type, message)


# ---------------------------------------------------------------- one record


def _parse_record(module, options: Options, record):
    """The message for one input record; raises for anything wrong with it."""
    if not isinstance(record, dict):
        raise TypeError(f"a line must hold a JSON object, not {type(record).__name__}")
    if options.text_field not in record:
        raise KeyError(f"no {options.text_field!r} field (set the name with --text-field)")
    prefix = record.get(options.prefix_field, options.default_prefix)  # null stays null: parse_response asks for one
    tools = record.get(options.tools_field, options.default_tools)
    return parse_row(
        module,
        record[options.text_field],
        prefix,
        tools,
        text_name=options.text_field,
        prefix_name=options.prefix_field,
    )


def _parse_line(module, options: Options, number: int, raw: bytes):
    """One non-blank input line -> (record or None, output object: a message or an error).

    The exception itself is not returned: its traceback's frames lead back to
    the caller's, a cycle that would hold every record until a GC."""
    out: dict = {"line": number}
    record = None
    try:
        record = json.loads(raw.decode("utf-8"))
        if isinstance(record, dict) and options.id_field in record:
            out[options.id_field] = record[options.id_field]
        out[options.message_field] = _parse_record(module, options, record)
        return record, out
    except Exception as error:  # whatever a line does, it gets its own error object
        out.pop(options.message_field, None)
        out["error"] = {"type": type(error).__name__, "message": error_detail(error), "line": number}
        return record, out


def _failure(number: int, error_type: str, message: str) -> tuple:
    lines = message.splitlines()
    return number, error_type, lines[0] if lines else ""


# ---------------------------------------------------------------- batches (run in workers)

_WORKER: dict = {}


def _init_worker(code: str, name: str, options: Options) -> None:
    from runtime.batch import _module_from_source

    _WORKER["module"] = _module_from_source(code, name)
    _WORKER["options"] = options


def _lines_batch(first: int, lines: list) -> Result:
    """JSON lines -> JSON lines (output line N answers input line N) or an Arrow batch."""
    module, options = _WORKER["module"], _WORKER["options"]
    result = Result(payload=None, nbytes=sum(len(raw) for raw in lines))
    texts: list[str] = []
    records: list = []
    for number, raw in enumerate(lines, start=first):
        result.rows += 1
        raw = raw.rstrip(b"\r\n")
        if not raw.strip():
            texts.append("\n")  # kept, so output line N still answers input line N
            result.blank += 1
            continue
        record, out = _parse_line(module, options, number, raw)
        error = out.get("error")
        if error is None:
            result.parsed += 1
        else:
            result.failures.append(_failure(number, error["type"], error["message"]))
        if options.output_format == "parquet":
            record = record if isinstance(record, dict) else {}
            records.append((number, record, out.get(options.message_field), error))
        else:
            texts.append(json.dumps(out, ensure_ascii=options.ascii_only) + "\n")
    result.payload = _records_to_arrow(records, options) if options.output_format == "parquet" else "".join(texts)
    return result


def _records_to_arrow(records: list, options: Options):
    """Parsed JSON lines -> a RecordBatch: `line`, the input fields (nested values as JSON text), the added columns."""
    import pyarrow as pa

    names = list(dict.fromkeys(key for _, record, _, _ in records for key in record))
    columns = {"line": pa.array([number for number, _, _, _ in records], type=pa.int64())}
    for name in names:
        values = [record.get(name) for _, record, _, _ in records]
        if name == options.tools_field or any(isinstance(value, (dict, list)) for value in values):
            values = [
                json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value for value in values
            ]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: keep every value, as JSON text
            columns[name] = pa.array(
                [None if value is None else json.dumps(value, ensure_ascii=False) for value in values]
            )
    rows = [
        (
            row_columns(message, None)
            if error is None
            else (None, None, None, None, {"type": error["type"], "message": error["message"]})
        )
        for _, _, message, error in records
    ]
    schema = added_schema()
    for index, spec in enumerate(schema):
        columns[spec.name] = pa.array([row[index] for row in rows], type=spec.type)
    return pa.RecordBatch.from_pydict(columns)


def _arrow_batch(first: int, batch) -> Result:
    """A Parquet record batch (the columns parsing reads) -> the parsed
    columns (the caller joins them to the batch it kept), or JSON lines."""
    module, options = _WORKER["module"], _WORKER["options"]
    columns = batch.schema.names
    if options.text_field not in columns:
        raise KeyError(f"the input has no {options.text_field!r} column (columns: {columns}); set --text-field")
    texts = batch.column(options.text_field).to_pylist()
    prefixes = batch.column(options.prefix_field).to_pylist() if options.prefix_field in columns else None
    tools = batch.column(options.tools_field).to_pylist() if options.tools_field in columns else None
    ids = batch.column(options.id_field).to_pylist() if options.id_field in columns else None
    result = Result(payload=None, rows=batch.num_rows, nbytes=batch.num_rows)
    lines: list[str] = []
    values: list[tuple] = []
    for index, text in enumerate(texts):
        number = first + index
        prefix = options.default_prefix if prefixes is None else prefixes[index]
        row_tools = options.default_tools if tools is None else tools[index]
        out: dict = {"line": number}
        if ids is not None:
            out[options.id_field] = ids[index]
        try:
            message = parse_row(
                module, text, prefix, row_tools, text_name=options.text_field, prefix_name=options.prefix_field
            )
        except Exception as error:  # a bad row gets its error; the batch goes on
            result.failures.append(_failure(number, type(error).__name__, error_detail(error)))
            out["error"] = {"type": type(error).__name__, "message": error_detail(error), "line": number}
            values.append(row_columns(None, error))
        else:
            result.parsed += 1
            out[options.message_field] = message
            values.append(row_columns(message, None))
        if options.output_format == "jsonl":
            lines.append(json.dumps(out, ensure_ascii=options.ascii_only, default=str) + "\n")
    if options.output_format == "jsonl":
        result.payload = "".join(lines)
    else:
        import pyarrow as pa

        schema = added_schema()
        arrays = [pa.array([row[i] for row in values], type=spec.type) for i, spec in enumerate(schema)]
        result.payload = pa.RecordBatch.from_arrays(arrays, schema=schema)
    return result


def _joined(batch, added):
    """The input batch with the parsed columns after its own."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        list(batch.columns) + list(added.columns), schema=pa.schema(list(batch.schema) + list(added.schema))
    )


# ---------------------------------------------------------------- reading


def _line_chunks(infile, batch_rows: int):
    """(function, first line number, raw lines, None) of at most CHUNK_BYTES bytes or batch_rows lines."""
    first, lines, size = 1, [], 0
    for raw in infile:
        lines.append(raw)
        size += len(raw)
        if size >= CHUNK_BYTES or len(lines) >= batch_rows:
            yield _lines_batch, first, lines, None
            first += len(lines)
            lines, size = [], 0
    if lines:
        yield _lines_batch, first, lines, None


def _parquet_chunks(parquet, batch_rows: int, read: list):
    """(function, first row, the `read` columns of a batch, the whole batch):
    a worker is sent only what it reads, and the main process joins the
    parsed columns to the batch it kept, so no column crosses twice."""
    import pyarrow as pa

    first = 1
    for batch in parquet.iter_batches(batch_size=batch_rows):
        names = [name for name in dict.fromkeys(read) if name in batch.schema.names]
        sent = pa.RecordBatch.from_arrays([batch.column(name) for name in names], names=names)
        yield _arrow_batch, first, sent, batch
        first += batch.num_rows


# ---------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on standard error, redrawn at most ten times a second."""

    WIDTH = 24

    def __init__(self, stream, total: int | None, unit: str = "lines"):
        self.stream = stream
        self.total = total if total else None
        self.unit = unit
        self.start = self.last = time.monotonic()
        self._width = 0

    def update(self, rows: int, failed: int, done: int, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 0.1:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = f"{rows / elapsed:,.0f} {self.unit}/s"
        if self.total:
            fraction = min(done / self.total, 1.0)
            filled = int(fraction * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            eta = "" if final or fraction <= 0 else f"  eta {duration(elapsed * (1 - fraction) / fraction)}"
            head = f"[{bar}] {fraction:4.0%}"
        else:
            head, eta = "", ""
        line = f"\r{head}  {rows:,} {self.unit}  {failed:,} failed  {rate}  {duration(elapsed)}{eta}"
        self.stream.write(line.ljust(self._width))
        self._width = len(line)
        if final:
            self.stream.write("\n")
        self.stream.flush()


def duration(seconds: float) -> str:
    seconds = int(seconds)
    return (
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if seconds >= 3600
        else f"{seconds // 60}:{seconds % 60:02d}"
    )


# ---------------------------------------------------------------- the command


def file_format(path, given: str | None) -> str:
    if given:
        return given
    return "parquet" if str(path).lower().endswith(PARQUET_SUFFIXES) else "jsonl"


def _run(chunks, jobs: int, code: str, name: str, options: Options):
    """(kept, result) of every chunk in input order; at most IN_FLIGHT_PER_JOB * jobs chunks held at once."""
    if jobs <= 1:
        _init_worker(code, name, options)
        for function, first, items, kept in chunks:
            yield kept, function(first, items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(code, name, options)
    ) as pool:
        pending: deque = deque()
        for function, first, items, kept in chunks:
            pending.append((kept, pool.submit(function, first, items)))
            if len(pending) >= IN_FLIGHT_PER_JOB * jobs:
                kept, future = pending.popleft()
                yield kept, future.result()
        while pending:
            kept, future = pending.popleft()
            yield kept, future.result()


def parse_file(module: types.ModuleType, args, default_tools) -> int:
    """--input: parse a JSON-lines or Parquet file into JSON lines or Parquet; errors are recorded, never dropped."""
    from runtime.batch import _module_source

    in_format = file_format(args.input, getattr(args, "input_format", None))
    to_stdout = args.output is None or str(args.output) == "-"
    out_format = file_format("" if to_stdout else args.output, getattr(args, "format", None))
    from_stdin = str(args.input) == "-"
    jobs = args.jobs if getattr(args, "jobs", None) else (os.cpu_count() or 1)
    batch_rows = getattr(args, "batch_rows", None) or 1000
    if out_format == "parquet" and to_stdout:
        print("--output: Parquet needs a file (give --output PATH.parquet)", file=sys.stderr)
        return 2
    if in_format == "parquet" and from_stdin:
        print("--input: Parquet needs a file, not standard input", file=sys.stderr)
        return 2

    total = None
    unit = "lines"
    try:
        if in_format == "parquet":
            import pyarrow.parquet as pq

            parquet = pq.ParquetFile(args.input)
            total, unit = parquet.metadata.num_rows, "rows"
            names = parquet.schema_arrow.names
            if args.text_field not in names:
                raise ValueError(f"{args.input} has no {args.text_field!r} column (columns: {names}); set --text-field")
            clash = [name for name in added_schema().names if name in names]
            if clash and out_format == "parquet":
                raise ValueError(f"{args.input} already has the column(s) {clash} that parsing adds")
            chunks = _parquet_chunks(
                parquet, batch_rows, [args.text_field, args.prefix_field, args.tools_field, args.id_field]
            )
            infile = None
        else:
            infile = sys.stdin.buffer if from_stdin else open(args.input, "rb")
            if not from_stdin:
                total = os.fstat(infile.fileno()).st_size
            chunks = _line_chunks(infile, batch_rows)
        if (
            not getattr(args, "jobs", None)
            and total is not None
            and total <= (CHUNK_BYTES if unit == "lines" else batch_rows)
        ):
            jobs = 1  # a small input: starting workers would cost more than they save
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        print(f"--input: {error}", file=sys.stderr)
        return 2
    try:
        outfile = None
        if out_format == "jsonl":
            outfile = sys.stdout if to_stdout else open(args.output, "w", encoding="utf-8", newline="\n")
    except OSError as error:
        print(f"--output: {error}", file=sys.stderr)
        return 2
    encoding = (getattr(outfile, "encoding", None) or "utf8").lower().replace("-", "").replace("_", "")
    options = Options(
        text_field=args.text_field,
        prefix_field=args.prefix_field,
        tools_field=args.tools_field,
        id_field=args.id_field,
        message_field=args.message_field,
        default_prefix=args.prefix,
        default_tools=default_tools,
        ascii_only=encoding not in ("utf8", "utf8sig"),
        output_format=out_format,
    )
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    bar = Progress(sys.stderr, total, unit) if show else None
    start = time.monotonic()
    rows = parsed = blank = done = 0
    failures: list = []
    errors: Counter = Counter()
    writer = None
    schema = None
    try:
        for kept, result in _run(chunks, jobs, _module_source(module), module.__name__.rsplit(".", 1)[-1], options):
            rows += result.rows
            parsed += result.parsed
            blank += result.blank
            done += result.nbytes
            errors.update(failure[1] for failure in result.failures)
            failures.extend(result.failures[: max(0, 10 - len(failures))])
            if out_format == "jsonl":
                outfile.write(result.payload)
            else:
                batch = result.payload if kept is None else _joined(kept, result.payload)
                writer, schema = _write_parquet(writer, schema, args.output, batch)
            if bar is not None:
                bar.update(rows, sum(errors.values()), done)
    except SchemaMismatch as error:
        print(f"--output: {error}", file=sys.stderr)
        return 2
    except KeyError as error:  # a Parquet input without the text column
        print(f"--input: {error.args[0]}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.update(rows, sum(errors.values()), done, final=True)
        if infile is not None and not from_stdin:
            infile.close()
        if outfile is not None:
            if to_stdout:
                outfile.flush()
            else:
                outfile.close()
        if writer is not None:
            writer.close()
    if out_format == "parquet" and writer is None:  # no rows: still an empty file with the added columns
        import pyarrow as pa
        import pyarrow.parquet as pq

        inputs = parquet.schema_arrow if in_format == "parquet" else pa.schema([("line", pa.int64())])
        pq.write_table(pa.schema(list(inputs) + list(added_schema())).empty_table(), args.output)
    elapsed = time.monotonic() - start
    failed = sum(errors.values())
    noun = "line(s)" if in_format == "jsonl" else "row(s)"
    tail = f", {blank} blank" if in_format == "jsonl" else ""
    rate = f"{rows / elapsed:,.0f} {unit}/s" if elapsed > 0 else ""
    print(
        f"parse: {rows} {noun}: {parsed} parsed, {failed} failed{tail} in {elapsed:.2f} s ({rate}, --jobs {jobs})",
        file=sys.stderr,
    )
    if errors:
        print(
            "errors by type: " + ", ".join(f"{name} {count}" for name, count in errors.most_common()), file=sys.stderr
        )
    word = "line" if in_format == "jsonl" else "row"
    for number, error_type, message in failures:
        print(f"  {word} {number}: {error_type}: {message}", file=sys.stderr)
    if failed > len(failures):
        print(f"  ... and {failed - len(failures)} more (see the errors in the output)", file=sys.stderr)
    return 1 if failed else 0


class SchemaMismatch(ValueError):
    """A JSON-lines batch whose fields do not fit the Parquet schema the first batch fixed."""


def _write_parquet(writer, schema, path, batch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    if writer is None:
        # The first batch fixes the columns; an all-null field becomes a string column.
        schema = pa.schema(
            [spec.with_type(pa.string()) if pa.types.is_null(spec.type) else spec for spec in batch.schema]
        )
        writer = pq.ParquetWriter(path, schema)
    if batch.schema != schema:
        extra = [name for name in batch.schema.names if name not in schema.names]
        if extra:
            raise SchemaMismatch(
                f"field(s) {extra} first appear after the first batch of lines, whose fields fix the Parquet columns"
            )
        arrays = []
        for spec in schema:
            if spec.name in batch.schema.names:
                column = batch.column(spec.name)
                try:
                    arrays.append(column.cast(spec.type))
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
                    raise SchemaMismatch(
                        f"field {spec.name!r} holds {column.type} values where the first batch had {spec.type}: {error}"
                    ) from None
            else:
                arrays.append(pa.nulls(batch.num_rows, type=spec.type))
        batch = pa.RecordBatch.from_arrays(arrays, schema=schema)
    writer.write_batch(batch)
    return writer, schema
