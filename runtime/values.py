"""Values: what a closed region becomes.

The content parsers (`text`, `int`, `float`, `bool`, `json` with its
dialect options, `xml-inline`, `kv-lines`), transforms compiled once per
field, tool-argument typing, `Field` and `close_region`. Every template
shares these definitions; the delimiters and the stream driver never look
inside a value. Only the standard library, with `regex` imported on first
use (`regex_module`).
"""

import inspect
import json

_REGEX = None


def regex_module():
    """The `regex` module, imported on first use."""
    global _REGEX
    if _REGEX is None:
        import regex

        _REGEX = regex
    return _REGEX


# Content-parser patterns the compiler proved the standard `re` module runs
# as `regex` does on ASCII text (compiler/regex/same_in_re.py), registered
# by the generated modules' fields; `re` runs them about three times faster.
SAME_IN_RE = set()


# --------------------------------------------------------------------------
# Content parsers: body text of a closed region -> value.
#
# Comments in [brackets] name the entries of compiler/conformance/inventory.json
# whose vectors pin each rule (docs/format.md states them); ports follow the
# inventory, not this code.
# --------------------------------------------------------------------------


def parse_text(text, args):
    # str.strip: Unicode whitespace [content.text.strip, content.text.strip-false,
    # content.text.whitespace-only, content.text.crlf]
    return text.strip() if args.get("strip", True) else text


def parse_int(text, args):
    # Python int(): sign, surrounding whitespace, underscores, Unicode digits,
    # any size [content.int, content.int.strip-false, content.number.underscore,
    # content.number.unicode-digits, content.int.beyond-double, content.int.error]
    return int(parse_text(text, args))


def parse_float(text, args):
    # Python float(): exponents, nan/inf words [content.float, content.float.exponent,
    # content.float.error]
    return float(parse_text(text, args))


def parse_bool(text, args):
    # Never an error [content.bool.true, content.bool.true-any-case, content.bool.one,
    # content.bool.other-false]
    return parse_text(text, args).lower() in ("true", "1")


def parse_json(text, args):
    """json.loads, after the dialect rewrites when the args ask for them
    (runtime/markup.py, registered in REWRITES) [content.json,
    content.json.nan-infinity, content.json.duplicate-keys,
    content.json.unicode-escapes, content.json.beyond-double]."""
    working = text
    if args.get("string_delims") or args.get("unquoted_keys", False):
        working = REWRITES["json"](text, args)
    try:
        return json_loads(working)
    except json.JSONDecodeError as error:
        # The original body, not the rewritten one [content.json.allow_non_json,
        # content.json.allow_non_json.strip-false]
        if args.get("allow_non_json"):
            return parse_text(text, args)
        if working == text:
            raise ValueError(f"json: could not parse region as JSON: {error}. Content: {text!r}") from error
        raise ValueError(
            f"json: could not parse after dialect transforms: {error}. Original: {text!r}; transformed: {working!r}"
        ) from error


CONTENT_PARSERS = {
    "text": parse_text,
    "int": parse_int,
    "float": parse_float,
    "bool": parse_bool,
    "json": parse_json,
}
# runtime/markup.py registers `xml-inline` and `kv-lines` above, json's
# dialect rewrites here, and the parsers prepared from their args here.
REWRITES = {}
PREPARED = {}


def parse_content(text, name, args):
    return CONTENT_PARSERS[name](text, args)


def join_stripped(pieces):
    """`"".join(pieces).strip()` with one copy instead of two: the
    whitespace-only pieces at either end are dropped and the end pieces
    stripped before the join (a region streamed as 20,000 tokens would
    otherwise be copied by the join and again by the strip)."""
    first, last = 0, len(pieces)
    while first < last and (not pieces[first] or pieces[first].isspace()):
        first += 1
    while last > first and (not pieces[last - 1] or pieces[last - 1].isspace()):
        last -= 1
    if last - first < 2:
        return pieces[first].strip() if first < last else ""
    inner = pieces[first + 1 : last - 1]
    return "".join([pieces[first].lstrip(), *inner, pieces[last - 1].rstrip()])


def prepared_parser(name, args):
    """`parse_content(text, name, args)` as a function of the text, its
    `args` read once: a field's parser runs at every close, and on short
    bodies reading the args costs as much as the parse. json without
    rewrites tries json.loads first (`parse_plain_json`); xml-inline
    prepares its value parser (PREPARED); args that are no object are read at the
    close, as the reference reads them."""
    parser = CONTENT_PARSERS[name]
    if type(args) is dict:
        if name == "json" and not args.get("string_delims") and not args.get("unquoted_keys"):
            return lambda text: parse_plain_json(text, args)
        prepare = PREPARED.get(name)
        if prepare is not None:
            return prepare(args)
    return lambda text: parser(text, args)


