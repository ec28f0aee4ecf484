"""No crash on plausible output: compositions of a template's own pieces
(tests/support/plausible.py) parse with the committed compiled parser; a
complete composition never raises, and a cut-off one raises only where the
reference interpreter raises, with the same exception class, and otherwise
gives the reference's message. The known raising shapes are listed in
tests/templates/roundtrip/plausible_raises.json with their reason.

Markers inside values: the same pieces with a delimiter of the template (or
a prefix of one) written inside a string argument, the content or the
reasoning, alone or among other pieces with markers in the text between
them. The compiled parser must give the reference's events, message and
exception class, whole and in chunks. A whole delimiter written in free
text (content, reasoning) is that delimiter, for every parser, so it may
change the message; anything else that keeps a piece from reading back as
the message it was written from (a marker inside an argument, half a
marker anywhere), or that raises on complete output, is a limit of the
template, listed with its reason in
tests/templates/roundtrip/plausible_markers.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers.utils.chat_parsing import parse_response as reference_parse

from compiler.frontend.source import bundled
from conftest import load_generated
from differential import assert_same_behaviour, same
from plausible import EXAMPLES, compositions, marked_candidates, marked_compositions, markers, pieces
from samples import template_of

NAMES = sorted(path.stem for path in bundled())
RAISES = json.loads((Path(__file__).parent / "roundtrip" / "plausible_raises.json").read_text(encoding="utf-8"))
MARKER_LIMITS = json.loads((Path(__file__).parent / "roundtrip" / "plausible_markers.json").read_text(encoding="utf-8"))


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


def marker_limit(name: str, used) -> str | None:
    """Why a text holding these markers may not read back (or may raise): the
    recorded limit of the template, or None."""
    limits = MARKER_LIMITS.get(name, {})
    for where, marker, _ in used:
        reason = limits.get(f"{where}:{marker}") or limits.get(f"*:{marker}")
        if reason:
            return reason
    return None


@pytest.mark.parametrize("name", NAMES)
def test_markers_inside_values(name):
    groups = pieces(name)
    template = template_of(name)
    candidates = marked_candidates(template, groups)
    assert candidates, f"{name}: no piece has a string value to put a marker in"
    marks = markers(template)
    module = load_generated(name)

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(marked_compositions(candidates, groups, marks), st.data())
    def check(case, data):
        prefix, text, tools, cut, rendered, used = case
        cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=3))))
        chunks = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)]) if text[a:b]] or [text]
        assert_same_behaviour(template, module, prefix, [text], tools)
        assert_same_behaviour(template, module, prefix, chunks, tools)
        if cut or any(where != "arguments" and not partial for where, _, partial in used):
            return  # cut off, or a whole delimiter written in free text
        want = outcome(lambda t, **kw: reference_parse(t, template, **kw), text, prefix, tools)
        if want[0] == "error":
            reason = marker_limit(name, used) or next(
                (why for m, why in RAISES.get(name, {}).items() if m in want[2]), None
            )
            assert reason, f"{name} raises on complete output with markers {used}: {want[2]} on {text!r}"
        elif rendered is not None and not same(want[1], rendered):
            assert marker_limit(name, used), (
                f"{name}: markers {used} keep the output from reading back: {want[1]!r}, written from {rendered!r}, "
                f"text {text!r}"
            )

    check()
