"""Comparing a JavaScript parser's results with Python's."""

from __future__ import annotations

from differential import same


def same_js(actual: dict, expected: dict) -> bool:
    """As differential.same, with JavaScript's one number type: integral floats compare as integers."""

    def norm(value):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, dict):
            return {k: norm(v) for k, v in sorted(value.items())}
        return value

    return all(same(norm(actual[key]), norm(expected[key])) for key in expected)
