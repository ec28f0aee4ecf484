"""Values as Go source literals: every string that reaches generated Go goes
through here, so escaping is decided in one place."""

from __future__ import annotations


def go_string(text: str) -> str:
    """A double-quoted Go string literal holding `text` as UTF-8 (lone
    surrogates as their three WTF-8 bytes, which is how the runtime keeps them)."""
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
        elif 0xD800 <= code <= 0xDFFF:
            out.append("".join(f"\\x{byte:02x}" for byte in (0xED, 0x80 | (code >> 6) & 0x3F, 0x80 | code & 0x3F)))
        elif char.isprintable() and code != 0xFEFF:
            out.append(char)
        else:
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_runes(ranges) -> str:
    """A []rune of inclusive ranges lo, hi, lo, hi, ..."""
    return "[]rune{" + ", ".join(f"0x{lo:x}, 0x{hi:x}" for lo, hi in ranges) + "}"