# --------------------------------------------------------------------------
# Transforms, compiled: placeholders were found at build time.
# --------------------------------------------------------------------------


class Placeholder:
    """A whole-string `"{root.key.key}"` in a transform: looked up in scope.
    Other strings (`"{ x }"`, `"{}"`) stay literals [transform.braces-literal]."""

    __slots__ = ("path", "root", "keys")

    def __init__(self, path):
        self.path = path
        self.root, *keys = path.split(".")
        self.keys = tuple(keys)

    def __repr__(self):
        return f"Placeholder({self.path!r})"

    def resolve(self, scope):
        if self.root not in scope:  # [error.transform.unknown-name]
            raise KeyError(f"transform placeholder '{{{self.path}}}' is not defined. Available: {sorted(scope)}")
        value = scope[self.root]
        for key in self.keys:  # [transform.dotted]
            if not isinstance(value, dict):  # [error.transform.index-non-dict]
                raise ValueError(
                    f"transform placeholder '{{{self.path}}}' cannot index into {type(value).__name__} at '{key}'"
                )
            if key not in value:  # [error.transform.missing-key]
                raise ValueError(
                    f"transform placeholder '{{{self.path}}}' is missing key '{key}'. Available: {sorted(value)}"
                )
            value = value[key]
        return value


def apply_transform(node, scope):
    """Build a transform's value: dicts and lists are rebuilt, placeholders
    looked up (keeping the value's type), other values kept as they are
    [transform.nested, transform.type-kept, transform.scalars-kept, transform.whole-value].
    Fields build theirs with the builder made once (see Field.value_of)."""
    return transform_builder(node)(scope)


def transform_builder(node):
    """A transform walked once: a function of the scope that builds its
    value (in the order of the transform, so the same error comes first)
    without asking each node's type again at every close. The function is
    Python source made from the transform (one dict/list display, the
    placeholders' lookups called in it), compiled once per field; the
    closures below build the same value where that is not possible."""
    source_parts = []
    names = {}
    if _transform_source(node, source_parts, names):
        code = "lambda scope: " + "".join(source_parts)
        try:
            return eval(
                code, {"__builtins__": {}, **names}
            )  # noqa: S307 - source made above from the transform's shape
        except (SyntaxError, RecursionError, MemoryError):
            pass  # nested deeper than Python's parser takes (about 200 brackets)
    return _transform_closures(node)


def _transform_source(node, out, names):
    """Append the Python expression building `node` to `out` (values and
    placeholder lookups bound in `names`); False when the transform is too
    large to emit as one expression."""
    if len(names) > 200 or len(out) > 2000:
        return False
    if isinstance(node, dict):
        out.append("{")
        for key, value in node.items():
            name = f"k{len(names)}"
            names[name] = key
            out.append(f"{name}: ")
            if not _transform_source(value, out, names):
                return False
            out.append(", ")
        out.append("}")
        return True
    if isinstance(node, list):
        out.append("[")
        for value in node:
            if not _transform_source(value, out, names):
                return False
            out.append(", ")
        out.append("]")
        return True
    name = f"v{len(names)}"
    if isinstance(node, Placeholder):
        names[name] = node.resolve
        out.append(f"{name}(scope)")
    else:
        names[name] = node
        out.append(name)
    return True


def _transform_closures(node):
    """`transform_builder` as nested closures."""
    if isinstance(node, dict):
        parts = tuple((key, _transform_closures(value)) for key, value in node.items())
        return lambda scope: {key: build(scope) for key, build in parts}
    if isinstance(node, list):
        parts = tuple(_transform_closures(value) for value in node)
        return lambda scope: [build(scope) for build in parts]
    if isinstance(node, Placeholder):
        return node.resolve
    return lambda scope: node


_SCAN_JSON = json.JSONDecoder().scan_once  # json's own scanner (C), as json.loads runs it
_JSON_SPACE = " \t\n\r"  # json.decoder.WHITESPACE


def json_loads(text):
    """`json.loads(text)` for a str: json's scanner called directly, without
    the two whitespace regex matches around it; anything but a clean value
    with only JSON whitespace around it goes to json.loads itself, for the
    same value or the same error."""
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    try:
        value, end = _SCAN_JSON(text, start)
    except StopIteration:
        return json.loads(text)
    if end == len(text) or not text[end:].strip(_JSON_SPACE):
        return value
    return json.loads(text)


