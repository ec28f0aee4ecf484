"""The whole-text parse's inline searches (RegexDelimiter.whole, rendered by
compiler/backends/python/module.py) against the runtime's
`Pattern.search(buf, pos, False)`, for every regex delimiter of every
bundled template: on its samples' outputs, slices and splices of them and
random soups of its trigger strings, lead characters (non-ASCII
whitespace included) and other characters, searched from increasing read
positions as parse_whole_text searches (each match, and each trigger
string's next occurrence, remembered while the read position has not
passed it). Then the parse itself: the module with the inline searches
against the same module rendered with every search the Pattern's."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from compiler.backends.python import module as backend
from compiler.frontend import source as sources
from compiler.ir import RegexDelimiter
from compiler.pipeline import module_from_code, to_program
from runtime.core import Lead, Leads, Pattern, Settled  # noqa: F401 - the rendered delimiters' names

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "templates_src" / "samples"
NAMES = sorted(path.stem for path in SAMPLES.glob("*.json"))
EXTRA = [
    "\xa0",
    "\u3000",
    "\x85",
    "\x1c",
    "\u2028",
    " ",
    "  ",
    "\n",
    "\t",
    "\r\n",
    "{",
    "}",
    "a",
    "x1",
    ":",
    '"',
    "<",
    ">",
    "|",
    "```",
]


def _program(name):
    return to_program(sources.read(str(ROOT / "templates_src" / f"{name}.json")))


def _patterns(program):
    for field in program.fields:
        for delim in (field.open, field.close):
            if isinstance(delim, RegexDelimiter) and delim.whole is not None:
                yield delim


def _searcher(delim, leads):
    """A function running the rendered search from each of `positions` in turn."""
    var = "P"
    tslots: dict = {}
    entry: dict = {}
    lines = backend._pattern_search(var, delim.whole, 0, tslots, entry)
    slots = ["d0"] + [f"t{slot}" for slot in tslots.values()]
    if delim.whole.literal:
        found = "(d0, e0, {})"
    else:
        found = "(d0, m0.end(), m0.groupdict())"
    code = [
        "def run(buf, positions):",
        f"    {' = '.join(slots)} = -2",
        "    out = []",
        "    for pos in positions:",
        "        if d0 < pos and d0 != -1:",
        *("    " * 2 + line for line in lines),
        f"        out.append(None if d0 < 0 else {found})",
        "    return out",
    ]
    namespace = {name: globals()[name] for name in ("Lead", "Leads", "Pattern", "Settled")}
    for lead, lead_var in leads.items():
        namespace[lead_var] = eval(f"Lead({lead.source!r}, {lead.ascii!r})", namespace)  # noqa: S307
    namespace[var] = eval(backend._delimiter_code(delim, leads), namespace)  # noqa: S307
    for name, value in backend.entry_code(entry, leads):
        exec(f"{name} = {value}", namespace)  # noqa: S102
    exec("\n".join(code), namespace)  # noqa: S102
    return namespace["run"], namespace[var]


def _leads(delim):
    leads: dict = {}
    hints = [delim.hint, delim.branches]
    for hint in hints:
        for lead in getattr(hint, "leads", ()) or ():
            leads.setdefault(lead, f"LEAD_{len(leads)}")
    return leads


def _texts(name, delim, rng):
    outputs = [s["output"] for s in json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))["samples"]]
    triggers = list(delim.whole.triggers or ()) + list(delim.whole.behind)
    pieces = triggers + [t[: rng.randrange(1, len(t) + 1)] for t in triggers if t] + EXTRA
    texts = list(outputs)
    for _ in range(60):
        a, b = rng.choice(outputs), rng.choice(outputs)
        i, j = rng.randrange(len(a) + 1), rng.randrange(len(b) + 1)
        texts.append(a[:i] + rng.choice(pieces) + b[j:])
    for _ in range(120):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25))))
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_inline_searches_agree_with_pattern_search(name):
    rng = random.Random(name)
    for delim in _patterns(_program(name)):
        run, pattern = _searcher(delim, _leads(delim))
        for text in _texts(name, delim, rng):
            positions = sorted({0, *(rng.randrange(len(text) + 1) for _ in range(4))})
            expected = []
            for pos in positions:
                match = pattern.search(text, pos, False)
                expected.append(None if match is None else (match.start(), match.end(), match.groupdict()))
            assert run(text, positions) == expected, (delim.path, text, positions)


@pytest.mark.parametrize("name", NAMES)
def test_whole_parse_agrees_with_pattern_searches(name):
    program = _program(name)
    plain = dataclasses.replace(
        program,
        fields=tuple(
            dataclasses.replace(
                field,
                **{
                    kind: dataclasses.replace(delim, whole=None)
                    for kind, delim in (("open", field.open), ("close", field.close))
                    if isinstance(delim, RegexDelimiter)
                },
            )
            for field in program.fields
        ),
    )
    source = sources.read(str(ROOT / "templates_src" / f"{name}.json"))
    inline = module_from_code(backend.render(program), source)
    generic = module_from_code(backend.render(plain), source)
    assert "_MATCH(" in inline.SOURCE_CODE or "_LEAD(" in inline.SOURCE_CODE or "_SEARCH(" in inline.SOURCE_CODE
    samples = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))["samples"]
    rng = random.Random(name)
    for sample in samples:
        text = sample["output"]
        variants = [text] + [text[: rng.randrange(len(text) + 1)] for _ in range(3)]
        variants += [text.replace("\n", rng.choice(["\xa0\n", "\n\n", " "]), 1) for _ in range(2)]
        for variant in variants:
            results = []
            for module in (inline, generic):
                try:
                    results.append(module.parse_response(variant, prefix=sample["prefix"], tools=sample.get("tools")))
                except Exception as error:  # noqa: BLE001 - compared by class and text
                    results.append((type(error).__name__, str(error)))
            assert results[0] == results[1], (sample["id"], variant)
