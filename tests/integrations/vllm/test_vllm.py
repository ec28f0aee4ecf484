"""The vLLM plugin, tested inside vLLM's own environment (.venv-vllm/, made by
scripts/setup-vllm, which scripts/setup and so .ci/run run): each file in inner/
is a pytest run of that environment's python, with this checkout first on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
INNER = Path(__file__).resolve().parent / "inner"
PYTHON = ROOT / ".venv-vllm" / "bin" / "python"


@pytest.mark.parametrize("name", sorted(p.name for p in INNER.glob("vllm_*.py")))
def test_inside_vllm(name, tmp_path):
    assert PYTHON.is_file(), f"{PYTHON} is missing: run scripts/setup-vllm (scripts/setup runs it)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(
        PYTHONPATH=str(ROOT), RESPONSE_TEMPLATE_COMPILER_CACHE=str(tmp_path / "cache"), VLLM_LOGGING_LEVEL="WARNING"
    )
    env.pop("RESPONSE_TEMPLATE_COMPILER_TEMPLATE", None)
    run = subprocess.run(
        [str(PYTHON), "-m", "pytest", "-c", str(INNER / "pytest.ini"), str(INNER / name), "-q", "-rs"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    sys.stdout.write(run.stdout[-4000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " skipped" not in run.stdout.splitlines()[-1], "nothing is skipped in the vLLM environment"