def parse_plain_json(text, args):
    """`parse_json` for a field with no dialect options: json.loads, and
    parse_json's error when that fails."""
    try:
        return json_loads(text)
    except json.JSONDecodeError:
        return parse_json(text, args)


class Field:
    """One field of a template, as the driver needs it."""

    __slots__ = (
        "name",
        "content_args",
        "repeats",
        "join",
        "optional",
        "transform",
        "transform_each",
        "dirty",
        "open",
        "close",
        "parser",
        "build",
        "strips",
        "plain",
        "chunk",
    )

    def __init__(
        self,
        name,
        *,
        content="text",
        content_args=None,
        repeats=False,
        join=None,
        optional=True,
        transform=None,
        transform_each=False,
        open=None,
        close=None,
        same_in_re=(),
    ):
        SAME_IN_RE.update(same_in_re)  # see content_regex
        self.name = name
        self.content_args = {} if content_args is None else content_args
        self.repeats = repeats
        self.join = join
        self.optional = optional
        self.transform = transform
        self.transform_each = transform_each
        # Structured parsers only give a value at close: their chunks are raw.
        self.dirty = content not in ("text", "int", "float", "bool")
        # A chunk event of this region with its text still to set: the
        # common path copies it (a copy of a small dict costs less than
        # building one from a display).
        self.chunk = {"type": "region_chunk", "field": name, "text": "", "dirty": self.dirty}
        self.open = open
        self.close = close
        # The content parser and the transform, prepared once (see value_of).
        self.parser = prepared_parser(content, self.content_args)  # the compiler refuses other names
        self.build = None if transform is None else transform_builder(transform)
        # text content stripped (the default): the body is joined stripped (join_stripped)
        args = self.content_args
        self.strips = content == "text" and type(args) is dict and bool(args.get("strip", True))
        # its value is the body stripped: a string, which tool typing leaves as it is (close_region)
        self.plain = self.strips and transform is None

    def value_of(self, body, captures):
        """Parse a closed region's body and apply the transform."""
        value = self.parser(body)
        if self.transform is None:
            return value
        if not self.transform_each:
            # content wins over a capture of that name [transform.capture,
            # transform.content-shadows-capture]
            return self.build({**captures, "content": value})
        if not isinstance(value, list):  # [error.transform_each.not-list]
            raise ValueError(
                f"Field '{self.name}': transform_each requires the parsed content to be a list, "
                f"got {type(value).__name__}."
            )
        out = []
        for item in value:
            if not isinstance(item, dict):  # [error.transform_each.item-not-dict]
                raise ValueError(
                    f"Field '{self.name}': transform_each requires each list element to be a dict, "
                    f"got {type(item).__name__}."
                )
            # the element's keys win over captures [transform_each, transform_each.item-shadows-capture]
            out.append(self.build({**captures, **item}))
        return out


# --------------------------------------------------------------------------
# Tool-argument typing.
# --------------------------------------------------------------------------


def schema_types(schema):
    """The JSON-schema type names a parameter declares, in order: type (string
    or list), anyOf, oneOf, then null for nullable [typing.schema.type-list,
    typing.schema.anyOf, typing.schema.oneOf, typing.schema.nullable,
    typing.schema.untyped]."""
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(name for name in declared if isinstance(name, str))
    for union in ("anyOf", "oneOf"):
        for choice in schema.get(union) or []:
            types.extend(schema_types(choice))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _cast_one(raw, type_name):
    """Cast `raw` to one JSON-schema type; raise ValueError when it does not fit."""
    if type_name == "integer":  # [typing.integer, typing.integer.fails]
        try:
            return int(raw)
        except ValueError:
            number = float(raw)  # whole numbers written as floats, e.g. "3.0" [typing.integer.whole-float-text]
            if number.is_integer():
                return int(number)
    elif type_name == "number":
        # NaN and infinities fail; an int when whole and written without "."
        # [typing.number.int, typing.number.float, typing.number.fails]
        number = float(raw)
        if number == number and number not in (float("inf"), float("-inf")):
            return int(number) if number.is_integer() and "." not in raw else number
    elif type_name == "boolean":  # [typing.boolean.word, typing.boolean.digit, typing.boolean.fails]
        word = raw.strip().lower()
        if word in ("true", "1", "false", "0"):
            return word in ("true", "1")
    elif type_name == "null":  # case-sensitive [typing.null.null, typing.null.None, typing.null.fails]
        if raw.strip() in ("null", "None"):
            return None
    elif type_name in ("object", "array"):
        # [typing.object, typing.object.fails, typing.array, typing.array.fails]
        decoded = json.loads(raw)
        if isinstance(decoded, dict if type_name == "object" else list):
            return decoded
    raise ValueError(type_name)


