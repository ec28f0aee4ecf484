"""Every delimiter regex of the bundled templates, for the regex tests."""

from __future__ import annotations

import glob
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def corpus() -> dict[str, str]:
    """Every regex in templates_src/*.json -> where it is."""
    found: dict[str, str] = {}

    def collect(value, where):
        if isinstance(value, dict):
            for key, item in value.items():
                if key.endswith("pattern") and isinstance(item, str):
                    found.setdefault(item, f"{where}.{key}")
                else:
                    collect(item, f"{where}.{key}")
        elif isinstance(value, list):
            for item in value:
                collect(item, where)

    for path in sorted(glob.glob(str(ROOT / "templates_src" / "*.json"))):
        collect(json.loads(Path(path).read_text(encoding="utf-8")), Path(path).stem)
    return found


CORPUS = corpus()
