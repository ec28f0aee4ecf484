"""The runtime every generated Python parser runs on.

A generated parser is data (its fields, delimiters and per-state watch sets)
plus this driver. The behaviour reproduces the reference interpreter,
`transformers.utils.chat_parsing` 5.23.0, exactly: same events, same
message, same exception class at the same call.

This module needs only the standard library; the `regex` module is imported
the first time something needs it (a regex delimiter, `xml-inline`, or a json
dialect option), so a template without regexes runs without it. It imports
nothing else from this package, so `--vendor` can inline it into one file.

How a token is processed (the speed design)
-------------------------------------------
The compiler's analysis (compiler/passes/fast_path.py) gives every delimiter its
trigger strings and lead classes: every match is lead characters (the `\\s`
of `\\s*<tool_call>`) then one of the trigger strings. Per parser state the
watched delimiters become one `Scanner`, built once per parser class, which
works like a lexer over the text not yet consumed (the tail):

1. Common path (`feed`). While nothing is held and the region is open, a
   token is looked up in the state's table of plain tokens (tokens met
   before that hold no trigger character and do not end in a lead): one
   dict lookup, then the chunk event. A token not in the table is
   classified once (`_feed_new_token`: first characters of the triggers,
   last character against the leads) and remembered (the tables are
   bounded; a tokenizer's vocabulary is finite). The buffer is not touched:
   the routed tokens are in the region's body anyway, and `_materialize`
   rebuilds the few characters of context regex delimiters read behind the
   read position only when the general step needs the buffer, joining the
   routed tokens into one body piece (the region's value joins that). The
   parser keeps its state in slots: it has more attributes than CPython's
   shared-key instance dicts hold, and the common path reads three.
2. Held lead runs. A token ending in lead characters of the state's hold
   lead routes what comes before the run and holds the run (a partial match
   of the lead-led delimiter starts there and nowhere earlier); more lead
   tokens extend the held pieces without any search; a plain token
   releases them. The run start of such tokens is remembered too.
3. The hold-back question. A token with a trigger character goes to the
   scanner with the held text: `Scanner.hold` reads the tail once per
   trigger string and its last `longest - 1` characters, and answers from
   the trigger prefixes (a partial match of every delimiter owning that
   prefix, started at the prefix or at the delimiter's lead run before it)
   or the trailing lead run, without running any delimiter; answers for
   short tails are remembered. Held text is bounded by the longest trigger
   plus a lead run, so each character is examined a bounded number of times
   (tests/runtime/test_linear_time.py counts it per stream shape). A token with a
   trigger character met before on the common path with nothing held is
   answered from the scanner's table of them (`trigger_holds`: routed whole,
   held whole, or split), and the token after a held prefix that is no lead
   run (a lone `<`) is answered for both by `_feed_held`, as the general
   step's stale branch would, without its other checks. An alternative
   that starts with `^` or `\\A` matches only where the text starts: its
   prefixes (granite's `H`, `Here i`) go to the search only until
   anything is consumed; from then on the state asks a scanner built
   without it (`Scanner.later`), to which they are plain tokens.
4. General step (`_process`, SPEC steps 1-5). When the tail holds a whole
   trigger string (or a prefix only an inexact delimiter owns), the
   delimiters are searched from the read position: literals with str.find
   (memoised), simple patterns (leads then literals, no groups) with
   str.find, other patterns with the `regex` module only where a trigger
   string lets a match start. A pattern's several trigger strings are
   found with str.find, each one only up to the first found so far; over a
   long text (whole-text parsing, more than LONG_TEXT characters), strings
   with a common start of two characters or more are found in one pass of
   their alternation (`Pattern.finder`), other strings each remember
   where they occur next for the rest of the search, and the scanner is
   skipped (the search reads the text once anyway). A pattern whose
   look-behind alternatives the buffer settles searches with a smaller
   pattern without them (`Settled`), so the `regex` module does not walk
   them back to the start at every position it tries. The answer
   of a scan for a short tail is a
   function of the state, the tail with the context the state's own
   delimiters read behind it (SCAN_CONTEXT, which may be less than the
   template's CONTEXT), whether it starts the
   text, and end of stream, so it is remembered per parser class: streams of
   many small tool calls repeat the same few tails at every call.
   Remembered steps (`_step`). A whole general step, from a just-trimmed
   buffer (the unconsumed text and the context behind it) to the next
   hold, is a function of the state, whether the region has text, whether
   the buffer starts the text, the read position and the buffer: it is
   recorded once per parser class as what it did (route this text, open
   field i with these captures, close) and the state `_note_held` left
   after it (the buffer trimmed to its context, the read position, the
   held text, the common path opened or not), and replayed from then on
   without asking the scanner, searching or deciding the hold again. This is
   what makes many small calls cheap: each call is the same few steps (an
   open with its body's first piece, `}` then `\n`, the close after them),
   so a call costs the replay and the region's value, not a search per
   token. A remembered step also remembers the steps that followed it
   (its chain: the next text, to the next remembered step): while the
   parser stays in the state the step left, the next general token is one
   lookup of that text, with neither the buffer joined nor the key built
   (`_feed_general`). Buffers with more than STEP_LIMIT unconsumed characters take the
   step unremembered, and so do templates with unbounded look-behinds
   (CONTEXT -1) while their buffer, all of the text, is longer than that.
   Such a template's buffer is a bounded key again where the compiler
   proves how far back each look-behind can read (`ContextCut`, from
   compiler/passes/lookbehind_reach.py): a tempered look-behind
   `(?<=<|tools_prefix|>(?:(?!<|tools_suffix|>).)*\\})` cannot walk back
   across a whole `<|tools_suffix|>` (its barrier), so each general step
   first drops the text before the last barrier (less the few characters
   the look-behind's head may still read; `_cut_context`), and a call's
   steps see the same short buffer at every call. The cut is itself a
   function of the buffer, the read position and the cut's bookkeeping
   (where the last barrier, head or counted character was seen, relative
   to the buffer; numbered once per parser class, `_cut_state_id`), so a step on
   a short buffer takes its cut with it and a replay replays the cut too. The text before the
   first `<|tools_prefix|>` after that barrier goes too (the look-behind
   finds no head in it: it answers as the text's start would), which keeps
   content with `}` or `)` from being read back to the start at every line. An anchored look-behind
   (`(?<=^\\s*\\[.*\\))`) that can no longer match, because the text does
   not start with its head, is kept dead across the cut by a sentinel first
   character on which its head fails as on the real start; while the head
   matches, the text is kept whole. A look-behind whose unbounded runs
   cannot match some literal character of it (glm47's `<` in
   `(?<=(?:</arg_value>|<tool_call>\\s*[^\\s<]+)\\s*</tool_call>)`) matches
   at most so many of that character (two), so the text before the
   third-last one before the read position goes (`counted`, found from the
   right in new text only). A state without a scanner takes its steps
   unremembered but those that open or close on a buffer still shorter than
   LAZY_CUT, and its buffer is cut only once longer than that: a cut at
   every token would cost more than the short searches it saves.
5. Transitions. Opening and closing a region (content parsers, transforms,
   tool typing) run the single definitions below (`parse_*`, `Placeholder`,
   `type_tool_calls`), shared with every template, specialised once per
   field where that pays: a field's content parser reads its arguments
   once (`prepared_parser`: xml-inline's value parser prepared with it), a
   transform is compiled once into one Python
   expression building its value (`transform_builder`), json without dialect
   options tries `json.loads` first, through json's own scanner without the
   whitespace regexes around it (`json_loads`), the dialects' string
   delimiters, and on ASCII bodies the unquoted keys and the `xml-inline`
   tag patterns the compiler proved the same in both modules (no case
   folding, no empty match; `content_regex`, not on U+001C..U+001F, where
   their `\\s` differ), run in the standard `re` module, which finds the
   same matches as `regex` there, faster; the regexes content parsers build from their
   arguments are compiled once per process (`compiled_regex`). Right after
   a transition the new state's scanner answers for the rest of the buffer
   (`_settle`), so a call body that arrives with its open is routed without
   a search.

Whole texts. `parse_response` hands a text longer than SETTLE_LIMIT to the
general step directly: the common path's table lookup would hash all of it
(as long as a search), and a long chunk is never kept in a scanner's table
of plain tokens (LEARN_LIMIT), which would otherwise keep every output a
server parses. The text is read about once per state it passes through:
over a rest longer than LONG_TEXT each state first finds where the first
of all its delimiters' trigger strings starts (`Horizon`: one pass per
group of strings with a common first character, or a str.find of the rare
character a group holds, `Anchor`; memoised per parser), the
delimiters search from there, and literals only up to the start of a
pattern's match found before them. A text that starts in a state whose
delimiters read nothing behind the read position (BLIND, from the
compiler) becomes the buffer as it is, without the prefix's context before
it (`_feed_whole`): at 128k tokens that is a 1.9 MB copy fewer, and a copy
of that size costs more than the searches. The text is searched once, by
finalize, as the end of the stream: no step searches it first for what
more text could complete. A long region that closes right
after its body is routed without the whitespace its close strips
(`_route_closing`), so its value is that one slice, not a strip of it (no
event of parse_response reaches anyone).

Alternatives. Where the whole-pattern analysis gives up (a look-behind, a
look-ahead or an anchor where an alternative starts: `</think>|(?=\\s*<tool_call>)`,
`(?<=\\})\\s*</tool_call>`), the Python backend reads each alternative on its
own (compiler/passes/branches.py) and gives the pattern its trigger strings
and one prefix rule per alternative (`Pattern.branches`, `prefix_rules`):
an exact alternative holds a trigger prefix (or the run of its lead before
it) as a partial match; an inexact one sends the tail to the general search.
Templates whose look-behinds are unbounded keep all of the text (CONTEXT
-1) since the last cut (see `_step` above): on the common path the routed
tokens join the buffer only when the general step needs it (`_materialize`),
and the buffer grows in place (`_grow`) rather than being copied at every
token.

Look-behind alternatives. An alternative that starts with a look-behind and
gives no trigger string after it (glm47's `(?<=...\\s*</tool_call>)`,
`(?<=</function>)\\s*\\Z`, `(?<=\\})(?=[ \\t]*\\n\\s*[^\\s,}\\]])`) is read by its
look-behind instead: the regex module reads the character before the match
first, so each of its matches and partial matches starts right after a last
character of the look-behind's body (`Pattern.behind`, from the compiler).
Such a pattern is searched with the regex over the text; the scanner takes
those characters as one-character trigger strings and answers only when the
character before the tail is none of them (`_behind_clear`), so argument
text streams on the common path.

Look-behinds from inside which the `regex` module reports partial matches
that end in no trigger string (one holding `^`, or a `\\s*` that gives
characters back by searching for the literal left of it, both in
llama4_pythonic's open `(?<=^\\s*\\[.*\\))\\s*,|(?<=<|python_start|>\\s*\\[...\\))\\s*,`)
are read both ways: their branch's trigger strings, and their last
characters as `behind` (every such partial match starts right after a `)`).

States without a scanner (a delimiter no analysis can bound: lazy repeats,
a trigger of several characters that starts with a lead character) always
take the general step. A one-character trigger that is a lead character (the
newline of `[ \\t]*\\n`) is allowed: text holding it always takes the search
and is never a held lead run (`Scanner.lead_triggers`).
"""

import inspect
import json
import re
import unicodedata
from copy import deepcopy
from json.encoder import encode_basestring_ascii

_REGEX = None


def regex_module():
    """The `regex` module, imported on first use."""
    global _REGEX
    if _REGEX is None:
        import regex

        _REGEX = regex
    return _REGEX


_COMPILED = {}


def compiled_regex(pattern, dotall=False):
    """`regex.compile(pattern)` (with DOTALL when asked), kept per process:
    content parsers run at every close, and the `regex` module's own cache
    lookup costs more than the short bodies they parse."""
    key = (pattern, dotall)
    compiled = _COMPILED.get(key)
    if compiled is None:
        rx = regex_module()
        compiled = rx.compile(pattern, rx.DOTALL) if dotall else rx.compile(pattern)
        if len(_COMPILED) < 4096:
            _COMPILED[key] = compiled
    return compiled


# Content-parser patterns the compiler proved the standard `re` module runs
# as `regex` does on ASCII text (compiler/regex/same_in_re.py), registered
# by the generated modules' fields; `re` runs them about three times faster.
SAME_IN_RE = set()
# The only ASCII characters whose `\s` differs between the two modules.
_RE_SPACE_DIFFERS = re.compile("[\x1c-\x1f]")


