"""The docs/scale.md recipes on local engines: Ray Data, Apache Spark
(mapInArrow) and Hugging Face `datasets` (map with num_proc). Each engine
starts once for this file, parses a few hundred rows (bad ones included),
and every output row must equal the parser's result for that row alone.

The parser travels to the workers inside the pickled ParseBatch (vendored
source); the workers import `runtime.batch` from this checkout (PYTHONPATH)."""

from __future__ import annotations

import os
import sys

import psutil
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batch_rows import ROOT, check_row, rows, vendored_module

from runtime.batch import ParseBatch

COUNT = 300
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module", autouse=True)
def workers_import_this_checkout():
    saved = {key: os.environ.get(key) for key in ("PYTHONPATH", "PYSPARK_PYTHON", "RAY_USAGE_STATS_ENABLED")}
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), saved["PYTHONPATH"]]))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # no usage report (there is no network to send it to)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def descendants() -> set[int]:
    return {child.pid for child in psutil.Process().children(recursive=True)}


def still_running(pids: set[int]) -> list[str]:
    alive = []
    for pid in pids:
        try:
            process = psutil.Process(pid)
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(f"{pid} {process.name()}")
        except psutil.NoSuchProcess:
            pass
    return alive


def wait_gone(pids: set[int], seconds: float = 30.0) -> list[str]:
    psutil.wait_procs([psutil.Process(pid) for pid in pids if psutil.pid_exists(pid)], timeout=seconds)
    return still_running(pids)


@pytest.fixture(scope="module")
def ray_session():
    import ray

    before = descendants()
    # 2 CPUs as on this machine; a small object store (it lives in /dev/shm,
    # 24 GB here, and the test moves a few MB); no dashboard, no log streaming.
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=128 * 2**20,
        log_to_driver=False,
        configure_logging=False,
    )
    started = descendants() - before
    assert started, "ray.init started no processes"
    yield ray
    ray.shutdown()
    assert not ray.is_initialized()
    assert not wait_gone(started), f"Ray processes left after shutdown: {still_running(started)}"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    before = descendants()
    session = (
        SparkSession.builder.master("local[2]")
        .appName("response-template-compiler tests")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    started = descendants() - before
    yield session
    from pyspark import SparkContext

    gateway = session.sparkContext._gateway
    session.stop()
    # pyspark keeps the JVM for a next session; it exits when its standard input closes.
    gateway.shutdown()
    gateway.proc.stdin.close()
    gateway.proc.wait(timeout=60)
    SparkContext._gateway = SparkContext._jvm = None
    assert not wait_gone(started), f"Spark processes left after stop: {still_running(started)}"


def table(name: str) -> tuple[list[dict], pa.Table]:
    batch_rows = rows(name, COUNT)
    schema = pa.schema([(key, pa.string()) for key in ("id", "output", "prefix", "tools")])
    return batch_rows, pa.Table.from_pylist(batch_rows, schema=schema)


def check_table(module, name, batch_rows, out: pa.Table) -> None:
    assert out.schema.names[:4] == ["id", "output", "prefix", "tools"]
    assert out.num_rows == len(batch_rows)
    got = out.to_pylist()
    assert [row["id"] for row in got] == [row["id"] for row in batch_rows]  # input order
    for row, result in zip(batch_rows, got):
        check_row(module, name, row, result)
    assert sum(result["error"] is not None for result in got) >= COUNT // 15


def test_ray_data_map_batches(ray_session, tmp_path):
    ray = ray_session
    module = vendored_module("qwen3")
    batch_rows, source = table("qwen3")
    pq.write_table(source, tmp_path / "gens.parquet", row_group_size=100)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    dataset = ray.data.read_parquet(str(tmp_path / "gens.parquet")).map_batches(
        ParseBatch(module), batch_format="pyarrow", batch_size=64
    )
    out = pa.concat_tables(ray.get(dataset.to_arrow_refs()))
    check_table(module, "qwen3", batch_rows, out)
    assert out.schema == ParseBatch(module).output_schema(source.schema)


def test_spark_map_in_arrow(spark):
    from pyspark.sql.types import StructType

    module = vendored_module("qwen3_5")
    batch_rows, source = table("qwen3_5")
    frame = spark.createDataFrame(source)  # in order, two partitions of local[2]
    parse = ParseBatch(module)
    schema = StructType(frame.schema.fields + StructType.fromDDL(parse.spark_ddl()).fields)
    out = frame.mapInArrow(lambda batches: map(parse, batches), schema).toArrow()
    check_table(module, "qwen3_5", batch_rows, out)
    assert out.schema.names == parse.output_schema(source.schema).names


def test_datasets_map_with_processes():
    import datasets

    module = vendored_module("kimi_k2")
    batch_rows, source = table("kimi_k2")
    dataset = datasets.Dataset(datasets.table.InMemoryTable(source))
    parse = ParseBatch(module)
    as_arrow = dataset.with_format("arrow").map(parse, batched=True, batch_size=64, num_proc=2)
    out = as_arrow.with_format("arrow")[:]
    assert out.schema == parse.output_schema(source.schema)  # the declared types, whatever the first batch holds
    check_table(module, "kimi_k2", batch_rows, out)
    as_python = dataset.map(parse, batched=True, batch_size=64, num_proc=2)  # dict batches also work
    check_table(module, "kimi_k2", batch_rows, as_python.with_format("arrow")[:])
