"""Values as source literals, one helper per target language.

Every value that reaches generated code goes through here, so escaping is
decided in one place and output is deterministic.
"""

from __future__ import annotations

import math


def python_literal(value: object) -> str:
    """Python source for a JSON-like value (dict order kept)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, str):
        return _python_string(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(python_literal(item) for item in value)
        if isinstance(value, tuple):
            return f"({inner}{',' if len(value) == 1 else ''})"
        return f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for {type(value).__name__}")


def _python_string(text: str) -> str:
    """A double-quoted string literal; non-printable characters escaped, so
    generated files stay readable and survive editors."""
    out = ['"']
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_JS_SAFE_INT = 2**53 - 1


def js_literal(value: object) -> str:
    """JavaScript source for a JSON-like value (dict order kept). Python ints
    beyond 2**53 - 1 become BigInt literals, as the JS runtime holds them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}n" if abs(value) > _JS_SAFE_INT else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "-0" if value == 0 and math.copysign(1, value) < 0 else repr(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            # Written as computed keys so that "__proto__" stays an own property.
            shown = f"[{js_string(key)}]" if key == "__proto__" else js_string(key)
            items.append(f"{shown}: {js_literal(item)}")
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"no JavaScript literal for {type(value).__name__}")


def js_string(text: str) -> str:
    """A double-quoted JavaScript string literal; UTF-16 escapes for anything
    non-printable (lone surrogates included), so files stay readable."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif char.isprintable() and not 0xD800 <= code <= 0xDFFF and code not in (0x2028, 0x2029):
            out.append(char)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\u{{{code:x}}}")
    out.append('"')
    return "".join(out)