def content_regex(pattern, text):
    """The compiled `pattern` (DOTALL) to run over `text`: the `re` module's
    when the pattern is registered and the text is ASCII without
    U+001C..U+001F, else the `regex` module's."""
    if pattern in SAME_IN_RE and text.isascii() and _RE_SPACE_DIFFERS.search(text) is None:
        key = ("re", pattern)
        compiled = _COMPILED.get(key)
        if compiled is None:
            compiled = re.compile(pattern, re.DOTALL)
            if len(_COMPILED) < 4096:
                _COMPILED[key] = compiled
        return compiled
    return compiled_regex(pattern, dotall=True)


def string_delim_regex(open_delim, close_delim):
    """A json `string_delims` pair as one regex: open, the shortest text, close.
    Literals around a lazy dot: the standard `re` module finds the same
    matches as `regex` (empty ones too), and faster."""
    key = ("string_delims", open_delim, close_delim)
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = re.compile(re.escape(open_delim) + r"(.*?)" + re.escape(close_delim), re.DOTALL)
        if len(_COMPILED) < 4096:
            _COMPILED[key] = compiled
    return compiled


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


# Sentinels standing in for custom-delimited strings while the JSON is fixed
# up; a body that already holds them cannot be parsed safely.
_SENTINEL_OPEN, _SENTINEL_CLOSE = "\x01", "\x02"


_UNQUOTED_KEY = re.compile(r"(?<=[{,])(\w+):")


def _quoted_key(match):
    return '"' + match.group(1) + '":'


def parse_json(text, args):
    """json.loads after the dialect rewrites, in the reference's order:
    string_delims to sentinels, unquoted_keys, sentinels to JSON strings
    [content.json, content.json.nan-infinity, content.json.duplicate-keys,
    content.json.unicode-escapes, content.json.beyond-double]."""
    string_delims = args.get("string_delims", [])
    # Checked before anything else, so allow_non_json does not apply [error.feed.json-sentinel]
    if string_delims and (_SENTINEL_OPEN in text or _SENTINEL_CLOSE in text):
        raise ValueError("json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.")
    working = text
    strings = []
    if string_delims:

        def stash(match):
            strings.append(match.group(1))
            return f"{_SENTINEL_OPEN}{len(strings) - 1}{_SENTINEL_CLOSE}"

        # Pair by pair, non-greedy, across newlines [content.json.string_delims.parsed,
        # content.json.string_delims.several]
        for open_delim, close_delim in string_delims:
            working = string_delim_regex(open_delim, close_delim).sub(stash, working)
    # Only a \w+ key right after "{" or "," [content.json.unquoted_keys.quoted]
    if args.get("unquoted_keys", False):
        if working.isascii():  # ASCII \w is the same in `re`, which runs it faster
            working = _UNQUOTED_KEY.sub(_quoted_key, working)
        else:
            working = compiled_regex(r"(?<=[{,])(\w+):").sub(r'"\1":', working)
    for index, value in enumerate(strings):
        # json.dumps of a str with its defaults is exactly this
        working = working.replace(f"{_SENTINEL_OPEN}{index}{_SENTINEL_CLOSE}", encode_basestring_ascii(value))
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


def _parse_value(raw, value_parser):
    # name defaults to text [content.value_parser, content.value_parser.default-text]
    if value_parser is None:
        return raw
    return parse_content(raw, value_parser.get("name", "text"), value_parser.get("args", {}))


def parse_xml_inline(text, args):
    return xml_inline_parser(args)(text)


def xml_inline_parser(args):
    """`parse_xml_inline` with its `args` read once: a function of the text
    (a field's parser runs at every close, see prepared_parser)."""
    tag_pattern = args.get("tag_pattern")
    value_parser = args.get("value_parser")
    merge = args.get("merge_duplicates", False)
    parse_value = None
    if value_parser is not None:
        parse_value = _value_parser(value_parser)

    def parse(text):
        if tag_pattern is None:  # at the close, not at load [error.feed.xml-no-tag-pattern]
            raise ValueError("xml-inline: 'tag_pattern' content_arg is required")
        out = {}
        for match in content_regex(tag_pattern, text).finditer(text):
            groups = match.groupdict()
            key = groups.get("key")
            if key is None:  # absent or not taking part [error.feed.xml-no-key-group]
                raise ValueError(f"xml-inline: tag_pattern must have a named group 'key'. Pattern: {tag_pattern}")
            # No value group: ""; one that did not take part: None, which a value
            # parser cannot strip [content.xml-inline.value-missing,
            # error.feed.xml-value-group-unmatched-parsed]
            value = groups.get("value", "")
            if parse_value is not None:
                value = parse_value(value)
            # [content.xml-inline.merge_duplicates, content.xml-inline.duplicates-last-wins]
            if merge and key in out:
                if not isinstance(out[key], list):
                    out[key] = [out[key]]
                out[key].append(value)
            else:
                out[key] = value
        return out

    return parse


def _value_parser(value_parser):
    """`_parse_value(raw, value_parser)` as a function of `raw`, prepared
    once where the value parser is well formed (its errors, as the
    reference's, come at the close: a malformed one is read there)."""
    if type(value_parser) is dict:
        name = value_parser.get("name", "text")
        args = value_parser.get("args", {})
        if type(name) is str and name in CONTENT_PARSERS and type(args) is dict:
            return prepared_parser(name, args)
    return lambda raw: _parse_value(raw, value_parser)


def parse_kv_lines(text, args):
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    value_parser = args.get("value_parser")
    out = {}
    for line in text.split(line_sep):  # [content.kv-lines.line_sep]
        line = parse_text(line, args)
        if not line or kv_sep not in line:  # [content.kv-lines.line-skipped]
            continue
        # At the first separator; later keys overwrite [content.kv-lines.first-separator,
        # content.kv-lines.kv_sep, content.kv-lines.strip-false, content.kv-lines.duplicates-last-wins]
        key, value = line.split(kv_sep, 1)
        out[parse_text(key, args)] = _parse_value(parse_text(value, args), value_parser)
    return out


