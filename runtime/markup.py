"""The content parsers with options that read the body with regexes:
`xml-inline`, `kv-lines` and their value parsers, and json's dialect
rewrites (`string_delims`, `unquoted_keys`).

They register themselves with runtime/values.py (CONTENT_PARSERS,
PREPARED, REWRITES) when imported: runtime.core imports this module, and
`--vendor` inlines it only for a template whose fields use one of them
(compiler/backends/python/vendor.py).
"""

import re
from json.encoder import encode_basestring_ascii

from runtime.values import (
    CONTENT_PARSERS,
    PREPARED,
    REWRITES,
    SAME_IN_RE,
    parse_content,
    parse_text,
    prepared_parser,
    regex_module,
)

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


# Sentinels standing in for custom-delimited strings while the JSON is fixed
# up; a body that already holds them cannot be parsed safely.
_SENTINEL_OPEN, _SENTINEL_CLOSE = "\x01", "\x02"


_UNQUOTED_KEY = re.compile(r"(?<=[{,])(\w+):")


def _quoted_key(match):
    return '"' + match.group(1) + '":'


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


def rewrite_json(text, args):
    """json's dialect rewrites, in the reference's order: string_delims to
    sentinels, unquoted_keys, sentinels to JSON strings (`parse_json`
    parses the result)."""
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
    return working


CONTENT_PARSERS.update({"xml-inline": parse_xml_inline, "kv-lines": parse_kv_lines})
PREPARED["xml-inline"] = xml_inline_parser
REWRITES["json"] = rewrite_json
