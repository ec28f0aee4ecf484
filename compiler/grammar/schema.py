"""JSON schemas (tool parameters) as grammar nodes, for the formats that
cannot embed a schema (GBNF, EBNF) and for JSON dialects (`string_delims`,
`unquoted_keys`) and raw argument values of xml-inline / kv-lines bodies.

Objects list their properties in schema order: required ones always,
optional ones when present. Keywords a grammar cannot express (numeric
bounds, string patterns and formats, ...) are an error naming their path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..regex.charset import CharSet
from . import model as m

IGNORED = {
    "description", "title", "default", "examples", "$schema", "$comment", "additionalProperties",
    "deprecated", "readOnly", "writeOnly", "strict", "nullable",
}
UNSUPPORTED = {
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "patternProperties", "allOf", "not", "if", "then", "else", "$ref", "$defs",
    "definitions", "dependentRequired", "dependentSchemas", "uniqueItems", "propertyNames", "contains",
    "prefixItems", "minProperties", "maxProperties", "unevaluatedProperties", "unevaluatedItems",
}
KNOWN = {"type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "minItems", "maxItems"}

WS_CHARS = CharSet.chars(" \t\n\r")
WS = m.Rep(m.Chars(WS_CHARS), 0, None)
DIGIT = m.Chars(CharSet.of([(ord("0"), ord("9"))]))
HEX = m.Chars(CharSet.of([(ord("0"), ord("9")), (ord("a"), ord("f")), (ord("A"), ord("F"))]))
INTEGER = m.seq(m.opt(m.Lit("-")), m.alt(m.Lit("0"), m.seq(m.Chars(CharSet.of([(ord("1"), ord("9"))])), m.Rep(DIGIT, 0, None))))
# Numbers stay finite: at most 16 integer digits and a two-digit exponent
# (a parser reading `1E999` gets infinity, which no schema's number is, and
# a value parser casting text keeps it a string).
NUMBER = m.seq(
    m.opt(m.Lit("-")),
    m.alt(m.Lit("0"), m.seq(m.Chars(CharSet.of([(ord("1"), ord("9"))])), m.Rep(DIGIT, 0, 15))),
    m.opt(m.seq(m.Lit("."), m.Rep(DIGIT, 1, None))),
    m.opt(m.seq(m.Chars(CharSet.chars("eE")), m.opt(m.Chars(CharSet.chars("+-"))), m.Rep(DIGIT, 1, 2))),
)
# Escapes as llguidance's JSON writes them (no `\/`; `\u` only for control
# characters), so every format accepts the same strings.
_STRING_CHAR = m.alt(
    m.Chars(CharSet.of([(0x20, 0x21), (0x23, 0x5B), (0x5D, 0x10FFFF)])),
    m.seq(m.Lit("\\"), m.alt(m.Chars(CharSet.chars('"\\bfnrt')), m.seq(m.Lit("u00"), m.Chars(CharSet.chars("01")), HEX))),
)
BARE_KEY = m.Rep(m.Chars(CharSet.of([(ord("0"), ord("9")), (ord("A"), ord("Z")), (ord("_"), ord("_")), (ord("a"), ord("z"))])), 1, None)
STRING = m.seq(m.Lit('"'), m.Rep(_STRING_CHAR, 0, None), m.Lit('"'))


@dataclass(frozen=True)
class Dialect:
    """How the body writes JSON: extra string quotes (pairs of open/close
    markers whose text becomes a string) and bare keys."""

    string_delims: tuple[tuple[str, str], ...] = ()
    unquoted_keys: bool = False


STANDARD = Dialect()


class Expander:
    def __init__(self, grammar: m.Grammar, fmt: str, dialect: Dialect = STANDARD):
        self.grammar = grammar
        self.fmt = fmt
        self.dialect = dialect

    def _error(self, path: str, message: str) -> m.GrammarError:
        return m.GrammarError(path, message)

    # -- strings and keys --------------------------------------------------
    def string(self) -> m.Node:
        options = [STRING]
        for open_, close in self.dialect.string_delims:
            options.append(m.Until((close,), ((close, m.EMPTY),), False, None) if open_ == "" else
                           m.seq(m.Lit(open_), m.Until((close,), ((close, m.EMPTY),), False)))
        return self.grammar.add("json_string" if not self.dialect.string_delims else "json_string_d", m.alt(*options))

    def literal_string(self, text: str) -> m.Node:
        options = [m.Lit(json.dumps(text, ensure_ascii=False))]
        for open_, close in self.dialect.string_delims:
            if close not in text and "\\" not in text and '"' not in text:
                options.append(m.Lit(open_ + text + close))
        return m.alt(*options)

    def key(self, name: str) -> m.Node:
        options = [m.Lit(json.dumps(name, ensure_ascii=False))]
        if self.dialect.unquoted_keys and name.isidentifier():
            options.append(m.Lit(name))
        return m.alt(*options)

    # -- values ------------------------------------------------------------
    def constant(self, value: object) -> m.Node:
        if isinstance(value, str):
            return self.literal_string(value)
        if isinstance(value, dict):
            items = [m.seq(self.key(k), WS, m.Lit(":"), WS, self.constant(v), WS) for k, v in value.items()]
            return m.seq(m.Lit("{"), WS, *_joined(items), m.Lit("}"))
        if isinstance(value, list):
            return m.seq(m.Lit("["), WS, *_joined([m.seq(self.constant(v), WS) for v in value]), m.Lit("]"))
        return m.Lit(json.dumps(value))

    def any_value(self) -> m.Node:
        name = "json_value"
        if name not in self.grammar.rules:
            ref = m.Ref(name)
            self.grammar.rules[name] = m.EMPTY  # placeholder for recursion
            # A bare key (unquoted_keys) is only quoted right after "{" or ","
            # and right before ":": no whitespace around it in that dialect.
            gap = m.EMPTY if self.dialect.unquoted_keys else WS
            key = m.alt(self.string(), BARE_KEY) if self.dialect.unquoted_keys else self.string()
            member = m.seq(key, gap, m.Lit(":"), WS, ref, WS)
            obj = m.seq(m.Lit("{"), gap, m.opt(m.seq(member, m.Rep(m.seq(m.Lit(","), gap, member), 0, None))), m.Lit("}"))
            self.grammar.rules["json_object"] = obj
            item = m.seq(ref, WS)
            arr = m.seq(m.Lit("["), WS, m.opt(m.seq(item, m.Rep(m.seq(m.Lit(","), WS, item), 0, None))), m.Lit("]"))
            self.grammar.rules[name] = m.alt(m.Ref("json_object"), arr, self.string(), NUMBER, m.Lit("true"), m.Lit("false"), m.Lit("null"))
        return m.Ref(name)

    def any_object(self) -> m.Node:
        self.any_value()
        return m.Ref("json_object")

    def value(self, schema: object, path: str) -> m.Node:
        if schema is True or schema == {}:
            return self.any_value()
        if not isinstance(schema, dict):
            raise self._error(path, f"a schema must be an object, not {json.dumps(schema)[:40]}")
        for key in schema:
            if key in UNSUPPORTED:
                raise self._error(f"{path}.{key}", f"the JSON-schema keyword '{key}' cannot be expressed in a {self.fmt} grammar")
            if key not in KNOWN and key not in IGNORED and not key.startswith("x-"):
                raise self._error(f"{path}.{key}", f"unknown JSON-schema keyword '{key}'")
        if "const" in schema:
            return self.constant(schema["const"])
        if "enum" in schema:
            return m.alt(*(self.constant(v) for v in schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = {k: v for k, v in schema.items() if k != key}
                return m.alt(*(self.value({**rest, **sub}, f"{path}.{key}[{i}]") for i, sub in enumerate(schema[key])))
        kind = schema.get("type")
        if isinstance(kind, list):
            return m.alt(*(self.value({**schema, "type": k}, path) for k in kind))
        if kind is None:
            if "properties" in schema:
                kind = "object"
            elif "items" in schema:
                kind = "array"
            else:
                return self.any_value()
        if kind == "string":
            return self.string()
        if kind == "integer":
            return INTEGER
        if kind == "number":
            return NUMBER
        if kind == "boolean":
            return m.alt(m.Lit("true"), m.Lit("false"))
        if kind == "null":
            return m.Lit("null")
        if kind == "object":
            return self.object(schema, path)
        if kind == "array":
            return self.array(schema, path)
        raise self._error(f"{path}.type", f"unknown JSON type {kind!r}")

    def object(self, schema: dict, path: str) -> m.Node:
        props = schema.get("properties") or {}
        if not props and schema.get("additionalProperties", True) not in (False, None):
            return self.any_object()
        required = [k for k in props if k in set(schema.get("required") or [])]
        missing = [k for k in schema.get("required") or [] if k not in props]
        if missing:
            raise self._error(f"{path}.required", f"required keys without a schema: {missing}")
        # Each member eats the whitespace after it and separators are "," then
        # whitespace: what follows a member ("," or "}") never shares a prefix
        # with it, which keeps lexing engines (llguidance) deterministic.
        # A bare key is only quoted by the parser right after "{" or "," and
        # right before ":": no whitespace around keys in that dialect.
        gap = m.EMPTY if self.dialect.unquoted_keys else WS
        members = {k: m.seq(self.key(k), gap, m.Lit(":"), WS, self.value(v, f"{path}.properties.{k}"), WS) for k, v in props.items()}
        body = members_in_order(self.grammar, list(props), required, members, m.seq(m.Lit(","), gap))
        return m.seq(m.Lit("{"), gap, body, m.Lit("}"))

    def array(self, schema: dict, path: str) -> m.Node:
        item = self.value(schema.get("items", {}), f"{path}.items")
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        return m.seq(m.Lit("["), WS, repeated(m.seq(item, WS), m.seq(m.Lit(","), WS), low, high), m.Lit("]"))


def _joined(items: list[m.Node]) -> list[m.Node]:
    out: list[m.Node] = []
    for i, item in enumerate(items):
        if i:
            out.append(m.seq(m.Lit(","), WS))
        out.append(item)
    return out


def repeated(item: m.Node, sep: m.Node, low: int, high: int | None) -> m.Node:
    """`low..high` items separated by `sep`."""
    if high == 0:
        return m.EMPTY
    rest = m.Rep(m.seq(sep, item), max(low - 1, 0), None if high is None else high - 1)
    body = m.seq(item, rest)
    return body if low >= 1 else m.opt(body)


def members_in_order(
    grammar: m.Grammar, order: list[str], required: list[str], members: dict[str, m.Node], sep: m.Node
) -> m.Node:
    """Members in `order`: required ones always, optional ones when present
    (an optional one may also start the list when nothing required precedes it).
    Tails shared by several choices become rules, so the size stays linear."""
    memo: dict[tuple[int, bool], m.Node] = {}

    def from_index(i: int, first: bool) -> m.Node:
        if i == len(order):
            return m.EMPTY
        if (i, first) in memo:
            return memo[(i, first)]
        key = order[i]
        here = members[key] if first else m.seq(sep, members[key])
        if key in required:
            node = m.seq(here, from_index(i + 1, False))
        else:
            node = m.alt(m.seq(here, from_index(i + 1, False)), from_index(i + 1, first))
        if key not in required and i + 1 < len(order):
            node = grammar.add("members", node)
        memo[(i, first)] = node
        return node

    return from_index(0, True)


# Most properties whose every order is written with each key once (one rule
# per set of keys already written: 2**n rules).
ANY_ORDER_LIMIT = 8


def members_any_order(
    grammar: m.Grammar,
    order: list[str],
    required: list[str],
    members: dict[str, m.Node],
    sep: m.Node,
    repeats_harmless: bool = False,
) -> m.Node:
    """Members in any order, each at most once, the required ones all
    present: one rule per set of keys already written. More than
    ANY_ORDER_LIMIT members: any order with keys allowed again where a
    repeated key is harmless (`repeats_harmless`: the parser keeps its last
    value), tracking only the required ones written; else schema order."""
    if len(order) < 2:
        return members_in_order(grammar, order, required, members, sep)
    if len(order) > ANY_ORDER_LIMIT:
        needed = [k for k in order if k in required]
        if repeats_harmless and len(needed) <= ANY_ORDER_LIMIT:
            return _members_required_sets(grammar, order, needed, members, sep)
        return members_in_order(grammar, order, required, members, sep)
    index = {k: i for i, k in enumerate(order)}
    need = sum(1 << index[k] for k in required)
    full = (1 << len(order)) - 1
    names: dict[int, m.Ref] = {}

    def state(done: int) -> m.Node:
        if done == full:
            return m.EMPTY
        if done in names:
            return names[done]
        # The separator is written with each member (one lexeme with its
        # first literal, as members_in_order does, for greedy lexers).
        node = m.alt(*(m.seq(m.EMPTY if done == 0 else sep, members[k], state(done | 1 << i))
                       for i, k in enumerate(order) if not done >> i & 1))
        if done & need == need:
            node = m.alt(node, m.EMPTY)  # what ends a loop comes last (grammar_engine.walk finishes on it)
        ref = grammar.add(f"any_order_{done:x}", node)
        names[done] = ref
        return ref

    return state(0)


def _members_required_sets(
    grammar: m.Grammar, order: list[str], needed: list[str], members: dict[str, m.Node], sep: m.Node
) -> m.Node:
    """Members in any order, any of them again, until every needed one is
    written: one rule per set of needed keys written, each a run of members
    that write no new needed key, then one that does (or the end). No rule
    refers back to itself, so witnesses and walks stay finite."""
    bit = {k: 1 << i for i, k in enumerate(needed)}
    full = (1 << len(needed)) - 1
    names: dict[int, m.Ref] = {}

    def new(done: int, k: str) -> bool:
        return k in bit and not done & bit[k]

    def state(done: int) -> m.Ref:
        """After the first member, `done` needed keys written."""
        if done in names:
            return names[done]
        again = [m.seq(sep, members[k]) for k in order if not new(done, k)]
        ahead = [m.seq(sep, members[k], state(done | bit[k])) for k in order if new(done, k)]
        if done == full:
            ahead.append(m.EMPTY)  # what ends a loop comes last (grammar_engine.walk finishes on it)
        names[done] = grammar.add(f"any_keys_{done:x}", m.seq(m.Rep(m.alt(*again), 0, None), m.alt(*ahead)))
        return names[done]

    first = [m.seq(members[k], state(bit.get(k, 0))) for k in order]
    return m.alt(*first, m.EMPTY) if not needed else m.alt(*first)
