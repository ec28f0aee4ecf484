"""Run the reference interpreter and a compiled parser on the same inputs and
record everything observable: initial events, the events of each feed, the
final message and events, and the exception class at the call that raised."""

from __future__ import annotations

import math

from transformers.utils.chat_parsing import ResponseParser as ReferenceParser


def _trace(make_parser, prefix, chunks):
    trace = []
    try:
        parser = make_parser(prefix)
    except Exception as error:  # noqa: BLE001 - the class is what we compare
        return [("init", type(error))]
    trace.append(("init", parser.initial_events))
    for chunk in chunks:
        try:
            trace.append(("feed", parser.feed(chunk)))
        except Exception as error:  # noqa: BLE001
            trace.append(("feed", type(error)))
            return trace
    try:
        message, events = parser.finalize()
        trace.append(("final", message, events))
    except Exception as error:  # noqa: BLE001
        trace.append(("final", type(error)))
    return trace


def reference_trace(template, prefix, chunks, tools=None):
    return _trace(lambda p: ReferenceParser(template, prefix=p, tools=tools), prefix, chunks)


def compiled_trace(module, prefix, chunks, tools=None):
    return _trace(lambda p: module.ResponseParser(p, tools=tools), prefix, chunks)


def same(a, b) -> bool:
    """Equality as Python values, with types: 1 != 1.0 != True; NaN equals NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def assert_same_behaviour(template, module, prefix, chunks, tools=None):
    expected = reference_trace(template, prefix, chunks, tools)
    actual = compiled_trace(module, prefix, chunks, tools)
    if not same(expected, actual):
        detail = "\n".join(
            f"  step {i}: reference={e!r}\n          compiled ={a!r}"
            for i, (e, a) in enumerate(zip(expected, actual))
            if not same(e, a)
        )
        raise AssertionError(
            f"compiled parser diverges from the reference\n  prefix={prefix!r}\n  chunks={chunks!r}\n  tools={tools!r}\n"
            f"{detail or f'  lengths {len(expected)} vs {len(actual)}'}"
        )
