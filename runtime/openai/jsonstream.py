"""Incremental JSON: a reader reporting values, keys and string text as they
stream (with the json content parser's dialects), and the writer of an
arguments value in json.dumps layout from those reports."""

import json
import re


class _Builder:
    """Builds the Python value of a held argument from reader events."""

    def __init__(self):
        self.stack = []  # [container, pending key]
        self.parts = None
        self.done = False
        self.result = None

    def _add(self, value):
        if not self.stack:
            self.result = value
            self.done = True
            return
        top = self.stack[-1]
        if isinstance(top[0], dict):
            top[0][top[1]] = value
        else:
            top[0].append(value)

    def value(self, kind, scalar):
        if kind == "obj":
            self.stack.append([{}, None])
        elif kind == "arr":
            self.stack.append([[], None])
        elif kind == "str":
            self.parts = []
        else:
            self._add(scalar)

    def key(self, key):
        self.stack[-1][1] = key

    def chars(self, text):
        self.parts.append(text)

    def end(self, kind):
        if kind == "str":
            text, self.parts = "".join(self.parts), None
            self._add(text)
        else:
            container = self.stack.pop()[0]
            self._add(container)


def _escape(text):
    return json.dumps(text)[1:-1]


class _ArgsWriter:
    """Writes an arguments value in json.dumps layout into a call, from reader events."""

    def __init__(self, call, caster, tools):
        self.call = call
        self.caster = caster
        self.tools = tools
        self.stack = []  # per open container: [is_object, first, key]
        self.held = None  # _Builder of a member that may be cast
        self.held_types = None
        self.held_depth = 0

    def _open_value(self):
        """Separator and hold decision before a value inside the arguments."""
        out = ""
        if self.stack:
            top = self.stack[-1]
            if not top[0]:
                if not top[1]:
                    out = ", "
                top[1] = False
            elif len(self.stack) == 1 and self.caster is not None:
                types = self.caster(top[2])
                if types is not None:
                    self.held = _Builder()
                    self.held_types = types
        return out

    def value(self, kind, scalar):
        if self.held is not None:
            self.held.value(kind, scalar)
            return
        out = self._open_value()
        if self.held is not None:
            self.call.write(out)
            self.held.value(kind, scalar)
            self._release()
            return
        if kind == "obj":
            self.stack.append([True, True, None])
            out += "{"
        elif kind == "arr":
            self.stack.append([False, True, None])
            out += "["
        elif kind == "str":
            out += '"'
        else:
            out += json.dumps(scalar)
        self.call.write(out)

    def key(self, key):
        if self.held is not None:
            self.held.key(key)
            return
        top = self.stack[-1]
        out = json.dumps(key) + ": "
        if not top[1]:
            out = ", " + out
        top[1] = False
        top[2] = key
        self.call.write(out)

    def chars(self, text):
        if self.held is not None:
            self.held.chars(text)
        else:
            self.call.write(_escape(text))

    def end(self, kind):
        if self.held is not None:
            self.held.end(kind)
            self._release()
            return
        if kind == "str":
            self.call.write('"')
        else:
            self.stack.pop()
            self.call.write("}" if kind == "obj" else "]")

    def _release(self):
        if self.held.done:
            value = self.tools.cast(self.held.result, self.held_types)
            self.held = None
            self.call.write(json.dumps(value))


# The json reader: json.loads' grammar (NaN, Infinity and -Infinity included),
# read incrementally. Anything it does not accept stops it: the parser's close
# then decides (it raises, or the value comes whole at close).

_WS = frozenset(" \t\n\r")
_TOKEN_CHARS = frozenset("0123456789+-.eEabcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")

_VALUE, _ARRAY_FIRST, _OBJECT_FIRST, _KEY, _COLON, _AFTER, _DONE, _STRING, _ESCAPE, _UNICODE, _TOKEN = range(11)