CONTENT_PARSERS = {
    "text": parse_text,
    "int": parse_int,
    "float": parse_float,
    "bool": parse_bool,
    "json": parse_json,
    "xml-inline": parse_xml_inline,
    "kv-lines": parse_kv_lines,
}


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
    prepares its value parser; args that are no object are read at the
    close, as the reference reads them."""
    parser = CONTENT_PARSERS[name]
    if type(args) is dict:
        if name == "json" and not args.get("string_delims") and not args.get("unquoted_keys"):
            return lambda text: parse_plain_json(text, args)
        if name == "xml-inline":
            return xml_inline_parser(args)
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
        try:
            return _cast_one(raw, type_name)
        except ValueError:
            continue
    return raw


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


def close_region(field, output, pieces, captures, params):
    """Close `field`'s region with its body pieces (SPEC: closing a region):
    parse, transform, type the tool calls, store into `output` (`join`:
    appended with the separator; `repeats`: listed; else overwritten).
    Returns the value of this one match."""
    value = field.value_of(join_stripped(pieces) if field.strips else "".join(pieces), captures)
    if params:
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


# --------------------------------------------------------------------------
# Delimiters: where the next open/close is, and whether it may still change.
# --------------------------------------------------------------------------


def tail_prefix_start(buf, low, firsts, prefixes):
    """Leftmost position from `low` where `buf` ends in one of `prefixes`
    (whose first characters are `firsts`), or -1: only the positions holding
    a first character are tried, found with str.find."""
    best = -1
    for first in firsts:
        at = buf.find(first, low)
        while at >= 0 and (best < 0 or at < best):
            if buf[at:] in prefixes:
                best = at
                break
            at = buf.find(first, at + 1)
    return best


LONG_TEXT = 4096  # from this many characters on, several trigger strings are searched in one pass


def literal_alternation(strings):
    """One `re` pass over a text for several literal strings (at one
    position the first listed wins)."""
    return re.compile("|".join(map(re.escape, strings)))


class Literals:
    """A delimiter given as one literal or a list of literals.

    It is found with str.find (memoised per parser, so no text is searched
    twice) and its partial matches with a table of the literals' prefixes:
    the same answers as the reference's `regex` partial search on the
    alternation `lit1|lit2|...` (longest first), which prefers a complete
    match anywhere over a partial one at the end of the buffer.
    """

    __slots__ = ("literals", "grows_at_edge", "firsts", "prefixes", "longest")

    behind = ""  # see Pattern.behind

    def __init__(self, literals, *, grows_at_edge):
        # Longest first: at one position the longest literal wins.
        self.literals = tuple(sorted(literals, key=len, reverse=True))
        # True when a complete match that ends at the buffer edge may still
        # grow (a literal extends another, or the source was a regex).
        self.grows_at_edge = grows_at_edge
        self.firsts = frozenset(literal[0] for literal in self.literals)
        self.prefixes = frozenset(lit[:i] for lit in self.literals for i in range(1, len(lit)))
        self.longest = len(self.literals[0])

    def __repr__(self):
        return f"Literals({list(self.literals)!r}, grows_at_edge={self.grows_at_edge})"

    def find(self, buf, pos, base, memo, skip=0, stop=-1):
        """Leftmost complete match at or after `pos` (longest on ties): (start, end) or None.

        `memo` maps literal -> (absolute start or -1, absolute end searched to).
        No literal starts before `skip` (see Horizon); with `stop` >= 0, one
        starting after `stop` is not looked for (and may come back as None).
        """
        best_start = -1
        best_end = -1
        size = len(buf)
        for literal in self.literals:
            end = size if stop < 0 else min(size, stop + len(literal))
            end_abs = base + end
            cached = memo.get(literal)
            pos_abs = base + pos
            if cached is not None and cached[0] >= pos_abs:
                found = cached[0] - base
            else:
                start = pos if pos > skip else skip
                if cached is not None and cached[0] < 0:
                    start = max(start, cached[1] - len(literal) + 1 - base)
                found = buf.find(literal, start, end)
                memo[literal] = (found + base if found >= 0 else -1, end_abs)
            if found >= 0 and (best_start < 0 or found < best_start):
                best_start, best_end = found, found + len(literal)
        if best_start < 0:
            return None
        return best_start, best_end

    def partial_start(self, buf, pos):
        """Leftmost start of a proper prefix of a literal running to the end, or -1."""
        low = len(buf) - self.longest + 1
        return tail_prefix_start(buf, pos if pos > low else low, self.firsts, self.prefixes)


class PartialMatch:
    """A partial match found without running the regex (see Pattern.search)."""

    __slots__ = ("_start", "_end")
    partial = True

    def __init__(self, start, end):
        self._start, self._end = start, end

    def span(self):
        return self._start, self._end

    def start(self):
        return self._start

    def end(self):
        return self._end

    def groupdict(self):
        return {}


class CompleteMatch(PartialMatch):
    """A complete match of a simple pattern, found with str.find."""

    __slots__ = ()
    partial = False


class Pattern:
    """A delimiter given as a regex, matched by the `regex` module with the
    reference's partial-matching semantics.

    With `triggers` (from the compiler's analysis: every match is lead
    characters then one of the trigger strings; a partial match may end in
    a prefix of one, or be lead characters only), the regex runs only where
    a match can start, found with str.find, instead of over all the text.
    """

    __slots__ = (
        "pattern",
        "compiled",
        "group_names",
        "triggers",
        "leads",
        "first_lead",
        "exact",
        "prefixes",
        "prefix_firsts",
        "longest",
        "simple",
        "branches",
        "behind",
        "finder",
        "settled",
        "at_start",
    )

    grows_at_edge = True
    literals = None

    def __init__(
        self,
        pattern,
        triggers=None,
        leads=(),
        first_lead=None,
        exact=False,
        simple=False,
        branches=None,
        behind="",
        settled=None,
        at_start=(),
    ):
        self.pattern = pattern
        # Smaller patterns for when the buffer settles the look-behind
        # branches (see Settled); None for most patterns.
        self.settled = settled
        # Alternatives read by their look-behind: each of their matches and
        # partial matches starts right after one of these characters.
        self.behind = behind
        # Per alternative: (trigger strings, exact, lead or None), for the
        # Scanner's prefix rules (compiler/passes/branches.py); None: the
        # whole pattern is one rule.
        self.branches = branches
        # The branches (indices) that start with `^` or `\\A`: they match
        # only where the text starts (see Scanner.later).
        self.at_start = tuple(at_start)
        rx = regex_module()
        self.compiled = rx.compile(pattern, rx.DOTALL)
        self.group_names = tuple(self.compiled.groupindex)
        self.triggers = None if triggers is None else tuple(triggers)
        self.leads = Leads(leads)
        # The pattern starts with an unbounded repeat of this class: of a run
        # of its characters, only the first position needs trying.
        self.first_lead = first_lead
        # Nothing but leads comes before the trigger strings (no look-around):
        # leads then a proper prefix of a trigger is certainly a partial match.
        self.exact = exact and (not self.leads or self.leads.classes == (first_lead,))
        self.prefixes = frozenset(t[:i] for t in self.triggers or () for i in range(1, len(t)))
        self.prefix_firsts = "".join(sorted({prefix[0] for prefix in self.prefixes}))
        self.longest = max(map(len, self.triggers or ("",)))
        # Leads then one of the triggers and nothing else: matched with str.find.
        self.simple = simple and self.exact
        # Several trigger strings with a common start of two characters or
        # more (`<|im_end|>`, `<|endoftext|>`) over a long text: one pass of
        # their alternation, which `re` runs by that start (in order: at one
        # position the first string wins, as in the loops below), instead of
        # one str.find per string.
        self.finder = None
        if self.triggers is not None and len(self.triggers) > 1:
            common = self.triggers[0]
            for trigger in self.triggers:
                while not trigger.startswith(common):
                    common = common[:-1]
            if len(common) > 1:
                self.finder = literal_alternation(self.triggers)

    def __repr__(self):
        return f"Pattern({self.pattern!r})"

    def _search_simple(self, buf, pos, partial, skip):
        """`search` for a simple pattern: the leftmost trigger string, from
        the run of leads before it; else a trigger prefix or a lead run at
        the end (a partial match)."""
        found_at = -1
        found_end = 0
        start = pos if pos > skip else skip
        if self.finder is not None and len(buf) - start > LONG_TEXT:
            found = self.finder.search(buf, start)
            if found is not None:
                found_at, found_end = found.span()
        else:
            for trigger in self.triggers:
                # once one is found, only an earlier start can win
                found = (
                    buf.find(trigger, start) if found_at < 0 else buf.find(trigger, start, found_at - 1 + len(trigger))
                )
                if found >= 0:
                    found_at, found_end = found, found + len(trigger)
        leads = self.leads
        if found_at >= 0:
            return CompleteMatch(leads.run_start(buf, found_at, pos) if leads else found_at, found_end)
        if not partial:
            return None
        size = len(buf)
        tail_at = self._tail_trigger(buf, pos)
        if tail_at < 0:
            tail_at = size
        start = leads.run_start(buf, tail_at, pos) if leads else tail_at
        return PartialMatch(start, size) if start < size else None

    def _starts(self, buf, run_start, run_end):
        """Positions in [run_start, run_end] where a match may start."""
        first_lead = self.first_lead
        if first_lead is not None and (run_start == run_end or first_lead.holds(buf[run_start:run_end])):
            return (run_start,)
        return range(run_start, run_end + 1)

    def _next_trigger(self, buf, start, ahead=None):
        """Leftmost trigger string at or after `start`, or -1. Over a long
        text, `ahead` (a list kept by the caller for one search) remembers
        where each string occurs next, or up to where it does not occur,
        so each string is read about once per search: one that occurs
        rarely is not searched again to the end after every occurrence of
        another, and each is searched only up to the best start so far."""
        if self.finder is not None and len(buf) - start > LONG_TEXT:
            found = self.finder.search(buf, start)
            return -1 if found is None else found.start()
        if ahead is not None:
            # ahead[2i]: where string i occurs next (-1: not known);
            # ahead[2i + 1]: it does not start before there.
            best = -1
            index = 0
            for trigger in self.triggers:
                found = ahead[index]
                if found < start:
                    clear = ahead[index + 1]
                    begin = start if start > clear else clear
                    end = len(buf) if best < 0 else best - 1 + len(trigger)  # only an earlier start can win
                    found = buf.find(trigger, begin, end)
                    ahead[index] = found
                    if found < 0 and end - len(trigger) + 1 > clear:
                        ahead[index + 1] = end - len(trigger) + 1
                if found >= 0 and (best < 0 or found < best):
                    best = found
                index += 2
            return best
        found_at = -1
        for trigger in self.triggers:
            # once one is found, only an earlier start can win
            found = buf.find(trigger, start) if found_at < 0 else buf.find(trigger, start, found_at - 1 + len(trigger))
            if found >= 0:
                found_at = found
        return found_at

    def _tail_trigger(self, buf, start):
        """Leftmost position from `start` where the buffer ends in a proper prefix of a trigger."""
        low = len(buf) - self.longest + 1
        return tail_prefix_start(buf, start if start > low else low, self.prefix_firsts, self.prefixes)

    def search(self, buf, pos, partial, skip=0):
        """What `compiled.search(buf, pos, partial=partial)` returns, except
        that an empty partial match at the very end (which holds nothing back)
        may come back as None. No trigger string starts before `skip` (see
        Horizon): the search for them starts there, lead runs still from `pos`."""
        if self.triggers is None:
            return self.compiled.search(buf, pos, partial=partial)
        if self.simple:
            return self._search_simple(buf, pos, partial, skip)
        match = self.compiled.match
        size = len(buf)
        first_partial = None
        start = pos
        ahead = [-1, 0] * len(self.triggers) if size - pos > LONG_TEXT and len(self.triggers) > 1 else None
        while start < size:
            trigger_at = self._next_trigger(buf, start if start > skip else skip, ahead)
            if trigger_at < 0:
                break
            for candidate in self._starts(buf, self.leads.run_start(buf, trigger_at, start), trigger_at):
                found = match(buf, candidate, partial=partial)
                if found is not None:
                    if not found.partial:
                        return found  # complete matches win over partial ones, as in search
                    if first_partial is None:
                        first_partial = found
            start = trigger_at + 1
        if first_partial is not None or not partial:
            return first_partial
        # No complete match: a partial one ends in a trigger prefix or is all leads.
        tail_at = self._tail_trigger(buf, start) if self.prefixes else -1
        if tail_at >= 0:
            run_start = self.leads.run_start(buf, tail_at, start)
            if self.exact and (run_start == tail_at or self.first_lead.holds(buf[run_start:tail_at])):
                return PartialMatch(run_start, size)
            for candidate in self._starts(buf, run_start, tail_at):
                found = match(buf, candidate, partial=True)
                if found is not None:
                    return found
            start = tail_at + 1
        if self.leads and start < size:
            run_start = self.leads.run_start(buf, size, start)
            if run_start < size:
                for candidate in self._starts(buf, run_start, size - 1):
                    found = match(buf, candidate, partial=True)
                    if found is not None:
                        return found
        return None


class Settled:
    """Smaller patterns for a delimiter whose look-behind branches the
    buffer settles (compiler/passes/lookbehind_settle.py): an anchored branch
    `(?<=^H.*T)` is `(?<=T)` once `^H` matches the buffer's start (`alive`)
    and is dropped once it cannot (`dead`); a headed branch, tempered and
    starting with the literal `L`, is dropped while the buffer holds no `L`
    and no match of its `probe`. Without these, the `regex` module walks
    each such look-behind back to the start of the text at every position
    it tries: one search of a long text took quadratic time, and so did a
    stream whose buffer keeps all of its text (llama4_pythonic's, once its
    text starts with `[`, which no ContextCut may drop). Every search of
    the delimiter asks `choose`; the look-behinds read only the buffer, so
    facts about it hold for any search of it.

    The buffer facts are searched for once per text: `memo` (the parser's,
    as for Literals.find) keeps, per string, its first occurrence or how
    far it is known absent, in absolute positions."""

    __slots__ = ("dead", "alive", "anchored", "tail", "absent", "_compiled")

    def __init__(self, dead, alive=None, anchored=None, tail=0, absent=()):
        self.dead = dead
        self.alive = alive
        self.anchored = anchored
        self.tail = tail
        self.absent = tuple(absent)
        self._compiled = {}

    def __repr__(self):
        return f"Settled({self.dead!r}, {self.alive!r}, {self.anchored!r}, {self.tail!r}, {self.absent!r})"

    def _regex(self, source):
        compiled = self._compiled.get(source)
        if compiled is None:
            rx = regex_module()
            compiled = self._compiled[source] = rx.compile(source, rx.DOTALL)
        return compiled

    def _occurs(self, text, regex_source, buf, base, memo):
        """Whether the literal `text` (or a match of the two-character
        `regex_source`) occurs in the buffer."""
        key = ("settled", text, regex_source)
        size = len(buf)
        width = len(text) if regex_source is None else 2
        cached = memo.get(key)
        start = 0
        if cached is not None:
            found, searched = cached
            if found >= base:
                return True
            if found < 0:
                start = max(0, searched - width + 1 - base)
        if size - start < width:
            memo[key] = (-1, base + size)
            return False
        if regex_source is None:
            found = buf.find(text, start)
        else:
            match = self._regex(regex_source).search(buf, start)
            found = -1 if match is None else match.start()
        memo[key] = (base + found, 0) if found >= 0 else (-1, base + size)
        return found >= 0

    def choose(self, buf, pos, base, memo):
        """The pattern to search `buf` from `pos` with, or None for the
        delimiter's own."""
        for literal, probe in self.absent:
            if self._occurs(literal, None, buf, base, memo):
                return None
            if probe is not None and self._occurs("", probe, buf, base, memo):
                return None
        if self.anchored is None:
            return self.dead
        head = self._regex(self.anchored).match(buf, partial=True)
        if head is None:
            return self.dead
        if head.end() + self.tail > pos:
            return None  # (a partial match of the head ends at the buffer's end: here too)
        return self.alive


def rare_anchor(string):
    """(character, offset) of the character of `string` least likely in
    model output, or None when it holds none: a non-ASCII symbol (DeepSeek's
    `｜` and `▁`) before `|`, `^` or `~` (`<|im_end|>`), the first of the
    rarest. Letters, digits, spaces, brackets and the other ASCII
    punctuation occur in prose and code every few dozen characters."""
    best = None
    for offset, char in enumerate(string):
        if not char.isascii() and unicodedata.category(char)[0] == "S":
            return char, offset
        if best is None and char in "|^~":
            best = char, offset
    return best


class Anchor:
    """Strings that hold one rare character at one offset (see rare_anchor),
    searched for by that character: str.find of one character is a memchr
    pass, 10-20 times faster over a long non-ASCII text than a pass of `re`
    or a str.find of a whole string (2.5 against 30-60 us over 37k
    characters of prose with a `🙂`), and each occurrence is checked. Past
    MISSES occurrences that start none of the strings (a Markdown table's
    `|`) the rest is one pass of their alternation: no slower than without
    the anchor by more than those checks."""

    __slots__ = ("char", "offset", "strings", "alternation")

    MISSES = 16

    def __init__(self, char, offset, strings):
        self.char = char
        self.offset = offset
        self.strings = tuple(strings)
        self.alternation = literal_alternation(self.strings)

    def __repr__(self):
        return f"Anchor({self.char!r}, {self.offset}, {list(self.strings)!r})"

    def find(self, buf, start, limit):
        """Leftmost start at or after `start` of one of the strings that
        ends by `limit` (as str.find(string, start, limit)), or -1."""
        char = self.char
        offset = self.offset
        strings = self.strings
        misses = 0
        at = buf.find(char, start + offset, limit)
        while at >= 0:
            begin = at - offset
            if buf.startswith(strings, begin, limit):
                return begin
            misses += 1
            if misses > self.MISSES:
                match = self.alternation.search(buf, begin + 1, limit)
                return -1 if match is None else match.start()
            at = buf.find(char, at + 1, limit)
        return -1


