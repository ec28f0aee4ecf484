"""One tool-call region's body, read as it streams: json bodies through the
incremental reader, xml-inline bodies one settled parameter at a time."""

import json

from .jsonstream import _ArgsWriter, _Dialect, _JsonReader


class _Region:
    """A tool-call region sent at close."""

    def __init__(self, tools):
        self.tools = tools
        self.calls = []
        self.stopped = True

    def feed(self, text):
        pass

    def finish(self):
        pass


# --------------------------------------------------------------------------
# json bodies
# --------------------------------------------------------------------------


class _JsonRegion(_Region):
    """Reads a json body as it streams and writes each call's arguments."""

    def __init__(self, tools, plan, captures):
        super().__init__(tools)
        self.stopped = False
        self.plan = plan
        self.reader = _JsonReader(self)
        delims, unquoted = plan.dialect
        self.dialect = _Dialect(delims, unquoted, tools.rx) if (delims or unquoted) else None
        self.routes = []  # per open string/container: "args", "name" or None
        self.writer = None
        self.call = None
        self.args_call = None
        self.name_parts = None
        self.root = 1 if plan.each else 0
        if not plan.each:
            self._start_call(captures)

    def _start_call(self, captures):
        call = self.tools.new_call()
        self.calls.append(call)
        self.call = call
        plan = self.plan
        if plan.name_const is not None:
            call.name = plan.name_const
        elif plan.name_capture is not None and captures is not None:
            name = captures.get(plan.name_capture)
            if isinstance(name, str):
                call.name = name

    def feed(self, text):
        if self.dialect is not None:
            text = self.dialect.feed(text)
        if text:
            self.reader.feed(text)
        if self.reader.failed:
            self.stop()

    def stop(self):
        self.stopped = True
        self.writer = None

    # -- reader events -----------------------------------------------------

    def value(self, path, kind, scalar=None):
        routes = self.routes
        route = routes[-1] if routes else None
        if route == "args":
            self.writer.value(kind, scalar)
        else:
            route = None
            if self.plan.each and len(path) == 1:
                self._start_call(None)
                if kind != "obj":
                    self.call = None
            call = self.call
            if call is not None and len(path) >= self.root:
                relative = path[self.root :]
                if relative == self.plan.args_path and call is not self.args_call:
                    self.args_call = call  # a repeated key is left to the close
                    route = self._start_args(call, kind, scalar)
                elif relative == self.plan.name_path:
                    if kind == "str":
                        route = "name"
                        self.name_parts = []
        if kind in ("obj", "arr", "str"):
            routes.append(route)

    def _start_args(self, call, kind, scalar):
        if kind not in ("obj", "arr"):
            return None
        try:
            caster = self.tools.caster(call.name)
        except LookupError:
            return None  # the schema depends on a name not written yet: send at close
        self.writer = _ArgsWriter(call, caster, self.tools)
        self.writer.value(kind, scalar)
        return "args"

    def key(self, key):
        if self.routes and self.routes[-1] == "args":
            self.writer.key(key)

    def chars(self, text):
        route = self.routes[-1]
        if route == "args":
            self.writer.chars(text)
        elif route == "name":
            self.name_parts.append(text)

    def end(self, kind):
        route = self.routes.pop()
        if route == "args":
            self.writer.end(kind)
            if not self.routes or self.routes[-1] != "args":
                self.writer = None
        elif route == "name":
            if self.call is not None and self.call.name is None:
                self.call.name = "".join(self.name_parts)
            self.name_parts = None


# --------------------------------------------------------------------------
# xml-inline bodies
# --------------------------------------------------------------------------


def _top_level_alternation(pattern):
    depth, position, in_class = 0, 0, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if pattern[position + 1 : position + 2] == "^":
                position += 1
            if pattern[position + 1 : position + 2] == "]":
                position += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
        position += 1
    return False


def _never_at_end(pattern):
    """`pattern` with `$` and `\\Z` made never to match; None when it has other
    assertions whose answer at the end of the text seen could change."""
    out, position, in_class = [], 0, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            escaped = pattern[position + 1 : position + 2]
            if not in_class:
                if escaped == "Z":
                    out.append("(?!)")
                    position += 2
                    continue
                if escaped in ("b", "B", "G", "m", "M", "z"):
                    return None
            out.append(pattern[position : position + 2])
            position += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern[position + 1 : position + 2] == "^":
                out.append("^")
                position += 1
            if pattern[position + 1 : position + 2] == "]":
                out.append("]")
                position += 1
        elif char == "$":
            out.append("(?!)")
        else:
            out.append(char)
        position += 1
    return "".join(out)


