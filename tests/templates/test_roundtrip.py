"""Chat-template round trips (tests/support/roundtrip.py): every probe message
rendered by a bundled family's own chat templates parses back, with the
committed compiled parser, into the message; each exception is data in
tests/templates/roundtrip/chat_templates.json and explained in
templates_src/README.md."""

from __future__ import annotations

import pytest

from compiler.frontend.source import bundled
from conftest import load_generated
from roundtrip import CHAT_TEMPLATES, PROBES, cases, load_mapping, run_case

NAMES = {path.stem for path in bundled()}
CASES = cases()
needs_corpus = pytest.mark.skipif(
    not CHAT_TEMPLATES.is_dir(),
    reason=f"the chat-template corpus is absent: expected at {CHAT_TEMPLATES} (../shared/chat_templates beside the checkout)",
)


def test_mapping_names_bundled_templates_and_existing_files():
    mapping = load_mapping()["templates"]
    assert set(mapping) <= NAMES, f"unknown templates in the mapping: {sorted(set(mapping) - NAMES)}"
    if CHAT_TEMPLATES.is_dir():
        missing = {
            e["file"] for entries in mapping.values() for e in entries if not (CHAT_TEMPLATES / e["file"]).is_file()
        }
        assert not missing, f"chat templates named in the mapping but absent from {CHAT_TEMPLATES}: {sorted(missing)}"


def test_explanations_name_known_probes_and_fields():
    for entries in load_mapping()["templates"].values():
        for entry in entries:
            assert set(entry.get("explained", {})) <= set(PROBES), entry["file"]
            assert set(entry.get("drops", {})) <= {"reasoning_content", "content", "tool_calls"}, entry["file"]


@needs_corpus
@pytest.mark.parametrize(
    "name,entry,probe", CASES, ids=[f"{n}/{e['file']}/{e.get('kwargs', '')}/{p}" for n, e, p in CASES]
)
def test_chat_template_render_parses_back(name, entry, probe):
    status, detail = run_case(load_generated(name).parse_response, entry, probe)
    reason = entry.get("explained", {}).get(probe) or (status == "render-error" and entry.get("render_error"))
    if reason:
        assert status != "ok", f"explained as a disagreement but now round-trips: {reason}"
        return
    assert status == "ok", detail