class Horizon:
    """Where the first trigger string of any of a state's delimiters occurs
    from the read position, for whole-text parsing (a rest longer than
    LONG_TEXT). No delimiter has a complete match whose trigger string
    starts before it, so each delimiter searches for its strings from there
    (`skip`): the text up to the next transition is read once for all of
    the state's strings, not once per delimiter, and a string that occurs
    nowhere is read to the end once per parse.

    The strings go in groups: those holding a rare character (see
    rare_anchor) by that character and its offset, searched with an Anchor;
    the others by their first character: one str.find for a string alone,
    one pass of the alternation for a group (`re` runs it by the common
    start: on prose with a `<` every 150 characters, one pass for
    `</think>|<think>|<tool_call>` takes 15 us over 37k characters where
    three str.find take 37). Each search is bounded by the best found so far
    and memoised per parser as `Literals.find` does (the start found, or -1
    and how far the text was read), under the string itself for a group of
    one (so `Literals.find` reads the memo too)."""

    __slots__ = ("searches", "watch")

    def __init__(self, strings, watch):
        # The state's delimiters, literals last: by then a pattern's match
        # bounds how far they are looked for (see _scan).
        self.watch = tuple(sorted(watch, key=lambda entry: entry[2].literals is not None))
        groups = {}
        for string in sorted(strings):
            groups.setdefault(rare_anchor(string) or string[0], []).append(string)
        # (memo key: the string alone or the group's search; longest;
        # shortest; the group's Anchor or None)
        searches = []
        for by, members in groups.items():
            anchor = Anchor(by[0], by[1], members) if type(by) is tuple else None
            if len(members) == 1:
                key = members[0]
            else:
                key = anchor or literal_alternation(members)
            searches.append((key, max(map(len, members)), min(map(len, members)), anchor))
        self.searches = tuple(searches)

    @classmethod
    def of_state(cls, watch):
        """The horizon of a state's delimiters, or None: when one of them
        has no trigger strings (or reads behind them), or when there is only
        one string (its own memoised search is as good)."""
        strings = set()
        for _kind, _index, delim in watch:
            if delim.literals is not None:
                strings.update(delim.literals)
            elif delim.triggers is not None and not delim.behind:
                strings.update(delim.triggers)
            else:
                return None
        return cls(strings, watch) if len(strings) > 1 else None

    def first(self, buf, pos, base, memo):
        """Start of the leftmost string from `pos`, or len(buf) when none."""
        best = size = len(buf)
        pos_abs = base + pos
        for key, width, shortest, anchor in self.searches:
            cached = memo.get(key)
            if cached is not None and cached[0] >= pos_abs:
                found = cached[0] - base
                if found < best:
                    best = found
                continue
            limit = size if best == size else best - 1 + width  # only an earlier start can win
            start = pos
            if cached is not None and cached[0] < 0:
                start = max(pos, cached[1] - width + 1 - base)
            if limit - start < shortest:
                continue  # read already (or nothing earlier fits)
            if anchor is not None:
                found = anchor.find(buf, start, limit)
            elif type(key) is str:
                found = buf.find(key, start, limit)
            else:
                match = key.search(buf, start, limit)
                found = -1 if match is None else match.start()
            memo[key] = (base + found, 0) if found >= 0 else (-1, base + limit)
            if 0 <= found < best:
                best = found
        return best


class Lead:
    """A character class a delimiter may start with, repeated (the `\\s` of `\\s*<tool_call>`)."""

    __slots__ = ("source", "ascii", "_all")

    def __init__(self, source, ascii):
        self.source = source
        self.ascii = ascii  # its ASCII members, computed at build time
        self._all = None

    def __repr__(self):
        return f"Lead({self.source!r})"

    def holds(self, text):
        """Whether every character of `text` is in the class."""
        if text.isascii():
            return not text.strip(self.ascii)
        if self._all is None:
            self._all = regex_module().compile(f"{self.source}*")
        return self._all.fullmatch(text) is not None


class FastPath:
    """What lets a state skip every search (planned by the compiler):
    no delimiter watched in the state can match, or be pending, in text that
    holds none of `triggers` and does not end in a `leads` character."""

    __slots__ = ("triggers", "leads", "lead_ascii", "hold_lead")

    def __init__(self, triggers, leads=(), hold_lead=None):
        self.triggers = tuple(triggers)
        self.leads = Leads(leads)
        self.lead_ascii = self.leads.ascii  # read on every token: one attribute hop
        # While the held text and new text are all in this class, the pending
        # match stays where it is: more such text changes nothing.
        self.hold_lead = hold_lead

    def __repr__(self):
        return f"FastPath({''.join(self.triggers)!r}, leads={self.leads.classes!r})"


class Leads:
    """The lead classes of a delimiter or a state, as one set of characters."""

    __slots__ = ("classes", "ascii", "non_ascii")

    def __init__(self, classes):
        self.classes = tuple(classes)
        self.non_ascii = {}
        self.ascii = "".join(sorted({char for lead in self.classes for char in lead.ascii}))

    def __bool__(self):
        return bool(self.classes)

    def holds_char(self, char):
        """Whether `char` is in any of the classes (non-ASCII answers memoised)."""
        if char < "\x80":
            return char in self.ascii
        known = self.non_ascii.get(char)
        if known is None:
            known = any(lead.holds(char) for lead in self.classes)
            if len(self.non_ascii) < 4096:
                self.non_ascii[char] = known
        return known

    def run_start(self, text, end, floor=0):
        """Start of the run of lead characters ending at `end` (not before `floor`)."""
        start = end
        while start > floor and self.holds_char(text[start - 1]):
            start -= 1
        return start


PLAIN_TOKENS = 1 << 15  # bound on each scanner's table of plain tokens
SETTLE_LIMIT = 1024  # longest rest after a transition the scanner answers for (see _settle)
LEARN_LIMIT = 64  # longest text kept in a scanner's table of plain tokens
STEP_LIMIT = 256  # longest unconsumed text whose general step is remembered (see _step)
LEAD_RUN_LIMIT = 256  # longest lead run a ContextCut looks back over (see lead_run_start)
HELD_WHOLE = -2  # Scanner.trigger_holds: the token is held whole, and is no lead run
LAZY_CUT = 96  # a state without a scanner cuts its buffer only from this length on (see _append)
CUT_DONE, UNCUT = -1, -2  # what _append did about the ContextCut when it left no cut to _step
CHAIN_LIMIT = 16  # most texts remembered after one remembered step (see _feed_general): with the
# step table's bound, at most PLAIN_TOKENS * CHAIN_LIMIT entries per parser class
SCAN_CONTEXT_LIMIT = 128  # with CONTEXT -1: longest buffer whose scan is remembered (see _scan_remembered)
ROUTE_OP, OPEN_OP, CLOSE_OP = 0, 1, 2  # what a remembered general step does (see _step)
HOT_MODE, LEAD_HOT_MODE = 1, 2  # the common path a remembered step leaves open (see _step)


def prefix_rules(delim, later=False):
    """(trigger strings, exact, lead or None) per part of a delimiter: one
    for literals and most patterns, one per alternative for patterns the
    compiler read branch by branch; `later`: without the alternatives that
    match only where the text starts."""
    if delim.literals is not None:
        return ((delim.literals, True, None),)
    if delim.branches is not None:
        branches = delim.branches
        if later and delim.at_start:
            branches = tuple(rule for index, rule in enumerate(branches) if index not in delim.at_start)
        if delim.behind:
            # One-character strings: text holding one takes the search.
            return branches + ((tuple(delim.behind), True, None),)
        return branches
    exact = delim.exact
    return ((delim.triggers, exact, delim.first_lead if exact and delim.leads else None),)


class Scanner:
    """A state's watched delimiters as one lexer over the unconsumed tail.

    Built once per parser class and state from the delimiters' trigger
    strings (compiler analysis: every match is lead characters then one of
    them). It answers the hold-back question for a tail that holds no whole
    trigger string, from the tail's last `longest - 1` characters only:
    - a proper prefix of a trigger string at the end is a partial match of
      every delimiter owning it; for exact delimiters (literals, or leads
      then the trigger with nothing else before it) the partial match starts
      at that prefix, or at the run of the delimiter's lead class before it;
    - otherwise a tail ending in lead characters is a partial match of the
      state's hold lead from the start of that run;
    - otherwise nothing is pending and all of the tail is routed.
    Anything else (a whole trigger string, a prefix owned by an inexact
    delimiter) goes to the general search, which runs the delimiters.
    """

    __slots__ = (
        "strings",
        "firsts",
        "single",
        "prefixes",
        "longest",
        "leads",
        "lead_ascii",
        "hold_lead",
        "ascii_run_holds",
        "plain",
        "lead_end",
        "holds",
        "trigger_holds",
        "lead_triggers",
        "behind",
        "learns_triggered",
        "later",
    )

    def __init__(self, watch, fast, later=False):
        strings = []
        prefixes = {}
        rules = (rule for _kind, _index, delim in watch for rule in prefix_rules(delim, later))
        for owned, exact, lead in rules:
            for string in owned:
                strings.append(string)
                for size in range(1, len(string)):
                    prefix = string[:size]
                    rule = prefixes.get(prefix, ())
                    if not exact or rule is None:
                        prefixes[prefix] = None
                    elif lead is not None and lead not in rule:
                        prefixes[prefix] = rule + (lead,)
                    else:
                        prefixes[prefix] = rule
        self.strings = tuple(dict.fromkeys(strings))
        self.firsts = "".join(sorted({string[0] for string in self.strings}))
        self.single = self.firsts if len(self.firsts) == 1 else None
        self.prefixes = prefixes
        self.longest = max(map(len, self.strings), default=0)
        self.leads = fast.leads
        self.lead_ascii = fast.leads.ascii
        self.hold_lead = fast.hold_lead
        # Every ASCII lead character is of the hold lead: a trailing ASCII
        # run of leads needs no further check.
        self.ascii_run_holds = self.hold_lead is not None and set(self.lead_ascii) <= set(self.hold_lead.ascii)
        # Tokens met in this state that hold no trigger character and do
        # not end in a lead (a tokenizer's vocabulary is finite, so most
        # tokens are met again): the common path's one lookup.
        self.plain = {}
        # Tokens with no trigger character ending in a run of the hold lead:
        # token -> where that run starts.
        self.lead_end = {}
        self.holds = {}  # short tail -> hold (see hold)
        # Tokens with a trigger character met on the common path with
        # nothing held: token -> its hold, or HELD_WHOLE when all of it is
        # held and it is no run of the hold lead (a lone `<`): answered at
        # once (see StreamParser._feed_new_token).
        self.trigger_holds = {}
        # One-character trigger strings that are lead characters too (the
        # `\n` of `[ \t]*\n`): text holding one is never a lead run to
        # skip (see of_state, StreamParser._feed_general and _note_held).
        self.lead_triggers = ""
        # Characters right after which a look-behind alternative may match
        # (Pattern.behind): the scanner answers only when the character
        # before the tail is none of them (see StreamParser._behind_clear).
        self.behind = "".join(sorted({char for _kind, _index, delim in watch for char in delim.behind}))
        # A token with a trigger character that is routed whole with nothing
        # held (` first` where `functools[` is watched) is plain too when no
        # string starts with a lead character and no alternative reads the
        # character before the tail: then neither a held lead run before it
        # nor what came before changes that answer, and it takes the
        # common path's one lookup (see StreamParser._feed_trigger).
        self.learns_triggered = not self.behind and not any(self.leads.holds_char(s[0]) for s in self.strings)
        # The scanner to ask once anything is consumed: one without the
        # alternatives that match only where the text starts (granite's
        # `^\\s*(?:Here is|Here's) my thought process:`), whose trigger
        # prefixes (`H`, `Her`) would otherwise send every token holding
        # one to the search; itself when there are none (see of_state).
        self.later = self

    def learn(self, token):
        """Remember a plain token (up to a bound on the table's size)."""
        if len(self.plain) < PLAIN_TOKENS:
            self.plain[token] = True

    @classmethod
    def of_state(cls, watch, fast):
        """The scanner for a state, or None when its delimiters give no
        trigger strings or a trigger could start inside a lead run."""
        if fast is None or not watch:
            return None
        for _kind, _index, delim in watch:
            if delim.literals is None and delim.triggers is None and not delim.behind:
                return None
        scanner = cls._checked(cls(watch, fast))
        if scanner is not None and any(delim.literals is None and delim.at_start for _k, _i, delim in watch):
            # (with no trigger string left, every token is plain: nothing
            # can match any more)
            later = cls._checked(cls(watch, fast, later=True))
            if later is not None:
                scanner.later = later
        return scanner

    @staticmethod
    def _checked(scanner):
        """`scanner`, or None when a trigger could start inside a lead run."""
        if any(scanner.leads.holds_char(char) for char in scanner.behind):
            return None
        overlap = "".join(char for char in scanner.firsts if scanner.leads.holds_char(char))
        if overlap:
            # Only one-character triggers may be lead characters: they have
            # no prefixes, so a tail holding one always takes the search.
            if any(string[0] in overlap and len(string) > 1 for string in scanner.strings):
                return None
            scanner.lead_triggers = overlap
        return scanner

    def hold(self, tail):
        """Where the held text starts in `tail` (len(tail): nothing held), or
        -1 when only the general search can tell. Answers for short tails
        (a held delimiter prefix and a token) are remembered."""
        if len(tail) > 64:
            return self._hold(tail)  # not remembered, nor hashed
        known = self.holds.get(tail)
        if known is None:
            known = self._hold(tail)
            if len(self.holds) < PLAIN_TOKENS:
                self.holds[tail] = known
        return known

    def _hold(self, tail):
        for string in self.strings:
            if string in tail:
                return -1
        size = len(tail)
        low = size - self.longest + 1
        if low < 0:
            low = 0
        single = self.single
        if single is not None:
            at = tail.find(single, low)
            while at >= 0:
                rule = self.prefixes.get(tail[at:], False)
                if rule is not False:
                    return self._extend(tail, at, rule)
                at = tail.find(single, at + 1)
        else:
            firsts = self.firsts
            prefixes = self.prefixes
            for at in range(low, size):
                if tail[at] in firsts:
                    rule = prefixes.get(tail[at:], False)
                    if rule is not False:
                        return self._extend(tail, at, rule)
        last = tail[-1]
        if last in self.lead_ascii or (last > "\x7f" and self.leads.holds_char(last)):
            start = self.leads.run_start(tail, size)
            if self.hold_lead is None or not self.hold_lead.holds(tail[start:]):
                return -1
            return start
        return size

    def lead_triggers_in(self, text):
        """Whether `text` holds a trigger string that is a lead character."""
        for char in self.lead_triggers:
            if char in text:
                return True
        return False

    @staticmethod
    def _extend(tail, at, rule):
        """The partial matches of a trigger prefix at `at` start there, or at
        the run of a delimiter's lead class before it."""
        if rule is None:
            return -1
        hold = at
        for lead in rule:
            start = at
            while start > 0 and lead.holds(tail[start - 1]):
                start -= 1
            if start < hold:
                hold = start
        return hold