class _JsonReader:
    """Incremental JSON reader reporting to a handler: value(path, kind, scalar)
    for every value start (kind "obj", "arr", "str") or complete scalar
    ("scalar"), key(k) after an object key and its colon, chars(text) for the
    decoded text of a string value, end(kind) at the end of an obj/arr/str."""

    def __init__(self, handler):
        self.handler = handler
        self.state = _VALUE
        self.path = []  # key or index per open container
        self.objects = []  # True per open object, False per open array
        self.token = []
        self.hex = ""
        self.high = ""  # a high surrogate escape waiting for a low one
        self.in_key = False
        self.key_parts = []
        self.failed = False

    def feed(self, text):
        if self.failed:
            return
        try:
            self._feed(text)
        except _Stop:
            self.failed = True

    def _fail(self):
        raise _Stop()

    def _feed(self, text):
        position, size = 0, len(text)
        while position < size:
            state = self.state
            if state == _STRING:
                match = _STRING_RUN.match(text, position)
                if match:
                    self._text(match.group())
                    position = match.end()
                    continue
                char = text[position]
                position += 1
                if char == '"':
                    self._string_end()
                elif char == "\\":
                    self.state = _ESCAPE
                else:
                    self._fail()  # a control character
            elif state == _ESCAPE:
                char = text[position]
                position += 1
                if char == "u":
                    self.state = _UNICODE
                    self.hex = ""
                elif char in _ESCAPES:
                    self._text(_ESCAPES[char])
                    self.state = _STRING
                else:
                    self._fail()
            elif state == _UNICODE:
                char = text[position]
                position += 1
                if char not in _HEX:
                    self._fail()
                self.hex += char
                if len(self.hex) == 4:
                    self._code(int(self.hex, 16))
                    self.state = _STRING
            elif state == _TOKEN:
                end = position
                while end < size and text[end] in _TOKEN_CHARS:
                    end += 1
                self.token.append(text[position:end])
                position = end
                if end < size:
                    self._token_end()
            else:
                char = text[position]
                position += 1
                if char in _WS:
                    continue
                self._structural(state, char)

    def _structural(self, state, char):
        if state in (_VALUE, _ARRAY_FIRST):
            if state == _ARRAY_FIRST and char == "]":
                self._end_container(False)
            else:
                self._value(char)
        elif state in (_OBJECT_FIRST, _KEY):
            if char == '"':
                self.in_key = True
                self.key_parts = []
                self.state = _STRING
            elif char == "}" and state == _OBJECT_FIRST:
                self._end_container(True)
            else:
                self._fail()
        elif state == _COLON:
            if char != ":":
                self._fail()
            self.handler.key(self.path[-1])
            self.state = _VALUE
        elif state == _AFTER:
            is_object = self.objects[-1]
            if char == ",":
                if is_object:
                    self.state = _KEY
                else:
                    self.path[-1] += 1
                    self.state = _VALUE
            elif char == ("}" if is_object else "]"):
                self._end_container(is_object)
            else:
                self._fail()
        else:
            self._fail()  # extra data after the value

    def _value(self, char):
        if char == "{":
            self.handler.value(tuple(self.path), "obj")
            self.objects.append(True)
            self.path.append(None)
            self.state = _OBJECT_FIRST
        elif char == "[":
            self.handler.value(tuple(self.path), "arr")
            self.objects.append(False)
            self.path.append(0)
            self.state = _ARRAY_FIRST
        elif char == '"':
            self.handler.value(tuple(self.path), "str")
            self.in_key = False
            self.state = _STRING
        elif char in _TOKEN_CHARS:
            self.token = [char]
            self.state = _TOKEN
        else:
            self._fail()

    def _after_value(self):
        self.state = _AFTER if self.objects else _DONE

    def _end_container(self, is_object):
        self.objects.pop()
        self.path.pop()
        self.handler.end("obj" if is_object else "arr")
        self._after_value()

    def _token_end(self):
        token = "".join(self.token)
        if token in _LITERALS:
            value = _LITERALS[token]
        else:
            match = _NUMBER.fullmatch(token)
            if match is None:
                self._fail()
            try:
                value = float(token) if match.group(1) or match.group(2) else int(token)
            except ValueError:
                self._fail()
        self.handler.value(tuple(self.path), "scalar", value)
        self._after_value()

    # -- strings -----------------------------------------------------------

    def _text(self, text):
        if self.high:
            text = self.high + text
            self.high = ""
        if self.in_key:
            self.key_parts.append(text)
        else:
            self.handler.chars(text)

    def _code(self, code):
        if self.high and 0xDC00 <= code <= 0xDFFF:
            high = ord(self.high)
            self.high = ""
            self._text(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
        elif 0xD800 <= code <= 0xDBFF:
            if self.high:
                self._text("")
            self.high = chr(code)
        else:
            self._text(chr(code))

    def _string_end(self):
        if self.high:
            self._text("")
        if self.in_key:
            self.in_key = False
            self.path[-1] = "".join(self.key_parts)
            self.state = _COLON
        else:
            self.handler.end("str")
            self._after_value()


class _Stop(Exception):
    pass


class _Dialect:
    """The json content parser's dialect options, applied as the text streams:
    `string_delims` (one pair) become JSON strings, `unquoted_keys` get quoted.
    Returns the JSON text known so far; holds back what the next text could change."""

    def __init__(self, delims, unquoted, rx):
        self.open, self.close = delims if delims else (None, None)
        self.key_pattern = rx.compile(r"(?<=[{,])(\w+):") if unquoted else None
        self.tail_word = rx.compile(r"\w+\Z") if unquoted else None
        self.raw = ""
        self.in_string = False
        self.before = ""  # the character before the held text, for the key look-behind
        self.failed = False

    def feed(self, text):
        if self.failed:
            return ""
        if self.open is not None and ("\x01" in text or "\x02" in text):
            self.failed = True  # the parser refuses these
            return ""
        raw = self.raw + text
        out = []
        while True:
            if self.in_string:
                found = raw.find(self.close)
                if found < 0:
                    keep = _partial_suffix(raw, self.close)
                    out.append(_escape(raw[: len(raw) - keep]))
                    raw = raw[len(raw) - keep :]
                    break
                out.append(_escape(raw[:found]) + '"')
                raw = raw[found + len(self.close) :]
                self.in_string = False
                self.before = "\x02"
                continue
            found = raw.find(self.open) if self.open is not None else -1
            if found >= 0:
                out.append(self._plain(raw[:found]) + '"')
                raw = raw[found + len(self.open) :]
                self.in_string = True
                self.before = "\x01"
                continue
            keep = _partial_suffix(raw, self.open) if self.open is not None else 0
            plain = raw[: len(raw) - keep]
            if self.tail_word is not None:
                match = self.tail_word.search(plain)
                if match:
                    plain = plain[: match.start()]
            out.append(self._plain(plain))
            raw = raw[len(plain) :]
            break
        self.raw = raw
        return "".join(out)

    def _plain(self, text):
        if not text:
            return ""
        if self.key_pattern is not None:
            before = self.before or "\x00"
            text_out = self.key_pattern.sub(r'"\1":', before + text)[len(before) :]
        else:
            text_out = text
        self.before = text[-1]
        return text_out


def _partial_suffix(text, delimiter):
    """Length of the longest end of `text` that is a proper prefix of `delimiter`."""
    for size in range(min(len(text), len(delimiter) - 1), 0, -1):
        if text.endswith(delimiter[:size]):
            return size
    return 0
