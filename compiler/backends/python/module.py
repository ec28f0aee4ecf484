"""Python backend: IR -> a module of tables over the runtime (runtime.core; vendor.py inlines it)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import black
import jinja2

from ...version import __version__

# same_in_re_on_ascii is part of rendering a content parser's tag pattern, not
# a decision about the template: it stays here (every other fact is read off the IR).
from ...regex.same_in_re import same_in_re_on_ascii
from ...ir import OPEN, LiteralDelimiter, Program, TDict, TList, TLiteral, TPlaceholder, Transform
from ..literals import python_literal
from .stream import feed_code, lead_run, process_code, tail_constants
from .vendor import runtime_modules, vendored_runtime

BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY39})

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)


def runtime_core_source(program: Program) -> str:
    """The runtime code `--vendor` inlines for `program` (see vendor.py)."""
    return vendored_runtime(program)


_RUNTIME_MARK = "# @runtime@"


def _identifier(name: str) -> str:
    return re.sub(r"\W", "_", name, flags=re.ASCII).upper().strip("_") or "FIELD"


def _same_in_re(content: str, args) -> list[str]:
    """The `xml-inline` tag patterns of a field's content parser (and of its
    value parsers) that `re` runs as `regex` does on ASCII text
    (compiler/regex/same_in_re.py), in order, once each."""
    found: list[str] = []
    while isinstance(args, dict):
        pattern = args.get("tag_pattern") if content == "xml-inline" else None
        if isinstance(pattern, str) and pattern not in found and same_in_re_on_ascii(pattern):
            found.append(pattern)
        value_parser = args.get("value_parser") if content in ("xml-inline", "kv-lines") else None
        if not isinstance(value_parser, dict):
            break
        content, args = value_parser.get("name", "text"), value_parser.get("args", {})
    return found


def _context_cut_code(program: Program) -> str:
    """The ContextCut of a template keeping all of its text, or "" (Program.context_cut)."""
    cut = program.context_cut
    if cut is None:
        return ""
    barriers = "".join(
        f"({python_literal(rule.barrier)}, {rule.after}, {rule.before}, {python_literal(rule.head)}, "
        f"{python_literal(rule.lead)}), "
        for rule in cut.barriers
    )
    args = f"{cut.near}, ({barriers})"
    if cut.anchored is not None:
        args += f", anchored={python_literal(cut.anchored)}, sentinel={python_literal(cut.sentinel)}"
    if cut.counted:
        counted = "".join(f"({python_literal(rule.char)}, {rule.count}, {rule.before}), " for rule in cut.counted)
        args += f", counted=({counted})"
    return f"ContextCut({args})"


def _owner_code(owner, leads: dict, watch: list[str]) -> str:
    """An owner of a scan's trigger string (ScanPlan.owners): its lead and
    look-behind strings, or the delimiter whose regex is asked."""
    lead, after, number = owner
    return f"({'None' if lead is None else leads[lead]}, {python_literal(tuple(after))}, {'None' if number < 0 else watch[number]})"


def _lead_tuple(items, leads: dict) -> str:
    return f"({''.join(leads[lead] + ', ' for lead in items)})"


def _branches_code(delim, hint, leads: dict) -> str:
    """A pattern searched by its alternatives' trigger strings (see compiler/passes/branches.py);
    with alternatives read by their look-behind (`behind`), the regex searches all of the text."""
    args = [python_literal(delim.pattern)]
    if not hint.behind:
        args.append(f"triggers={python_literal(list(hint.triggers))}")
    if hint.leads:
        args.append(f"leads={_lead_tuple(hint.leads, leads)}")
    if hint.behind:
        args.append(f"behind={python_literal(''.join(hint.behind))}")
    settled = _settled_code(delim, leads)
    if settled:
        args.append(f"settled={settled}")
    return _pattern_code(delim, args)


def _settled_delimiters(delim) -> list:
    """The smaller patterns of a delimiter (RegexDelimiter.settled) as delimiters."""
    settled = getattr(delim, "settled", None)
    if settled is None:
        return []
    return [d for d in (settled.dead, settled.alive) if d is not None]


def _settled_code(delim, leads: dict) -> str:
    """A Settled for a pattern whose look-behind branches a long text settles, or ""."""
    settled = delim.settled
    if settled is None:
        return ""
    # Each smaller pattern is emitted as any delimiter is: searched only
    # where its (alternatives') trigger strings occur.
    args = [_delimiter_code(settled.dead, leads)]
    if settled.alive is not None:
        args.append(f"alive={_delimiter_code(settled.alive, leads)}")
        args.append(f"anchored={python_literal(settled.anchored)}, tail={settled.tail}")
    absent = "".join(f"({python_literal(literal)}, {python_literal(probe)}), " for literal, probe in settled.absent)
    args.append(f"absent=({absent})")
    return f"Settled({', '.join(args)})"


def _delimiter_code(delim, leads: dict | None = None) -> str:
    if isinstance(delim, LiteralDelimiter):
        return f"Literals({python_literal(list(delim.literals))}, grows_at_edge={delim.grows_at_edge})"
    hint = delim.hint
    if hint is None and leads is not None:
        branches = delim.branches
        if branches is not None:
            return _branches_code(delim, branches, leads)
    if hint is None or leads is None:
        return _pattern_code(delim, [python_literal(delim.pattern)])
    args = [python_literal(delim.pattern), f"triggers={python_literal(list(hint.triggers))}"]
    if hint.leads:
        args.append(f"leads=({''.join(leads[lead] + ', ' for lead in hint.leads)})")
    if hint.hold_lead is not None:
        args.append(f"first_lead={leads[hint.hold_lead]}")
    if hint.exact:
        args.append("exact=True")
    if hint.simple:
        args.append("simple=True")
    return _pattern_code(delim, args)


def _pattern_code(delim, args: list[str]) -> str:
    if delim.ends:
        args = [*args, f"ends={python_literal(delim.ends)}"]
    return f"Pattern({', '.join(args)})"


def _lead_run(whole, at: str, floor: str, indent: str, entry: dict, end: str = "") -> list[str]:
    """`r`: the start of the run of lead characters ending at `at`, not
    before `floor`, as Leads.run_start finds it (the stream's lead_run,
    indented; `end`: a literal match's end assigned beside it)."""
    lines = lead_run(whole.leads, whole.lead_ascii, at, floor, entry.setdefault("runs", {}))
    if end:
        lines[0] = f"r{end[0]} = {at}{end[1]}"
    return [indent + line for line in lines]


def _trigger_find(var: str, triggers, literal: bool, start: str, indent: str, tslots: dict):
    """The leftmost trigger string at or after `start`: (lines, its position,
    its length, which a literal match needs). Each string's next occurrence
    is remembered (`t<slot>`, -2 before the first search, -1 for nowhere)
    while it lies at or after the search's start; with several strings the
    leftmost goes to `at` (and its length to `size`)."""
    lines = []
    names = []
    for trigger in triggers:
        slot = f"t{tslots.setdefault((var, trigger), len(tslots))}"
        names.append((slot, len(trigger)))
        lines.append(f"{indent}if {slot} < {start} and {slot} != -1:")
        lines.append(f"{indent}    {slot} = buf.find({python_literal(trigger)}, {start})")
    if len(names) < 2:
        return (lines, names[0][0], str(names[0][1])) if names else (lines, "-1", "0")
    first, size = names[0]
    lines.append(f"{indent}at, size = {first}, {size}" if literal else f"{indent}at = {first}")
    for slot, size in names[1:]:  # at one position the first listed wins
        lines.append(f"{indent}if {slot} >= 0 and (at < 0 or {slot} < at):")
        lines.append(f"{indent}    at, size = {slot}, {size}" if literal else f"{indent}    at = {slot}")
    return lines, "at", "size"


def _pattern_search(var: str, whole, slot: int, tslots: dict, entry: dict) -> list[str]:
    """Pattern.search(buf, pos, False) for the whole-text parse, inline
    (RegexDelimiter.whole): `d<slot>` its start or -1, and its match in
    `m<slot>` (or, for a literal match, its end in `e<slot>`)."""
    if whole.triggers is None and not whole.behind:
        entry[f"{var}_SEARCH"] = f"{var}.compiled.search"
        return [f"    m{slot} = {var}_SEARCH(buf, pos)", f"    d{slot} = -1 if m{slot} is None else m{slot}.start()"]
    if whole.literal:
        # found nowhere: the trigger's position is -1, and so is the run's start
        lines, at, size = _trigger_find(var, whole.triggers, True, "pos", "    ", tslots)
        lines += _lead_run(whole, at, "pos", "    ", entry, (f", e{slot}", f", {at} + {size}"))
        lines.append(f"    d{slot} = r")
        return lines
    entry[f"{var}_MATCH"] = f"{var}.compiled.match"
    behind = whole.triggers is None
    # with `behind`, every match starts right after one of the look-behinds' last characters
    lines = ["    s = pos - 1 if pos else 0" if behind else "    s = pos", "    while True:"]
    found, at, _ = _trigger_find(var, whole.behind if behind else whole.triggers, False, "s", "        ", tslots)
    lines += found
    lines += [f"        if {at} < 0:", f"            m{slot} = None", "            break"]
    if behind:
        lines += [
            f"        m{slot} = {var}_MATCH(buf, {at} + 1)",
            f"        if m{slot} is not None:",
            "            break",
        ]
    elif whole.one_start:
        lines += _lead_run(whole, at, "s", "        ", entry)
        lines += [f"        m{slot} = {var}_MATCH(buf, r)", f"        if m{slot} is not None:", "            break"]
    else:
        lines += _lead_run(whole, at, "s", "        ", entry)
        lines += [
            f"        for r in range(r, {at} + 1):",
            f"            m{slot} = {var}_MATCH(buf, r)",
            f"            if m{slot} is not None:",
            "                break",
            f"        if m{slot} is not None:",
            "            break",
        ]
    lines += [f"        s = {at} + 1", f"    d{slot} = -1 if m{slot} is None else m{slot}.start()"]
    return lines


def entry_code(entry: dict, leads: dict) -> list[tuple[str, str]]:
    """The module-level names the whole-text search reads (name, code): the
    patterns' regex entry points, and per set of lead classes its ASCII
    members and the Leads that answers for other characters."""
    runs = entry.get("runs", {})
    out = [(var, code) for var, code in entry.items() if var != "runs"]
    out += [
        (f"RUN_{number}, IN_RUN_{number}", f"{python_literal(ascii)}, Leads({_lead_tuple(lead_set, leads)}).holds_char")
        for lead_set, (number, ascii) in runs.items()
    ]
    return out


def _scan_code(program: Program, state, delimiter_vars: dict, slots: dict, tslots: dict, entry: dict) -> dict:
    """A state's search at the end of the stream, for the whole-text parse:
    its watched delimiters in the order the reference breaks ties
    (State.tie_order), each taking the match only where it starts earlier
    or, at the same start, runs longer. A literal is a str.find, a pattern
    its search (inline where the IR plans it, RegexDelimiter.whole); each
    remembers where it was found (`d<slot>`, -2 before the first search, -1
    for nowhere) until the read position passes it."""
    names = [field.name for field in program.fields]
    searches, picks = [], []
    for number in state.tie_order:
        watch = state.watch[number]
        index = watch.field if watch.kind == OPEN else -1
        kind = "open" if watch.kind == OPEN else "close"
        var = delimiter_vars[(kind, watch.field)]
        delim = program.fields[watch.field].open if watch.kind == OPEN else program.fields[watch.field].close
        if isinstance(delim, LiteralDelimiter):
            candidates = []
            for literal in delim.literals:
                slot = slots.setdefault((var, literal), len(slots))
                searches.append(f"if d{slot} < pos and d{slot} != -1:")
                searches.append(f"    d{slot} = buf.find({python_literal(literal)}, pos)")
                candidates.append((f"d{slot}", f"d{slot} + {len(literal)}", str(len(literal)), "None"))
        else:
            slot = slots.setdefault((var, None), len(slots))
            searches.append(f"if d{slot} < pos and d{slot} != -1:")
            if delim.whole is None:
                searches.append(f"    m{slot} = {var}.search(buf, pos, False)")
                searches.append(f"    d{slot} = -1 if m{slot} is None else m{slot}.start()")
            else:
                searches += _pattern_search(var, delim.whole, slot, tslots, entry)
            # an open's captures are its named groups (a close's are not read)
            match = f"m{slot}" if watch.kind == OPEN and delim.group_names else "None"
            if delim.whole is not None and delim.whole.literal:
                candidates = [(f"d{slot}", f"e{slot}", f"e{slot} - d{slot}", "None")]
            else:
                candidates = [(f"d{slot}", f"m{slot}.end()", f"m{slot}.end() - d{slot}", match)]
        for at, end, size, match in candidates:
            test = (
                f"{at} >= 0"
                if not picks
                else (f"{at} >= 0 and (start < 0 or {at} < start or ({at} == start and {size} > end - start))")
            )
            picks.append(f"if {test}:")
            picks.append(f"    start, end, index, match = {at}, {end}, {index}, {match}")
    region = "implicit region" if state.region is None else names[state.region]
    comment = ", ".join(f"{w.kind} {names[w.field]}" for w in (state.watch[i] for i in state.tie_order))
    return {
        "key": -1 if state.region is None else state.region,
        "comment": f"{region}: {comment or 'nothing'}",
        "lines": searches + picks,
    }


def transform_code(node: Transform) -> str:
    if isinstance(node, TLiteral):
        return python_literal(json.loads(node.json))
    if isinstance(node, TPlaceholder):
        return f"Placeholder({python_literal(node.path)})"
    if isinstance(node, TList):
        return "[" + ", ".join(transform_code(item) for item in node.items) + "]"
    return "{" + ", ".join(f"{python_literal(k)}: {transform_code(v)}" for k, v in node.items) + "}"


def render(program: Program, *, vendored: bool = False) -> str:
    """The module's source, formatted with black."""
    names = [field.name for field in program.fields]
    leads: dict[object, str] = {}
    hints = [state.fast for state in program.states] + [
        d.hint for f in program.fields for d in (f.open, f.close) if getattr(d, "hint", None) is not None
    ]
    hints += [d.branches for f in program.fields for d in (f.open, f.close) if getattr(d, "hint", 1) is None]
    for settled in (s for f in program.fields for d in (f.open, f.close) for s in _settled_delimiters(d)):
        hints += [settled.hint, settled.branches]
    hints += [state.branch_fast for state in program.states if state.fast is None]
    for hint in hints:
        if hint is not None:
            for lead in hint.leads:
                if lead not in leads:
                    leads[lead] = f"LEAD_{len(leads)}"
    delimiters = []
    delimiter_vars: dict[tuple[str, int], str] = {}
    used: set[str] = set()
    for field in program.fields:
        for kind, delim in (("open", field.open), ("close", field.close)):
            if delim is None:
                continue
            var = f"{_identifier(field.name)}_{kind.upper()}"
            if var in used:
                var = f"{var}_{field.index}"
            used.add(var)
            delimiter_vars[(kind, field.index)] = var
            delimiters.append({"var": var, "code": _delimiter_code(delim, leads), "path": delim.path})
    fields = []
    for field in program.fields:
        args = []
        if field.content != "text":
            args.append(f"content={python_literal(field.content)}")
        content_args = json.loads(field.content_args_json)
        if content_args != {} or type(content_args) is not dict:
            args.append(f"content_args={python_literal(content_args)}")
        if field.repeats:
            args.append("repeats=True")
        if field.join is not None:
            args.append(f"join={python_literal(field.join)}")
        if not field.optional:
            args.append("optional=False")
        same = _same_in_re(field.content, content_args)
        if same:
            args.append(f"same_in_re=({''.join(python_literal(p) + ', ' for p in same)})")
        if field.transform is not None:
            args.append(f"transform={transform_code(field.transform)}")
        if field.transform_each:
            args.append("transform_each=True")
        for kind in ("open", "close"):
            if (kind, field.index) in delimiter_vars:
                args.append(f"{kind}={delimiter_vars[(kind, field.index)]}")
        fields.append({"name": python_literal(field.name), "args": args})
    states = []
    for state in program.states:
        watch = [
            f"{'OPEN' if w.kind == OPEN else 'CLOSE'}, {w.field}, {delimiter_vars[(w.kind, w.field)]}"
            for w in state.watch
        ]
        region = "implicit region" if state.region is None else names[state.region]
        comment = f"{region}: " + (", ".join(f"{w.kind} {names[w.field]}" for w in state.watch) or "nothing")
        states.append({"key": -1 if state.region is None else state.region, "watch": watch, "comment": comment})
    slots: dict = {}
    tslots: dict = {}
    entry: dict = {}
    scans = [_scan_code(program, state, delimiter_vars, slots, tslots, entry) for state in program.states]
    tails: dict = {}
    stream = process_code(program, delimiter_vars, entry.setdefault("runs", {}), tails)
    feed = feed_code(program, entry["runs"])
    for state in program.states:
        for _string, (lead, _after, _number) in state.scan.owners if state.scan is not None else ():
            if lead is not None:
                leads.setdefault(lead, f"LEAD_{len(leads)}")
        if state.hold_run_lead is not None:
            leads.setdefault(state.hold_run_lead, f"LEAD_{len(leads)}")
    for hold in feed["holds"]:
        state = hold["state"]
        watch = [delimiter_vars[(w.kind, w.field)] for w in state.watch]
        hold["owners"] = [
            (python_literal(string), _owner_code(owner, leads, watch)) for string, owner in hold["owners"]
        ]
    tables = feed["tables"]
    tables["behind"] = {key: python_literal(chars) for key, chars in tables["behind"].items()}
    tables["hold_lead"] = {key: leads[lead] for key, lead in tables["hold_lead"].items()}
    cut = _context_cut_code(program)
    used_names = " ".join(d["code"] for d in delimiters) + " ".join(" ".join(f["args"]) for f in fields)
    used_names += _delimiter_code(program.start_anchor)
    imports = ["CLOSE", "OPEN", "WHOLE_LIMIT", "Field", "StreamParser", "run_parse_response"]
    whole_imports = ["tail_state"]
    if not program.anchor_from_end and not program.anchors_from_end:
        imports.append("last_anchor_end")
    imports += ["close_region", "tool_parameters"]
    imports += [name for name in ("Literals", "Pattern", "Placeholder", "Settled") if f"{name}(" in used_names]
    imports += ["ContextCut"] if cut else []
    imports += ["Lead"] if leads else []
    imports += ["Leads"] if entry.get("runs") else []
    imports += ["tail_prefix_start"] if tails else []
    imports += ["hold_start", "prefix_rules"] if feed["holds"] else []
    imports += ["SHORT"] if "SHORT" in str(stream) else []
    source = _env.get_template("module.py.j2").render(
        version=__version__,
        origin=program.origin,
        sha256=program.sha256,
        name=program.name,
        vendored=vendored,
        runtime_modules=textwrap.wrap(
            "The code of " + ", ".join(f"runtime/{name}.py" for name in runtime_modules(program)) + "; their "
            "docstrings and comments (the design) are in the compiler's runtime/ and docs/runtime.md.",
            96,
        ),
        template=python_literal(json.loads(program.template_json)),
        delimiters=delimiters,
        fields=fields,
        implicit=program.implicit,
        defaults=python_literal(json.loads(program.defaults_json)),
        start_anchor=_delimiter_code(program.start_anchor),
        context=program.context,
        cut=cut,
        states=states,
        scans=scans,
        stream=stream,
        feed=feed,
        tables=tables,
        anchor_literals=(
            python_literal(tuple(program.start_anchor.literals))
            if isinstance(program.start_anchor, LiteralDelimiter)
            else None
        ),
        slots=[f"d{slot}" for slot in sorted(slots.values())] + [f"t{slot}" for slot in sorted(tslots.values())],
        entry=[{"var": var, "code": code} for var, code in entry_code(entry, leads) + tail_constants(tails)],
        anchor=python_literal(program.start_anchor.literals[0]) if program.anchor_from_end else None,
        anchor_size=len(program.start_anchor.literals[0]) if program.anchor_from_end else 0,
        anchors_from_end=program.anchors_from_end,
        required=[field.name for field in program.fields if not field.optional],
        whole_imports=whole_imports,
        leads=[
            {"var": var, "code": f"Lead({python_literal(lead.source)}, {python_literal(lead.ascii)})"}
            for lead, var in leads.items()
        ],
        imports=sorted(imports),
    )
    source = black.format_str(source, mode=BLACK_MODE)
    if vendored:
        # The runtime goes in after black: it is formatted already, at the
        # runtime's own line length (pyproject.toml), and stripped of its
        # documentation (vendor.py).
        source = source.replace(_RUNTIME_MARK, runtime_core_source(program).rstrip("\n") + "\n\n", 1)
    return source