def last_anchor_end(anchor, text):
    """End of the last non-overlapping match of the start anchor in `text`, or None."""
    last = None
    if isinstance(anchor, Pattern):
        for match in anchor.compiled.finditer(text):
            last = match.end()
        return last
    pos = 0
    memo = {}
    while True:
        found = anchor.find(text, pos, 0, memo)
        if found is None:
            return last
        pos = last = found[1]


# --------------------------------------------------------------------------
# The streaming driver.
# --------------------------------------------------------------------------


class ContextCut:
    """How much of the text a template with unbounded look-behinds (CONTEXT
    -1) must really keep (compiler/passes/lookbehind_reach.py proves it from the
    patterns): each tempered look-behind `(?<=A(?:(?!B).)*C)` reads nothing
    before `before` characters ahead of the last whole barrier `B` that
    starts more than `after` characters before the read position, and, when
    `A` is one literal (`head`), nothing before `before` characters ahead of
    the first `A` after that barrier (nor, with none, ahead of the read
    position less `after`: the rest answers as the text's start; with a
    `lead` class, `head` is the character after a run of it, and the run is
    kept too); bounded
    readers need `near` characters; an anchored look-behind `(?<=^H.*...)`
    (`anchored` is `^H`) is dead once the text's start is no match nor
    partial match of it, and the kept text then starts with `sentinel`, on
    which `^H` fails as on the real start. Each `counted` rule
    `(char, count, before)` is a look-behind whose matches hold fewer than
    `count` of `char` (glm47's `<`): it reads nothing before `before`
    characters ahead of the `count`-th last `char` before the read
    position."""

    __slots__ = ("near", "barriers", "anchored", "sentinel", "counted", "_anchored_regex", "_leads")

    def __init__(self, near, barriers, anchored=None, sentinel=None, counted=()):
        self.near = near
        self.barriers = tuple(barriers)
        self.anchored = anchored
        self.sentinel = sentinel
        self.counted = tuple(counted)
        self._anchored_regex = None
        self._leads = {}

    def lead_run_start(self, index, buf, base, at):
        """Where the run of barrier `index`'s lead class ending right before
        absolute position `at` starts (the look-behind reads it, and its
        literal before it); `base` when the run reaches the buffer's start
        or is longer than LEAD_RUN_LIMIT (then nothing is cut)."""
        lead = self._leads.get(index)
        if lead is None:
            lead = self._leads[index] = regex_module().compile(self.barriers[index][4]).fullmatch
        end = at - base
        start = end
        while start > 0 and end - start < LEAD_RUN_LIMIT and lead(buf[start - 1]):
            start -= 1
        return base if start == 0 or end - start >= LEAD_RUN_LIMIT else base + start

    def __repr__(self):
        return f"ContextCut({self.near!r}, {self.barriers!r}, {self.anchored!r}, {self.sentinel!r}, {self.counted!r})"

    def anchored_regex(self):
        if self._anchored_regex is None:
            rx = regex_module()
            self._anchored_regex = rx.compile(self.anchored, rx.DOTALL)
        return self._anchored_regex


OPEN, CLOSE = 0, 1
# Immutable values a template's defaults copy as they are (StreamParser.__init__).
_ATOMS = frozenset({str, int, float, bool, type(None)})