class _XmlPlan:
    """The parameter pattern (and the outer wrapper, if any) of an xml-inline body."""

    def __init__(self):
        self.outer_end = None  # the outer pattern after its `(?P<value>.*)`: where its value ends
        self.outer = None  # the whole outer pattern, and the key the arguments are under
        self.outer_key = None
        self.inner = None
        self.inner_written = None  # the parameter pattern as the parser uses it
        self.value_parser = None
        self.triggers = frozenset()

    @classmethod
    def of(cls, args, args_path, rx):
        plan = cls()
        if args_path == ():
            inner_args = args
        elif len(args_path) == 1:
            pattern = args.get("tag_pattern")
            parser = args.get("value_parser")
            if not isinstance(pattern, str) or not isinstance(parser, dict) or parser.get("name") != "xml-inline":
                return None
            for head in ("^(?P<value>.*)", "(?P<value>.*)"):
                if pattern.startswith(head):
                    rest = pattern[len(head) :]
                    break
            else:
                return None
            if (
                _top_level_alternation(rest)
                or "(?P<key>" not in rest
                or not (rest.endswith("$") or rest.endswith("\\Z"))
            ):
                return None
            if rest.endswith("\\$"):
                return None
            plan.outer_end = rx.compile(rest, rx.DOTALL)
            plan.outer = rx.compile(pattern, rx.DOTALL)
            plan.outer_key = args_path[0]
            if plan.outer_end.flags & rx.MULTILINE:
                return None
            inner_args = parser.get("args") or {}
        else:
            return None
        inner = inner_args.get("tag_pattern")
        if not isinstance(inner, str) or inner_args.get("merge_duplicates"):
            return None
        strict = _never_at_end(inner)
        if strict is None:
            return None
        plan.inner = rx.compile(strict, rx.DOTALL)
        plan.inner_written = rx.compile(inner, rx.DOTALL)
        if plan.inner.flags & rx.MULTILINE or "key" not in plan.inner.groupindex:
            return None
        plan.value_parser = inner_args.get("value_parser")
        plan.triggers = frozenset(char for char in inner if not char.isalnum() and char not in "\\()[]{}?*+.|^$ ")
        return plan


def _settled(pattern, text, start, end):
    """The leftmost match of `pattern` in text[start:end] if no more text can change it, else None."""
    if end <= start:
        return None
    match = pattern.search(text, start, end, partial=True)
    if match is None or match.partial or match.end() >= end:
        return None
    if match.start() > start:
        earlier = pattern.search(text, start, match.start(), partial=True)
        if earlier is not None and earlier.start() < match.start():
            return None  # an earlier attempt ran into the end
    # Greedy parts read to the end and back off without reporting it: the match
    # must stay the same when the text goes on with more of the same.
    probe = text[:end] + text[match.start() : end]
    again = pattern.search(probe, start, len(probe), partial=True)
    if again is None or again.partial or again.span() != match.span() or again.groupdict() != match.groupdict():
        return None
    return match


class _XmlRegion(_Region):
    """Sends an xml-inline call's parameters one at a time as they settle."""

    def __init__(self, tools, plan, captures):
        super().__init__(tools)
        self.stopped = False
        self.xml = plan.xml
        self.pieces = []
        self.size = 0
        self.position = 0  # end of the last parameter sent
        self.outer_from = 0  # the outer value cannot end before this
        self.members = 0
        self.tried = 0  # body length at the last search
        self.due = False  # a search was put off
        call = tools.new_call()
        self.calls.append(call)
        self.call = call
        if plan.name_const is not None:
            call.name = plan.name_const
        elif captures is not None and isinstance(captures.get(plan.name_capture), str):
            call.name = captures[plan.name_capture]
        self.caster = None
        if call.name is None and tools.params:
            self.stopped = True  # the schema depends on the name: send at close
            return
        self.caster = tools.caster(call.name)
        call.write("{")

    def _member(self, key, raw):
        value = raw
        parser = self.xml.value_parser
        if parser is not None:
            value = self.tools.core.parse_content(raw, parser.get("name", "text"), parser.get("args", {}))
        if self.caster is not None:
            types = self.caster(key)
            if types is not None:
                value = self.tools.cast(value, types)
        prefix = ", " if self.members else ""
        self.call.write(f"{prefix}{json.dumps(key)}: {json.dumps(value)}")
        self.members += 1

    def finish(self):
        """At close: the parameters not sent yet, as written (used only when
        the model repeated a key and the final arguments differ from what was sent)."""
        if self.stopped:
            return
        body = self._body()
        xml = self.xml
        if xml.outer is not None:
            values = [m.group("value") for m in xml.outer.finditer(body) if m.group("key") == xml.outer_key]
            if not values:
                return
            body = values[-1]
        matches = list(xml.inner_written.finditer(body))
        for match in matches[self.members :]:
            self._member(match.group("key"), match.group("value"))
        self.call.write("}")

    def feed(self, text):
        self.pieces.append(text)
        self.size += len(text)
        if not self.due and not any(char in self.xml.triggers for char in text):
            return
        # Each try searches the unsent text again: for a long parameter, try
        # again only once it has grown by an eighth (linear time overall).
        size = self.size
        if size - self.tried < (size - self.position) // 8:
            self.due = True
            return
        self.due = False
        self.tried = size
        body = self._body()
        end = self._outer_bound(body) - 1
        inner = self.xml.inner
        while True:
            match = _settled(inner, body, self.position, end)
            if match is None:
                break
            groups = match.groupdict()
            key, raw = groups.get("key"), groups.get("value", "")
            if not isinstance(key, str) or not isinstance(raw, str):
                self.stopped = True
                return
            self._member(key, raw)
            self.position = match.end()

    def _body(self):
        if len(self.pieces) > 1:
            self.pieces = ["".join(self.pieces)]
        return self.pieces[0] if self.pieces else ""

    def _outer_bound(self, body):
        """No position before this can be where the outer value ends."""
        pattern = self.xml.outer_end
        if pattern is None:
            return len(body)
        start = self.outer_from
        match = pattern.search(body, start, partial=True)
        bound = len(body) if match is None else match.start()
        if match is not None and not match.partial:
            while True:  # a complete match wins over an earlier partial one: look before it
                earlier = pattern.search(body, start, bound, partial=True)
                if earlier is None or earlier.start() >= bound:
                    break
                bound = earlier.start()
        self.outer_from = bound
        return bound
