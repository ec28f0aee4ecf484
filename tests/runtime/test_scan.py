"""Each state's generated scan (`hold_*`, compiler/passes/scan_plan.py)
against the general step it stands in for.

A scan answers the hold-back question for streamed text from its trigger
strings alone: where the text that must wait starts, or -1 when only the
search can tell. Wherever it answers, the general step (`_process`, whose
searches the differential tests check against the reference) on the same
context and text must commit nothing and route exactly up to that point.
The texts are made of the template's own trigger strings, their prefixes
and suffixes, lead characters, look-behind strings and words, after
contexts of the same pieces, so the prefixes, lead runs and look-behind
conditions the scans decide on are met in every arrangement.
"""

from __future__ import annotations

import random

import pytest

from conftest import load_generated
from compiler.frontend import source as sources
from compiler.pipeline import to_program

NAMES = sorted(path.stem.replace(".", "_") for path in sources.bundled())
PIECES = ["a", "word", " ", "  ", "\n", "\n\n", "\t", "}", "]", ")", '"', ":", ",", "{", "x" * 9, "é", "\u3000"]


def _pieces(program) -> list[str]:
    """The template's trigger strings in parts, and its look-behind strings."""
    pieces = list(PIECES)
    for state in program.states:
        scan = state.scan
        if scan is None:
            continue
        for string in scan.strings:
            pieces += [string, string[:1], string[: len(string) // 2], string[1:], string[-2:]]
        for _string, (_lead, after, _number) in scan.owners:
            pieces += list(after)
        for after in scan.trail or ():
            pieces += list(after)
    return [piece for piece in pieces if piece]


@pytest.mark.parametrize("name", NAMES)
def test_scan_answers_as_the_general_step(name):
    program = to_program(sources.read(name))
    module = load_generated(name)
    cls = module.ResponseParser
    pieces = _pieces(program)
    rng = random.Random(f"scan:{name}")
    answered = 0
    for state in sorted(cls.SCANNED):
        scan = cls.SCANS[state]
        for _ in range(400):
            context = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 6)))
            tail = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 5)))
            if context[-1] in cls.BEHIND.get(state, ""):
                continue  # a look-behind alternative may match right there: never scanned (StreamParser._trim)
            parser = cls("")
            parser._state = state
            parser._current = cls.IMPLICIT if state < 0 else state
            parser._opened = True
            parser._buf, parser._pos, parser._base = context + tail, len(context), 1
            at, _waits = scan(tail, parser, len(context))
            if at < 0:
                continue
            answered += 1
            events = []
            parser._process(events, False)
            where = f"{name} state {state}: {context!r} + {tail!r} -> {at}"
            assert not [e for e in events if e["type"] != "region_chunk"], where
            assert parser._pos == len(context) + at, where
    assert answered > 50 or not cls.SCANNED
