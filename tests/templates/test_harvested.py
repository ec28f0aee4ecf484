"""Harvested chat-template round trips (tests/support/harvest.py): the probe
renders of chat templates the shared corpus lacks, committed as data in
tests/templates/roundtrip/harvested/, parse back with the committed compiled
parser into the probe message, under the comparison and explanation rules of
test_roundtrip.py. Each exception is data in
tests/templates/roundtrip/harvested.json and explained in templates_src/README.md."""

from __future__ import annotations

import json

import pytest

from compiler.frontend.source import bundled
from conftest import load_generated
from harvest import DATA, load_mapping, mode, probes
from roundtrip import PROBES, compare, expected

NAMES = {path.stem for path in bundled()}
MAPPING = load_mapping()


def data(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


CASES = [(name, case) for name in sorted(MAPPING) if (DATA / f"{name}.json").is_file() for case in data(name)["cases"]]


def test_mapping_names_bundled_templates_with_sources():
    assert set(MAPPING) <= NAMES, f"unknown templates: {sorted(set(MAPPING) - NAMES)}"
    for entries in MAPPING.values():
        for entry in entries:
            assert set(entry["source"]) == {"repository", "path", "commit", "blob"}, entry["file"]
            assert set(entry.get("explained", {})) <= set(PROBES), entry["file"]
            assert set(entry.get("drops", {})) <= {"reasoning_content", "content", "tool_calls"}, entry["file"]


def test_data_covers_the_mapping():
    """Every mapped chat template and probe has a committed render made with the
    mapping's current render mode (else: rerun tests/support/harvest.py)."""
    for name, entries in MAPPING.items():
        assert (DATA / f"{name}.json").is_file(), f"no harvested data for {name}: run tests/support/harvest.py"
        recorded = data(name)
        assert recorded["sources"] == [{"file": e["file"], **e["source"]} for e in entries], name
        want = [(i, e["file"], mode(e), p) for i, e in enumerate(entries) for p in probes(e)]
        got = [(c["entry"], c["file"], c["mode"], c["probe"]) for c in recorded["cases"]]
        assert got == want, f"{name}: the harvested data is stale: rerun tests/support/harvest.py"


@pytest.mark.parametrize(
    "name,case", CASES, ids=[f"{n}/{c['file']}/{c['mode'].get('kwargs', '')}/{c['probe']}" for n, c in CASES]
)
def test_harvested_render_parses_back(name, case):
    entry = MAPPING[name][case["entry"]]
    probe = case["probe"]
    if case["status"] == "rendered":
        assert case["expected"] == expected(PROBES[probe], case["generation"]), "the recorded expected message is stale"
        status, detail = compare(load_generated(name).parse_response, entry, probe, case["prefix"], case["generation"])
    else:
        status, detail = case["status"], case["error"]
    reason = entry.get("explained", {}).get(probe) or (status == "render-error" and entry.get("render_error"))
    if reason:
        assert status != "ok", f"explained as a disagreement but now round-trips: {reason}"
        return
    assert status == "ok", detail