class StreamParser:
    """Streaming response parser; subclasses supply the template's tables.

    Class attributes set by the generated module:
      FIELDS   tuple of Field
      IMPLICIT index of the implicit field, or None
      WATCH    state -> tuple of (kind, field index, delimiter); the state is
               the index of the open explicit field, or -1 for the implicit
               region / null sink
      START_ANCHOR  Literals or Pattern
      FAST     state -> FastPath, for states whose delimiters allow skipping
      CONTEXT  characters kept before the read position for regex
               delimiters: 0 (none needed), k (look-behind width + 1), or
               -1 (all: unbounded look-behind)
      SCAN_CONTEXT  state -> the same for that state's own delimiters, where
               it differs: a scan (no transition) reads no more behind, so
               its remembered answer is keyed on that much (_scan_remembered)
      CUT      with CONTEXT -1, a ContextCut when the compiler bounds every
               unbounded look-behind's walk (else None: all text is kept)
      DEFAULTS the template's defaults
    """

    # Slots, not an instance dict: a parser has more attributes than
    # CPython's shared-key instance dicts hold (30), and every token reads
    # and writes a few of them; a slot is read at a fixed offset. (A
    # generated subclass declares none, so its instances have a dict for
    # anything else; these names still resolve to the slots.)
    __slots__ = (
        "_anchored_state",
        "_append_body",
        "_barrier_last",
        "_barrier_scanned",
        "_base",
        "_body",
        "_buf",
        "_captures",
        "_chain",
        "_chain_at",
        "_chunk",
        "_counted_scanned",
        "_counted_seen",
        "_current",
        "_cut_id",
        "_cut_stale",
        "_cut_states",
        "_dirty",
        "_finalized",
        "_head_first",
        "_head_scanned",
        "_held_hot",
        "_held_in_lead",
        "_hot",
        "_hot_from",
        "_lead_hot",
        "_lost",
        "_matches",
        "_memo",
        "_name",
        "_opened",
        "_output",
        "_pieces",
        "_pos",
        "_scan_table",
        "_scanner",
        "_scanner_of",
        "_stale",
        "_state",
        "_step_table",
        "_tool_params",
        "_trace",
        "_uncut",
        "_whole",
        "initial_events",
    )

    FIELDS = ()
    IMPLICIT = None
    WATCH = {}
    FAST = {}
    START_ANCHOR = None
    ANCHOR_FROM_END = None  # the anchor, when its last match is its rfind (compiler: Program.anchor_from_end)
    CONTEXT = 0
    SCAN_CONTEXT = {}
    BLIND = frozenset()
    CUT = None
    DEFAULTS = {}
    RECOVERING = None  # the class of recover=True parsers (runtime/recover.py), set by the generated module

    def __new__(cls, prefix=None, *, tools=None, recover=False, malformed="drop"):
        if recover:
            return cls.RECOVERING(cls, prefix, tools=tools, malformed=malformed)
        return object.__new__(cls)

    def __init__(self, prefix=None, *, tools=None, recover=False, malformed="drop"):
        if malformed != "drop":
            raise ValueError("malformed= applies only with recover=True")
        if prefix is None:
            raise ValueError(
                "ResponseParser/parse_response requires `prefix` (the chat prompt sent to the model before "
                "generation): chat templates often pre-write part of the assistant message (e.g. an opening "
                '`<think>`). If the generation already holds the whole message, pass prefix="" to opt out.'
            )
        self._tool_params = tool_parameters(tools)
        self._buf = ""  # the text from absolute offset _base on
        self._base = 0
        self._pos = 0  # read position, relative to _buf
        self._memo = {}
        self._lost = None  # the context a whole text is searched without (see _feed_whole)
        self._whole = False  # parse_response's parser: no event reaches anyone (see _route_closing)
        self._matches = {}  # pattern -> its last search (see _scan); emptied as the buffer grows
        self._pieces = []  # held text not yet joined onto _buf (see feed)
        self._held_in_lead = False
        self._hot = None  # the state's Scanner's plain tokens while the common path is open
        self._lead_hot = None  # the same while a run of its hold lead is held
        self._held_hot = None  # the same while other text it held waits for the next token (see _hold_tail)
        self._hot_from = 0  # body pieces before that are in the buffer
        self._stale = False  # whether later body pieces are not (see _materialize)
        self._scanner_of = self._scanners()
        self._scan_table = self._class_table("_SCAN_TABLE")
        self._step_table = self._class_table("_STEP_TABLE")
        self._trace = None  # the list _route/_open/_close record into (see _step)
        if self.CUT is not None:
            count = len(self.CUT.barriers)
            self._barrier_last = [-1] * count  # absolute start of the last whole barrier seen
            self._barrier_scanned = [0] * count  # barrier starts below this are searched
            self._head_first = [-1] * count  # absolute start of the first head after the last barrier
            self._head_scanned = [0] * count  # head starts below this are searched
            self._anchored_state = None  # the anchored look-behind: None undecided, True dead, False alive
            self._counted_seen = [[] for _ in self.CUT.counted]  # absolute starts of the last `count` chars
            self._counted_scanned = [0] * len(self.CUT.counted)  # chars below this are searched
            # The same bookkeeping relative to the buffer's start, interned as
            # a number (see _cut_state_id); after a replayed step only this
            # is up to date (_cut_stale) until _cut_context needs the lists.
            self._cut_states = self._class_table("_CUT_STATES")
            self._cut_id = None
            self._cut_stale = False
        # The buffer's length before _append when its cut is left to _step,
        # or CUT_DONE (_append did what the ContextCut asks, apart from the
        # step; always so without one) or UNCUT (a state without a scanner
        # left its short buffer uncut; its step is keyed with the cut's
        # bookkeeping, which the next cut reads).
        self._uncut = CUT_DONE
        self._chain = None  # the steps that follow the last remembered one (see _feed_general)
        self._chain_at = 0  # the body's length when it was set
        defaults = self.DEFAULTS
        # (a template's defaults are mostly strings: copying those needs no deepcopy, which costs 3 us)
        flat = all(type(value) in _ATOMS for value in defaults.values())
        self._output = dict(defaults) if flat else deepcopy(defaults)
        self._enter_implicit()
        self._captures = {}
        self._body = []
        self._append_body = self._body.append  # the common path's (kept with _body)
        self._opened = False
        self._finalized = False
        self.initial_events = []
        if prefix:
            anchor = self.ANCHOR_FROM_END
            if anchor is not None:
                end = prefix.rfind(anchor)
                text = prefix if end < 0 else prefix[end + len(anchor) :]
            else:
                end = last_anchor_end(self.START_ANCHOR, prefix)
                text = prefix if end is None else prefix[end:]
            if text:
                self._buf = text
                self._process(self.initial_events, False)
                self._note_held()

    @classmethod
    def _scanners(cls):
        """State -> Scanner (or None), built once per parser class."""
        table = cls.__dict__.get("_SCANNERS")
        if table is None:
            table = {state: Scanner.of_state(watch, cls.FAST.get(state)) for state, watch in cls.WATCH.items()}
            cls._SCANNERS = table
        return table

    @classmethod
    def _horizons(cls):
        """State -> Horizon (or None), built as _scanners is, on the first
        whole text."""
        table = cls.__dict__.get("_HORIZONS")
        if table is None:
            table = {state: Horizon.of_state(watch) for state, watch in cls.WATCH.items()}
            cls._HORIZONS = table
        return table

    @classmethod
    def _class_table(cls, attribute):
        """A dict kept on the parser class itself (not inherited): the
        remembered scans (`_SCAN_TABLE`) and steps (`_STEP_TABLE`)."""
        table = cls.__dict__.get(attribute)
        if table is None:
            table = {}
            setattr(cls, attribute, table)
        return table

    # -- public API --------------------------------------------------------

    @property
    def captures(self):
        """The named groups of the open match of the region open now (a copy;
        empty in the implicit region or when the open had no groups)."""
        return dict(self._captures)

    def feed(self, text):
        """Add generated text; return the events it completes."""
        plain = self._hot
        if plain is not None:
            # The common path: nothing held, the region open, and a token
            # the state's scanner knows holds no trigger character and does
            # not end in a lead character, so no delimiter can match or be
            # pending in it (see Scanner): it is routed as it is. The buffer
            # is brought up to date lazily (see _materialize) from the body,
            # which holds these tokens anyway.
            if text in plain:
                self._append_body(text)
                event = self._chunk.copy()
                event["text"] = text
                return [event]
            return self._feed_new_token(self._scanner, text, ())
        hot = self._lead_hot
        if hot is not None:
            # A run of the state's hold lead is held (the pieces): a plain
            # token releases it, as no delimiter can match in it any more.
            if text in hot.plain:
                text = "".join(self._pieces) + text
                self._pieces = []
                self._lead_hot = None
                self._hot = hot.plain
                self._body.append(text)
                return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]
            return self._feed_new_token(hot, text, self._pieces)
        hot = self._held_hot
        if hot is not None:
            return self._feed_held(hot, text)
        return self._feed_general(text)

    def _feed_new_token(self, hot, text, held):
        """The common path for a token not known plain: classify it (and
        remember it when plain), or hand it to the general step. `held` is
        the held lead run's pieces, joined only when they are routed: a run
        that keeps growing (8,000 newline tokens) is never copied."""
        start = hot.lead_end.get(text)
        if start is not None:
            return self._hold_run(hot, text, held, start)
        known = hot.trigger_holds.get(text)
        if known is not None and not held and not self._pieces and self._chain is None:
            # what _feed_trigger and _hold_tail did when they met it
            if known == HELD_WHOLE:
                self._hot = None
                self._pieces = [text]
                self._held_hot = hot
                return []
            if known == len(text):  # routed whole, the common path stays open
                self._append_body(text)
                return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]
            return self._hold_tail(hot, text, known)
        if not text:
            return self._feed_general(text)
        single = hot.single
        if single is not None:
            if single in text:
                return self._feed_trigger(hot, text)
        else:
            for char in hot.firsts:
                if char in text:
                    return self._feed_trigger(hot, text)
        if hot.leads.holds_char(text[-1]):
            return self._feed_lead_end(hot, text, held)
        if len(text) <= LEARN_LIMIT:  # a long chunk is not a token met again: not kept
            hot.learn(text)
        if held:
            text = "".join(held) + text
            self._pieces = []
            self._lead_hot = None
            self._hot = hot.plain
        self._body.append(text)
        return [{"type": "region_chunk", "field": self._name, "text": text, "dirty": self._dirty}]

    def _feed_trigger(self, hot, text):
        """A token with a trigger character on the common path (a lone `<`,
        `</`): what _feed_general's stale branch does, without its other
        checks, when no remembered chain may take the token first."""
        if self._chain is None:
            nothing_held = not self._pieces
            tail, hold = self._held_tail(hot, text)
            if hold >= 0:
                events = self._hold_tail(hot, tail, hold)
                if nothing_held and len(hot.trigger_holds) < PLAIN_TOKENS:
                    hot.trigger_holds[text] = HELD_WHOLE if not hold and self._held_hot is hot else hold
                    if hold == len(text) and hot.learns_triggered and len(text) <= LEARN_LIMIT:
                        hot.learn(text)
                return events
        return self._feed_general(text)

    def _feed_held(self, scanner, text):
        """The token after held text that is no lead run (`<` held, then
        ` b`): the scanner answers for both as in _feed_general's stale
        branch, which is where the parser is (_hold_tail)."""
        self._held_hot = None
        # _held_tail and _hold_tail inlined for the commonest answer (all of
        # it routed): a third of a lone-`<` stream's tokens come here, and
        # the three calls cost a quarter of its time.
        if text and len(text) <= SETTLE_LIMIT:  # (an empty token takes _feed_general's scannerless branch)
            tail = self._pieces[0] + text
            if len(tail) <= SETTLE_LIMIT:
                hold = scanner.holds.get(tail)
                if hold is None:
                    hold = scanner.hold(tail)
                if hold == len(tail):
                    self._pieces = []
                    self._hot = scanner.plain
                    self._body.append(tail)
                    return [{"type": "region_chunk", "field": self._name, "text": tail, "dirty": self._dirty}]
                if hold >= 0:
                    return self._hold_tail(scanner, tail, hold)
        return self._feed_general(text)

    def _held_tail(self, scanner, text):
        """The held pieces and `text` (the tail), and the scanner's answer
        for them: where the held text starts, or -1 when only the search can
        tell (or the tail is longer than SETTLE_LIMIT: a whole text is not
        joined here, _append copies it once)."""
        if len(text) > SETTLE_LIMIT:
            return text, -1
        pieces = self._pieces
        tail = "".join(pieces) + text if pieces else text
        if len(tail) > SETTLE_LIMIT:
            return tail, -1
        return tail, scanner.hold(tail)

    def _hold_tail(self, scanner, tail, hold):
        """The scanner's answer for the held pieces and a token (`tail`) on a
        stale buffer: tail[:hold] is routed, the rest held. Held text that is
        no run of the hold lead sends the next token to _feed_held."""
        events = []
        if hold:
            routed = tail[:hold] if hold < len(tail) else tail
            self._body.append(routed)
            events.append({"type": "region_chunk", "field": self._name, "text": routed, "dirty": self._dirty})
        self._hot = None
        if hold < len(tail):
            held = tail[hold:]
            self._pieces = [held]
            lead = scanner.hold_lead
            if lead is not None and lead.holds(held):
                self._lead_hot = scanner
            else:
                self._lead_hot = None
                self._held_hot = scanner
        else:
            self._pieces = []
            self._hot = scanner.plain
            self._lead_hot = None
        return events

    def _feed_lead_end(self, hot, text, held):
        """The common path for `text` (after the held lead run `held`) ending
        in lead characters (`word `, `:\n`): route what comes before the
        trailing run, hold the run, exact when the run is all of the state's
        hold lead (a partial match starts at the run, none before it)."""
        start = len(text.rstrip(hot.lead_ascii))
        if start == len(text) or (start and text[start - 1] > "\x7f"):
            start = hot.leads.run_start(text, len(text))  # non-ASCII lead characters
            if hot.hold_lead is None or not hot.hold_lead.holds(text[start:]):
                return self._feed_general(text)
        elif not hot.ascii_run_holds:
            lead = hot.hold_lead
            if lead is None or not lead.holds(text[start:]):
                return self._feed_general(text)
        if len(hot.lead_end) < PLAIN_TOKENS:
            hot.lead_end[text] = start
        return self._hold_run(hot, text, held, start)

    def _hold_run(self, hot, text, held, start):
        """Route `held` and `text` up to `start`; hold the lead run from there."""
        self._hot = None
        self._lead_hot = hot
        if not start:
            self._pieces.append(text)  # the pending match stays where it is
            return []
        routed = "".join(held) + text[:start] if held else text[:start]
        self._pieces = [text[start:]]
        self._body.append(routed)
        return [{"type": "region_chunk", "field": self._name, "text": routed, "dirty": self._dirty}]

    def _feed_whole(self, text):
        """parse_response's long text, all of the output there is, on a
        parser fresh from its prefix (no step remembered, nothing routed by
        the common path since): it joins the buffer unsearched, and
        finalize searches it as the end of the stream, so no step first
        searches it for what more text could complete (partial matches, the
        hold-back) only to search its tail again at the end. When all of
        the buffer is consumed context and the state's delimiters read
        nothing behind the read position (BLIND), the text becomes the
        buffer as it is, without the context before it: a 1.9 MB copy fewer
        at 128k tokens. The context comes back (`_regain_context`) if a
        transition leaves the read position closer to the text's start than
        CONTEXT; past that no search reads before the text."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if self._buf and not self._pieces and self._pos == len(self._buf) and self._state in self.BLIND:
            self._lost = self._buf
            self._base += len(self._buf)
            self._buf = ""
            self._pos = 0
        self._whole = True
        self._append(text)  # (finalize leaves the common path, if the prefix opened it)

    def _regain_context(self):
        """After a transition in a whole text searched without its context."""
        lost = self._lost
        self._lost = None
        if self._pos < self.CONTEXT:
            self._buf = lost + self._buf
            self._pos += len(lost)
            self._base -= len(lost)

    def _feed_general(self, text):
        """Every token the common path does not take: the scanner answers
        from the tail's end when it can, else the delimiters are searched."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        chain = self._chain
        if chain is not None:
            # The last step was remembered and the parser is still in the
            # state it left (no token routed or held since): the step this
            # text makes from there is remembered with it, a function of
            # that state and the text, so neither the buffer nor the key is
            # built again.
            self._chain = None
            if self._pieces or len(self._body) != self._chain_at:
                chain = None
            else:
                known = chain.get(text)
                if known is not None:
                    if self._stale:  # (_materialize, with nothing routed since)
                        self._hot = self._lead_hot = None
                        self._stale = False
                    events = []
                    self._replay(events, known)
                    return events
        scanner = self._scanner
        if scanner is None or not text:
            # The general step without the scanner (SPEC, steps 1-5).
            if self._stale:
                self._materialize()
            asked = None
        elif self._stale:
            # The buffer is behind (see _materialize); the held text is the
            # pieces (a lead run, or what the scanner held last time).
            self._hot = self._lead_hot = None
            tail, hold = self._held_tail(scanner, text)
            if hold >= 0:
                return self._hold_tail(scanner, tail, hold)
            self._materialize()
            asked = None
        else:
            if self._held_in_lead and scanner.hold_lead.holds(text) and not scanner.lead_triggers_in(text):
                self._pieces.append(text)  # the pending match stays where it is
                return []
            asked = scanner
        self._append(text)
        events = []
        known = self._step(events, asked)
        if chain is not None and known is not None and len(chain) < CHAIN_LIMIT:
            chain[text] = known
        return events

    def _materialize(self):
        """Leave the common path: the tokens it routed (the body's last
        pieces) become the consumed end of the buffer, of which only the
        context regex delimiters read behind is kept."""
        body = self._body
        since = self._hot_from
        skipped = len(body) - since
        if skipped > 1:
            # Joined once, in place: its size is the buffer's offset, and the
            # region's value (_close) joins one piece instead of the tokens
            # (summing 18,000 token lengths cost three times this join). The
            # body's length only shrinks to more than _hot_from, so no
            # remembered chain (_chain_at <= _hot_from) starts to match it.
            body[since:] = ["".join(body[since:])]
        context = self.CONTEXT
        if skipped and context < 0:
            self._grow(body[-1])  # unbounded look-behind: all of it
            self._pos = len(self._buf)
        elif skipped:
            old = self._buf
            routed = body[-1]
            kept = (old + routed[-context:])[-context:] if context > 0 else ""
            self._base += len(old) + len(routed) - len(kept)
            self._buf = kept
            self._pos = len(kept)
        self._hot = self._lead_hot = None
        self._stale = False

    def finalize(self):
        """End of generation: return (message, final events)."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        self._held_hot = None
        if self._stale:
            self._materialize()
        events = []
        if self._pieces:
            self._grow("".join(self._pieces))
            self._pieces = []
        self._process(events, True)
        output = self._output
        missing = [field.name for field in self.FIELDS if not field.optional and field.name not in output]
        if missing:
            raise ValueError(f"Required response_template fields missing from parsed output: {missing}")
        defaults = self.DEFAULTS
        self._output = {
            key: value
            for key, value in output.items()
            if key in defaults or not (value is None or (isinstance(value, (list, dict, str)) and not value))
        }
        self._finalized = True
        return self._output, events

    # -- buffer ------------------------------------------------------------

    def _grow(self, text):
        """Append `text` to the buffer. The buffer's only reference is the
        local `buf` while it grows, so CPython extends the string in place
        instead of copying it (a buffer that keeps all of the text, CONTEXT
        -1, would otherwise be copied at every token): the last searches'
        matches, which hold the old buffer, are dropped first (they answer
        only for that buffer)."""
        if self._matches:
            self._matches.clear()
        buf = self._buf
        self._buf = ""
        buf += text
        self._buf = buf

    def _note_held(self):
        """After processing: trim; open the common path when nothing is held
        but (perhaps) a run of the state's hold lead, which moves to the
        pieces; otherwise note whether the held text is all hold lead.
        (A buffer with a ContextCut is cut by the next _append, right before
        the step that reads it.)"""
        pos, buf = self._pos, self._buf
        context = self.CONTEXT
        if context >= 0 and pos > context:  # the trim to CONTEXT (the only one: _append relies on it)
            cut = pos - context
            self._buf = buf = buf[cut:]
            self._base += cut
            self._pos = pos = context
        scanner = self._scanner
        self._hot = self._lead_hot = None
        if scanner is None:
            self._held_in_lead = False
            return
        if scanner.later is not scanner and self._base + pos:
            scanner = self._scanner = scanner.later  # past the text's start for good
        if pos >= len(buf) and not scanner.behind:
            # nothing held: the common path opens when a region is
            if self._opened and self._current is not None:
                self._hot = scanner.plain
                self._held_in_lead = False
                self._stale = True
                self._hot_from = len(self._body)
            else:
                self._held_in_lead = False
            return
        lead = scanner.hold_lead
        held = buf[pos:] if pos < len(buf) else ""
        in_lead = (
            not held
            or (lead is not None and not self._pieces and lead.holds(held) and not scanner.lead_triggers_in(held))
        ) and (not scanner.behind or self._behind_clear(scanner))
        if in_lead and self._opened and self._current is not None:
            if held:
                self._pieces = [held]
                self._buf = buf[:pos]
                self._lead_hot = scanner
            else:
                self._hot = scanner.plain
            self._held_in_lead = False
            self._stale = True
            self._hot_from = len(self._body)
        else:
            self._held_in_lead = bool(held) and in_lead

    def _behind_clear(self, scanner):
        """Whether no look-behind alternative of the state can match at the
        read position: the character before it is none of the scanner's
        `behind` characters (at the very start, the look-behind meets the
        start of the text, where the `regex` module may report a partial match)."""
        behind = scanner.behind
        pos = self._pos
        return pos > 0 and self._buf[pos - 1] not in behind

    def _cut_context(self, size=None):
        """CONTEXT -1 with a ContextCut: drop the text no look-behind can read
        any more (see ContextCut), so the buffer, the key of the remembered
        steps, is short again after each barrier. Each barrier is searched
        for in new text only: every character is searched a bounded number
        of times. Only the buffer's first `size` characters (default: all)
        are read: the text _append added after them when it left the cut to
        the step (see _step) is not searched here."""
        if self._cut_stale:
            self._restore_cut_state()
        if self._anchored_state is False:
            return  # the anchored look-behind is alive: it reads back to the start
        self._cut_id = None  # the bookkeeping changes from here on
        buf = self._buf
        base = self._base
        pos = self._pos
        top = base + (len(buf) if size is None else size)
        rule = self.CUT
        target = base + pos - rule.near  # absolute positions from here on
        last = self._barrier_last
        scanned = self._barrier_scanned
        heads = self._head_first
        index = 0
        for barrier, after, before, head, lead in rule.barriers:
            size = len(barrier)
            limit = base + pos - after - 1  # the last start a barrier (or head) may have
            end = limit + size
            if end > top:
                end = top
            if end - scanned[index] >= size:
                start = scanned[index] - base
                found = buf.rfind(barrier, start if start > 0 else 0, end - base)
                if found >= 0:
                    last[index] = base + found
                    if head is not None:
                        heads[index] = -1  # the head is searched for again after the new barrier
                        self._head_scanned[index] = max(base + found + 1 - len(head), 0)
                scanned[index] = end - size + 1
            if head is not None:
                # The first head after the last barrier; the text before it
                # (without one: all but `before` + `after` characters) can go.
                at = heads[index]
                if at < 0:
                    hsize = len(head)
                    hend = limit + hsize
                    if hend > top:
                        hend = top
                    hstart = self._head_scanned[index]
                    if hend - hstart >= hsize:
                        found = buf.find(head, hstart - base if hstart > base else 0, hend - base)
                        if found >= 0:
                            at = heads[index] = base + found
                        self._head_scanned[index] = hend - hsize + 1
                    if at < 0:
                        at = limit if lead is None else limit + 1
                if lead is not None:
                    at = rule.lead_run_start(index, buf, base, at)
                free = at - before
                barred = last[index] - before
                at = free if free > barred else barred
            else:
                at = last[index]
                if at < 0:
                    return  # no barrier yet: the look-behind may walk back to the start
                at -= before
            if at < target:
                target = at
            index += 1
        index = 0
        for char, count, before in rule.counted:
            # The last `count` occurrences of `char` before the read
            # position (final: the read position only moves on), searched
            # from the right in the text not searched yet.
            seen = self._counted_seen[index]
            end = base + pos
            scanned = self._counted_scanned[index]
            if end > scanned:
                found = []
                stop = end - base
                start = scanned - base if scanned > base else 0
                while len(found) < count and stop > start:
                    at = buf.rfind(char, start, stop)
                    if at < 0:
                        break
                    found.append(base + at)
                    stop = at
                if found:
                    found.reverse()
                    seen = self._counted_seen[index] = (seen + found)[-count:]
                self._counted_scanned[index] = end
            if len(seen) < count:
                return  # fewer than `count`: the look-behind may read back to the start
            at = seen[0] - before
            if at < target:
                target = at
            index += 1
        cut = target - base
        if cut <= 0:
            return
        if rule.anchored is not None:
            if self._anchored_state is None:
                # base is 0 here: nothing was cut before this was decided
                found = rule.anchored_regex().match(buf if top == base + len(buf) else buf[: top - base], partial=True)
                if found is not None:
                    if not found.partial:
                        self._anchored_state = False
                    return
                self._anchored_state = True
            self._buf = rule.sentinel + buf[cut + 1 :]
        else:
            self._buf = buf[cut:]
        self._base = target
        self._pos = pos - cut

    def _cut_state_id(self):
        """The cut's bookkeeping relative to the buffer's start, as a number
        (interned per parser class; None when its table is full): with the
        buffer and the read position it decides every later cut, so it keys
        the steps that take their cut with them (see _step). Values that
        cut the same are made one: a search mark at or before the buffer's
        start is the start (nothing before it is searched again), and a
        barrier before it, or none, is None (with a head, the look-behind
        reads from the head or the read position, not from such a barrier;
        without one, the cut is at most `before` characters ahead of the
        last barrier, so none is ever before the buffer's start). The number
        is kept until the bookkeeping changes (_cut_context forgets it)."""
        if self._cut_id is not None:
            return self._cut_id
        base = self._base
        state = (
            tuple(None if at < base else at - base for at in self._barrier_last),
            tuple(at - base if at > base else 0 for at in self._barrier_scanned),
            tuple(None if at < 0 else at - base for at in self._head_first),
            tuple(at - base if at > base else 0 for at in self._head_scanned),
            tuple(tuple(at - base for at in seen) for seen in self._counted_seen),
            tuple(at - base if at > base else 0 for at in self._counted_scanned),
            self._anchored_state,
        )
        states = self._cut_states
        known = states.get(state)
        if known is None:
            if len(states) >= PLAIN_TOKENS:
                return None
            known = states[state] = len(states) // 2
            states[known] = state  # ids are ints, states tuples: one dict holds both ways
        self._cut_id = known
        return known

    def _restore_cut_state(self):
        """The cut's bookkeeping from its relative form (after replayed steps)."""
        base = self._base
        last, scanned, heads, heads_scanned, seen, seen_scanned, self._anchored_state = self._cut_states[self._cut_id]
        self._barrier_last = [-1 if at is None else base + at for at in last]
        self._barrier_scanned = [base + at for at in scanned]
        self._head_first = [-1 if at is None else base + at for at in heads]
        self._head_scanned = [base + at for at in heads_scanned]
        self._counted_seen = [[base + at for at in one] for one in seen]
        self._counted_scanned = [base + at for at in seen_scanned]
        self._cut_stale = False

    def _append(self, text):
        """The held pieces and `text` join the buffer, the consumed text no
        look-behind reads dropped first (the join of the pieces, the
        ContextCut, and `_grow` in one: this runs at every token off the
        common path)."""
        pieces = self._pieces
        held = ""
        if pieces:
            held = "".join(pieces)
            self._pieces = []
        if self._matches:
            self._matches.clear()
        buf = self._buf
        self._buf = ""  # the local is its only reference: `+=` extends it in place (see _grow)
        # With CONTEXT >= 0 there is nothing to trim here: _note_held (after
        # every step) and _materialize leave at most CONTEXT characters
        # before the read position.
        if self.CUT is not None:
            # CONTEXT -1 with a ContextCut (the compiler makes one only for
            # CONTEXT -1): the text no look-behind can read
            # any more goes, right before the step that reads the buffer. A
            # state without a scanner cuts only a buffer longer than LAZY_CUT
            # (UNCUT: not at all; its steps are remembered only then, see
            # _step): a cut at every token would cost more than its short
            # searches. A step that will be remembered takes the cut with
            # it: the cut is a function of this buffer, the read position
            # and the bookkeeping (_cut_state_id), so both are recorded as one.
            if self._scanner is None and len(buf) <= LAZY_CUT:
                self._uncut = CUT_DONE if self._cut_state_id() is None else UNCUT
            elif (
                self._scanner is not None
                and len(buf) + len(held) + len(text) <= STEP_LIMIT
                and self._cut_state_id() is not None
            ):
                self._uncut = len(buf)
            else:
                self._uncut = CUT_DONE
                self._buf = buf
                self._cut_context()
                buf = self._buf
                self._buf = ""
        if held:
            buf += held
        buf += text  # a long text is copied once (an empty buffer takes it as it is)
        self._buf = buf

    # -- the state machine -------------------------------------------------

    def _scan(self, watch, eos):
        """Best committable match and the hold position (see SPEC step 2-3)."""
        buf = self._buf
        pos = self._pos
        size = len(buf)
        hold = size
        best = None
        best_start = best_len = 0
        skip = 0
        if size - pos > LONG_TEXT:  # whole-text parsing: all the state's strings found in one go
            horizon = self._horizons().get(self._state)
            if horizon is not None:
                skip = horizon.first(buf, pos, self._base, self._memo)
                watch = horizon.watch
        for entry in watch:
            kind, index, delim = entry
            if delim.literals is not None:
                # Only a match starting by the best one's start can win: the
                # literals are looked for no further (whole texts: literals come
                # last, see Horizon). Any partial match would start after the
                # best one (it starts among the last `longest` characters),
                # so there is none to look for when none is found.
                stop = best_start if best is not None and best_start + delim.longest < size else -1
                found = delim.find(buf, pos, self._base, self._memo, skip, stop)
                if found is None:
                    if not eos and stop < 0:
                        start = delim.partial_start(buf, pos)
                        if 0 <= start < hold:
                            hold = start
                    continue
                start, end = found
                match = None
                if not eos and end == size and delim.grows_at_edge:
                    if start < hold:
                        hold = start
                    continue
            else:
                # Memoised while the buffer is unchanged (whole-text parsing
                # searches again after every region): a complete match or a
                # partial one at or after `pos` is still the answer from `pos`.
                key = (self._base, size, eos)
                cached = self._matches.get(delim)
                if (
                    cached is not None
                    and cached[0] == key
                    and pos >= cached[1]
                    and (cached[2] is None or cached[2].start() >= pos)
                ):
                    match = cached[2]
                else:
                    searcher = delim
                    if delim.settled is not None:
                        searcher = delim.settled.choose(buf, pos, self._base, self._memo) or delim
                    match = searcher.search(buf, pos, not eos, skip)
                    self._matches[delim] = (key, pos, match)
                if match is None:
                    continue
                start, end = match.span()
                if not eos and (match.partial or end == size):
                    if start < hold:
                        hold = start
                    continue
                if not delim.group_names:
                    match = None  # no captures to read (groupdict costs as much as the match's span)
            length = end - start
            if best is not None:
                if start > best_start:
                    continue
                if start == best_start:
                    if length < best_len:
                        continue
                    if length == best_len:
                        if kind > best[0]:
                            continue
                        if kind == best[0] and self.FIELDS[index].name >= self.FIELDS[best[1]].name:
                            continue
            best = (kind, index, start, end, match)
            best_start, best_len = start, length
        if best is not None and best_start >= hold:
            best = None
        return best, hold

    def _scan_remembered(self, watch, eos):
        """`_scan`, remembered per parser class for short tails: its answer
        depends only on the state, the unconsumed text with the context the
        state's regex delimiters read behind it (SCAN_CONTEXT: a state that
        reads nothing behind is keyed on the tail alone, though another
        state's look-behind makes the template keep more), whether that
        starts the whole text, and `eos`; stream shapes repeat the same few
        tails at every call."""
        pos = self._pos
        buf = self._buf
        context = self.SCAN_CONTEXT.get(self._state, self.CONTEXT)  # what this state's delimiters read behind
        if (len(buf) > SCAN_CONTEXT_LIMIT) if context < 0 else (len(buf) - pos > 64):
            best, hold = self._scan(watch, eos)
            if best is not None and best[4] is not None:
                kind, index, start, end, match = best
                best = kind, index, start, end, {k: v for k, v in match.groupdict().items() if v is not None}
            return best, hold
        behind = context if 0 <= context <= pos else pos  # CONTEXT -1: all of the (short or cut) buffer
        key = (
            self._state,
            eos,
            self._base == 0 and pos == behind,
            behind,
            buf[pos - behind :] if behind else buf[pos:],
        )
        table = self._scan_table
        known = table.get(key)
        if known is None:
            best, hold = self._scan(watch, eos)
            if best is not None:
                kind, index, start, end, match = best
                captures = None
                if match is not None:
                    captures = {key: value for key, value in match.groupdict().items() if value is not None}
                known = ((kind, index, start - pos, end - pos, captures), hold - pos)
            else:
                known = (None, hold - pos)
            if len(table) < PLAIN_TOKENS:
                table[key] = known
        best, hold = known
        if best is not None:
            kind, index, start, end, captures = best
            return (kind, index, start + pos, end + pos, captures), hold + pos
        return None, hold + pos

    def _step(self, events, scanner):
        """The general step on a buffer just trimmed (all of the unconsumed
        text and the context behind it): the state's `scanner`, when given,
        answers the hold-back question if it can, else `_process(events,
        False)` searches. Remembered per parser class: what it does depends
        only on the state, whether the region has text, whether the buffer
        starts the whole text, the read position and the buffer, so a step
        seen before replays what it did (routes, opens, closes: the region
        values are still computed) without asking the scanner or searching.
        Streams of many tool calls repeat the same few steps at every call
        (`</tool_call>` after `}\\n`, an open with its body's first piece).
        The step ends with `_note_held`; its outcome is a function of the
        same key (the pieces are empty after `_append`), so it is recorded
        with the step and set again on a replay. With a ContextCut, the
        cut _append left to the step (`_uncut`, the length of the buffer it
        reads) is part of it too: the cut is a function of that buffer, the
        read position and the cut's bookkeeping (its number, `_cut_id`, in
        the key), so a call's steps replay their cut as well."""
        self._chain = None  # set again below when this step is remembered
        buf = self._buf
        pos = self._pos
        uncut = self._uncut
        # A state without a scanner (CONTEXT -1) remembers only the steps on
        # a buffer _append left short and uncut, and of those only the ones
        # that open or close (below): its other steps route text never met
        # again, and its buffer is all of the text up to the last cut.
        scannerless = self._scanner is None
        if (
            len(buf) - pos > STEP_LIMIT
            or self.CONTEXT < 0
            and (len(buf) > STEP_LIMIT or scannerless and uncut != UNCUT)
        ):
            self._answer(events, scanner)
            self._note_held()
            return None
        base = self._base
        if uncut == CUT_DONE:
            key = (self._state, self._opened, base == 0, pos, buf, scanner is None)
        else:
            self._uncut = CUT_DONE
            key = (self._state, self._opened, base == 0, pos, buf, scanner is None, uncut, self._cut_id)
        table = self._step_table
        known = table.get(key)
        if known is not None:
            self._replay(events, known)
            return known
        if uncut >= 0:
            self._cut_context(uncut)
        trace = self._trace = []
        try:
            self._answer(events, scanner)
        finally:
            self._trace = None
        self._note_held()
        if len(table) >= PLAIN_TOKENS or scannerless and all(op[0] == ROUTE_OP for op in trace):
            return None
        cut_id = None
        if uncut != CUT_DONE:
            cut_id = self._cut_state_id()
            if cut_id is None:
                return None  # the table of cut states is full: the step is not remembered
        mode = HOT_MODE if self._hot is not None else LEAD_HOT_MODE if self._lead_hot is not None else 0
        # The steps that may follow this one from the same state (see
        # _feed_general): not after a cut _append took (outside the step),
        # nor while held text waits in the pieces.
        chain = {} if (cut_id is not None or self.CUT is None) and not self._pieces else None
        known = table[key] = (
            tuple(trace),
            self._buf,
            self._base - base,
            self._pos,
            mode,
            self._held_in_lead,
            tuple(self._pieces),
            cut_id,
            chain,
        )
        if chain is not None:
            self._chain = chain
            self._chain_at = len(self._body)
        return known

    def _replay(self, events, known):
        """Do again what a remembered step did (see _step)."""
        ops, buf, cut, pos, mode, held_in_lead, pieces, cut_id, chain = known
        if cut_id is not None:
            # The cut's bookkeeping is this number until _cut_context needs
            # its lists (see _restore_cut_state).
            self._cut_id = cut_id
            self._cut_stale = True
        for op in ops:
            kind = op[0]
            if kind == ROUTE_OP:
                self._route(events, op[1])
            elif kind == OPEN_OP:
                self._open(events, op[1], op[2])
            else:
                self._close(events)
        # What _note_held did after this step the first time. (`_hot` and
        # `_lead_hot` are None here: every way into a step has closed the
        # common path, see _feed_general and _materialize.)
        self._buf = buf
        self._base += cut
        self._pos = pos
        self._held_in_lead = held_in_lead
        scanner = self._scanner
        if scanner is not None and scanner.later is not scanner and self._base + pos:
            scanner = self._scanner = scanner.later  # as _note_held did, whatever it left open
        if mode:
            self._pieces = list(pieces)
            self._stale = True
            self._hot_from = len(self._body)
            if mode == HOT_MODE:
                self._hot = scanner.plain
            else:
                self._lead_hot = scanner
        if chain is not None:
            self._chain = chain
            self._chain_at = len(self._body)

    def _answer(self, events, scanner):
        """`_step` without the table."""
        pos = self._pos
        buf = self._buf
        if (
            scanner is not None
            and len(buf) - pos <= SETTLE_LIMIT
            and (not scanner.behind or self._behind_clear(scanner))
        ):
            # (longer rests are whole-text parsing: the search reads the text once, see _settle)
            tail = buf[pos:]
            hold = scanner.hold(tail)
            if hold >= 0:
                if hold:
                    self._route(events, tail[:hold] if hold < len(tail) else tail)
                    self._pos = pos + hold
                return
        self._process(events, False)

    def _process(self, events, eos):
        watch_sets = self.WATCH
        while True:
            best, hold = self._scan_remembered(watch_sets[self._state], eos)
            if best is not None:
                kind, index, start, end, match = best
                if start > self._pos:
                    self._route_closing(events, start)
                self._pos = end
                if self._lost is not None:
                    self._regain_context()
                if kind == OPEN:
                    self._close(events)
                    self._open(events, index, match)
                else:
                    had_text = self._opened
                    self._close(events)
                    if not had_text and start == end:
                        break  # a zero-width close of an empty region would fire forever
                if not eos and self._settle(events):
                    break
                continue
            if eos:
                if self._pos < len(self._buf):
                    self._route_closing(events, len(self._buf))
                    self._pos = len(self._buf)
                self._close(events)
                break
            if hold > self._pos:
                self._route(events, self._buf[self._pos : hold])
                self._pos = hold
            break

    def _route_closing(self, events, end):
        """Route the buffer from the read position to `end`, right before
        the current region closes. In a whole text (parse_response, whose
        events nobody reads) a long body that is the region's only piece is
        sliced without the whitespace its close would strip: the slice is
        then the value as it is, where slicing and then stripping copied a
        whole region twice (at 128k tokens about a pass over the text).
        Only when something else than whitespace is left, so the region is
        opened exactly as by the raw slice. (No step that routes this much
        is remembered, see _step, so no trace records the slice.)"""
        buf = self._buf
        start = self._pos
        if self._whole and end - start > SETTLE_LIMIT and not self._body and self._current is not None:
            if self.FIELDS[self._current].strips:
                last = end
                while start < last and buf[start].isspace():
                    start += 1
                while last > start and buf[last - 1].isspace():
                    last -= 1
                if start < last:
                    self._route(events, buf[start:last])
                    return
                start = self._pos
        self._route(events, buf[start:end])

    def _settle(self, events):
        """After a transition, before any search: the new state's scanner
        answers the hold-back question for the rest of the buffer when it
        can (no trigger string in it), as on the common path. True when it
        did (the rest is routed up to the hold), False when only the
        delimiters' search can tell."""
        scanner = self._scanner
        if scanner is None:
            return False
        pos = self._pos
        buf = self._buf
        size = len(buf)
        if pos >= size:
            return True
        if size - pos > SETTLE_LIMIT or (scanner.behind and not self._behind_clear(scanner)):
            return False  # whole-text parsing: the search finds the next delimiter once
        hold = scanner.hold(buf[pos:] if pos else buf)
        if hold < 0:
            return False
        if hold:
            self._route(events, buf[pos : pos + hold])
            self._pos = pos + hold
        return True

    def _route(self, events, text):
        """Text goes to the current region (nothing to the null sink)."""
        current = self._current
        if current is None or not text:
            return
        if self._trace is not None:
            self._trace.append((ROUTE_OP, text))
        field = self.FIELDS[current]
        if not self._opened:
            events.append({"type": "region_open", "field": field.name})
            self._opened = True
        self._body.append(text)
        events.append({"type": "region_chunk", "field": field.name, "text": text, "dirty": field.dirty})

    def _enter_implicit(self):
        """The implicit region (or the null sink) becomes current."""
        self._current = self.IMPLICIT  # field index, or None for the null sink
        self._state = -1
        self._scanner = self._scanner_of[-1]
        if self.IMPLICIT is None:
            self._name = self._dirty = self._chunk = None
        else:
            field = self.FIELDS[self.IMPLICIT]
            self._name, self._dirty, self._chunk = field.name, field.dirty, field.chunk

    def _open(self, events, index, match):
        if self._trace is not None:
            self._trace.append((OPEN_OP, index, match))
        field = self.FIELDS[index]
        self._current = index
        self._state = index
        self._scanner = self._scanner_of[index]
        self._name, self._dirty, self._chunk = field.name, field.dirty, field.chunk
        self._captures = {} if match is None else dict(match)  # the open's named groups
        self._body = []
        self._append_body = self._body.append
        self._opened = True
        events.append({"type": "region_open", "field": field.name})

    def _close(self, events):
        """Close the current region (if it ever opened) and return to the implicit one."""
        if self._trace is not None:
            self._trace.append((CLOSE_OP,))
        current = self._current
        if current is not None and self._opened:
            field = self.FIELDS[current]
            value = close_region(field, self._output, self._body, self._captures, self._tool_params)
            events.append({"type": "region_close", "field": field.name, "value": value})
        self._enter_implicit()
        self._captures = {}
        self._body = []
        self._append_body = self._body.append
        self._opened = False


WHOLE_LIMIT = 32768  # texts up to this long go to the module's whole-text parse (runtime/whole.py)


def run_parse_response(parser_class, text, prefix, tools, whole=None):
    """`parse_response` for one text or a batch (list of texts, with one
    prefix for all or one per text). A text up to WHOLE_LIMIT characters
    goes to `whole` (the generated module's search of the whole text);
    a longer one to the streaming machine's whole-text path."""
    if prefix is None:
        parser_class(None)  # raises the missing-prefix ValueError
    if isinstance(text, str):
        texts, batched = [text], False
    elif isinstance(text, (list, tuple)):
        texts, batched = list(text), True
    else:
        raise TypeError(f"parse_response expects a str or a list of str, got {type(text).__name__}")
    if isinstance(prefix, str):
        prefixes = [prefix] * len(texts)
    elif isinstance(prefix, (list, tuple)):
        if not prefix:
            prefixes = [""] * len(texts)
        elif len(prefix) != len(texts):
            raise ValueError(
                f"Got {len(texts)} response(s) but {len(prefix)} prefix(es); `prefix` must be one string "
                "(used for every response) or one per response."
            )
        else:
            prefixes = list(prefix)
    else:
        raise TypeError(f"prefix must be a str or a list of str, got {type(prefix).__name__}")
    messages = []
    for one_text, one_prefix in zip(texts, prefixes):
        if whole is not None and type(one_text) is str and type(one_prefix) is str and len(one_text) <= WHOLE_LIMIT:
            messages.append(whole(one_text, one_prefix, tools))
            continue
        parser = parser_class(one_prefix, tools=tools)
        if len(one_text) > SETTLE_LIMIT and isinstance(one_text, str):
            # A whole text is no token: straight to the search, without the
            # common path's table lookup (which would hash all of it).
            parser._feed_whole(one_text)
        else:
            parser.feed(one_text)
        messages.append(parser.finalize()[0])
    return messages if batched else messages[0]
