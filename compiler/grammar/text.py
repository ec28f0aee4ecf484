"""Printers shared by the text formats: literals and character classes."""

from __future__ import annotations

from ..regex.charset import MAX_CODE, CharSet


def complement(chars: CharSet) -> CharSet:
    out, start = [], 0
    for lo, hi in chars.ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE:
        out.append((start, MAX_CODE))
    return CharSet(tuple(out))


def class_body(chars: CharSet, escape) -> tuple[bool, str]:
    """(negated, items) for a bracket class: whichever of the set and its
    complement has fewer ranges."""
    negated = False
    other = complement(chars)
    if len(other.ranges) < len(chars.ranges):
        chars, negated = other, True
    parts = []
    for lo, hi in chars.ranges:
        if lo == hi:
            parts.append(escape(lo))
        elif hi == lo + 1:
            parts.append(escape(lo) + escape(hi))
        else:
            parts.append(f"{escape(lo)}-{escape(hi)}")
    return negated, "".join(parts)