def cast_argument(raw, types):
    """The first type that `raw` casts to wins; otherwise `raw` stays a string
    [typing.union, typing.union.later-type-wins, typing.all-fail-stays-string,
    typing.string.fails, typing.unknown-type]."""
    for type_name in types:
        if type_name not in _CASTS:
            continue  # `string` and unknown names keep the text (without raising)
        try:
            return _cast_one(raw, type_name)
        except ValueError:
            continue
    return raw


_CASTS = frozenset({"integer", "number", "boolean", "null", "object", "array"})  # the names _cast_one casts to


def _json_schema_of(function):
    try:
        from transformers.utils import get_json_schema
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise TypeError(
            "tools given as Python functions need `transformers` (for get_json_schema); pass JSON-schema dicts instead"
        ) from error
    return get_json_schema(function)


def tool_parameters(tools):
    """Map tool name -> its JSON-schema `properties` (or {})
    [typing.tools.function-shape, typing.tools.bare-shape, typing.tool-without-properties]."""
    params = {}
    for tool in tools or []:
        if type(tool) is not dict and (inspect.isfunction(tool) or inspect.ismethod(tool)):
            tool = _json_schema_of(tool)
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            params[function["name"]] = properties if isinstance(properties, dict) else {}
    return params


def type_tool_calls(value, params):
    """Cast string arguments of `{"function": {"name", "arguments"}}` values
    (or lists of them) to the types their tool's schema declares, in place:
    any field's value, not only tool_calls [typing.applied, typing.applied-to-list,
    typing.not-a-call-skipped, typing.tool-unknown, typing.argument-not-in-schema,
    typing.non-string-untouched]."""
    if isinstance(value, list):
        return [type_tool_calls(item, params) for item in value]
    function = value.get("function") if isinstance(value, dict) else None
    if not isinstance(function, dict):
        return value
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return value
    properties = params.get(name)
    if properties:
        for key, argument in arguments.items():
            if key not in properties:
                continue
            types = schema_types(properties[key])
            if not types:
                continue
            if isinstance(argument, str):
                arguments[key] = cast_argument(argument, types)
            elif isinstance(argument, list) and "array" not in types:
                # repeated keys collected by xml-inline's merge_duplicates
                # [typing.list-elementwise, typing.array-list-untouched]
                arguments[key] = [cast_argument(item, types) if isinstance(item, str) else item for item in argument]
    return value


PREFIX_REQUIRED = (
    "ResponseParser/parse_response requires `prefix` (the chat prompt sent to the model before "
    "generation): chat templates often pre-write part of the assistant message (e.g. an opening "
    '`<think>`). If the generation already holds the whole message, pass prefix="" to opt out.'
)


def finished_message(output, defaults):
    """The message at finalize: the defaults' keys, and every other key whose value is not empty."""
    return {
        key: value
        for key, value in output.items()
        if key in defaults or not (value is None or (isinstance(value, (list, dict, str)) and not value))
    }


def close_region(field, output, pieces, captures, params):
    """Close `field`'s region with its body pieces (SPEC: closing a region):
    parse, transform, type the tool calls, store into `output` (`join`:
    appended with the separator; `repeats`: listed; else overwritten).
    Returns the value of this one match."""
    body = join_stripped(pieces) if field.strips else "".join(pieces)
    value = body if field.plain else field.value_of(body, captures)  # plain: parse_text's strip is done
    if params and not field.plain:
        value = type_tool_calls(value, params)
    name = field.name
    if field.join is not None:
        if not isinstance(value, str):
            raise ValueError(
                f"Field '{name}': 'join' requires each match to parse to a string, got {type(value).__name__}."
            )
        previous = output.get(name)
        output[name] = value if previous is None else previous + field.join + value
    elif field.repeats:
        output.setdefault(name, []).append(value)
    else:
        output[name] = value
    return value


OPEN, CLOSE = 0, 1
# Immutable values a template's defaults copy as they are (StreamParser.__init__).
_ATOMS = frozenset({str, int, float, bool, type(None)})
