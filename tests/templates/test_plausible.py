"""No crash on plausible output: compositions of a template's own pieces
(tests/support/plausible.py) parse with the committed compiled parser; a
complete composition never raises, and a cut-off one raises only where the
reference interpreter raises, with the same exception class, and otherwise
gives the reference's message. The known raising shapes are listed in
tests/templates/roundtrip/plausible_raises.json with their reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from transformers.utils.chat_parsing import parse_response as reference_parse

from compiler.frontend.source import bundled
from conftest import load_generated
from differential import same
from plausible import EXAMPLES, compositions, pieces
from samples import template_of

NAMES = sorted(path.stem for path in bundled())
RAISES = json.loads((Path(__file__).parent / "roundtrip" / "plausible_raises.json").read_text(encoding="utf-8"))


def outcome(parse, text, prefix, tools):
    try:
        return "ok", parse(text, prefix=prefix, tools=tools)
    except Exception as error:  # noqa: BLE001 - the class is the outcome
        return "error", type(error).__name__, str(error)


@pytest.mark.parametrize("name", NAMES)
def test_plausible_output_does_not_crash(name):
    groups = pieces(name)
    assert groups, f"{name}: no pieces (samples or round-trip renders)"
    template = template_of(name)
    module = load_generated(name)
    allowed = RAISES.get(name, {})

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(compositions(groups))
    def check(case):
        prefix, text, tools, cut = case
        got = outcome(module.parse_response, text, prefix, tools)
        want = outcome(lambda t, **kw: reference_parse(t, template, **kw), text, prefix, tools)
        assert same(got[:2], want[:2]), f"compiled {got} vs reference {want} on {text!r}"
        if got[0] == "error" and not cut:
            reason = next((why for marker, why in allowed.items() if marker in got[2]), None)
            assert (
                reason
            ), f"{name} raises on a complete plausible output: {got[2]} on {text!r} (prefix {prefix[-40:]!r})"

    check()
