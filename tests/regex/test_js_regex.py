"""The JavaScript runtime's regex matcher (runtime/js/regex.mjs) against the
`regex` module: search from a position, partial matching as the parsers use
it, lookarounds, finditer, on random patterns and on every delimiter of the
bundled templates and test shapes. One Node process for all cases; spans in
code points."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import regex

from compiler.frontend import source as sources
from compiler.backends.js import RUNTIME_DIR, _Sets, regex_code
from compiler.ir import RegexDelimiter
from compiler.pipeline import to_program
from compiler.regex import UnsupportedPattern, parse, to_source
from compiler.regex.automaton import partial_problem
from compiler.regex.emit import js_problems
from compiler.regex.nodes import Concat, Look
from compiler.errors import TemplateError
from regex_strategies import random_pattern, random_text
from shapes import SHAPES
from regex_corpus import CORPUS

RUNNER = r"""
import { readFileSync } from "node:fs";
import { REGEXES } from "./regexes.mjs";
const cp = (s, i) => Array.from(s.slice(0, i)).length;
const unit = (s, i) => Array.from(s).slice(0, i).join("").length;
const queries = JSON.parse(readFileSync(0, "utf8"));
const out = queries.map(([index, text, pos, mode]) => {
  const re = REGEXES[index];
  if (mode === "finditer") return [...re.finditer(text)].map((m) => [cp(text, m.start), cp(text, m.end)]);
  const m = re.search(text, unit(text, pos), mode === "partial");
  if (m === null || (m.partial && m.start === text.length)) return null; // the parsers ignore an empty partial match at the end
  const groups = m.partial ? {} : m.groupdict();
  return [cp(text, m.start), cp(text, m.end), m.partial, groups];
});
process.stdout.write(JSON.stringify(out));
"""


def _start_after_text(ast) -> bool:
    """`^` or `\\A` after something that consumes text: the pattern can never
    match, and the `regex` module's partial matches for it start oddly late
    (`([^a])+^` on "1 ": a partial match at 1, not 0). Not a template's pattern."""
    from compiler.regex.analysis import min_length
    from compiler.regex.nodes import BOS, START, Anchor, walk

    for node in walk(ast.body):
        if isinstance(node, Concat):
            consumed = False
            for item in node.items:
                if consumed and any(isinstance(n, Anchor) and n.kind in (BOS, START) for n in walk(item)):
                    return True
                consumed = consumed or min_length(item) > 0
    return False


def _with_lookarounds(rng, depth=2):
    body = random_pattern(rng, depth, lazy=False)
    look = Look(random_pattern(rng, 1), behind=rng.random() < 0.4, negative=rng.random() < 0.4)
    return Concat((look, body)) if rng.random() < 0.5 else Concat((body, look))


def _patterns():
    rng = random.Random(7)
    out = [to_source(random_pattern(rng, 3, lazy=False)) for _ in range(250)]
    out += [to_source(_with_lookarounds(rng)) for _ in range(250)]
    lazy = random.Random(37)  # lazy repeats anywhere (compiler/regex/lazy_partial.py)
    out += [to_source(random_pattern(lazy, 3, lazy=True)) for _ in range(250)]
    out += sorted(CORPUS)
    delimiters = {source: None for source in _give_back_patterns()}
    for shape in SHAPES:
        try:
            program = to_program(sources.from_dict(shape.template, shape.name))
        except TemplateError:
            continue
        for field in program.fields:
            for delim in (field.open, field.close):
                if isinstance(delim, RegexDelimiter) and (delim.pattern not in delimiters or delim.hint is not None):
                    delimiters[delim.pattern] = delim.hint
    return out, delimiters


def _give_back_patterns():
    """Look-behinds ending in a one-character repeat with a literal left of it
    (the matcher's give-back path), with minimums the text may not reach:
    `(?<=a\\s+)b` must not match "ab"."""
    out = []
    for literal in ("a", "</x>", "ab"):
        for char in (r"\s", "[ \n]", "."):
            for low, high in ((1, ""), (2, ""), (2, "2"), (1, "3"), (3, "5")):
                repeat = f"{char}{{{low},{high}}}" if high != str(low) else f"{char}{{{low}}}"
                out.append(f"(?<={literal}{repeat})b")
                out.append(f"b(?<={literal}{repeat})")
    return out


def _fragment_text(rng, pattern):
    """Text from pieces of the pattern's literal characters, whitespace and other text."""
    pieces = [c for c in regex.sub(r"\\.|[\[\]()?*+|{}^$]", "", pattern)] or ["x"]
    alphabet = pieces + [" ", "\n", "é", "🙂", "a", "}", "]", ";"]
    runs = [pattern_part for pattern_part in regex.findall(r"[^\\\[\]()?*+|{}^$]{2,}", pattern)]
    text = ""
    for _ in range(rng.randint(0, 6)):
        text += rng.choice(runs) if runs and rng.random() < 0.5 else rng.choice(alphabet)
    return text


def test_matcher_agrees_with_the_regex_module(tmp_path: Path):
    random_sources, delimiter_sources = _patterns()
    rng = random.Random(11)
    sets = _Sets()
    codes, expected, queries = [], [], []
    # Delimiters twice: plain, and with the compiler's trigger hint (as generated modules run them).
    sources_and_hints = [(source, None) for source in random_sources + sorted(delimiter_sources)]
    sources_and_hints += [(source, hint) for source, hint in sorted(delimiter_sources.items()) if hint is not None]
    for source, hint in sources_and_hints:
        try:
            compiled = regex.compile(source, regex.DOTALL)
            ast = parse(source)
        except Exception:  # noqa: BLE001 - a few random ones do not compile
            continue
        if js_problems(ast):
            continue
        try:
            code = regex_code(ast, source, "p", "test", sets, hint=hint)
        except (TemplateError, UnsupportedPattern):
            continue
        index = len(codes)
        codes.append(code)
        partial_ok = partial_problem(ast, ports=True) is None and not _start_after_text(ast)
        is_delimiter = source in delimiter_sources
        for _ in range(30 if is_delimiter else 8):
            text = _fragment_text(rng, source) if is_delimiter or rng.random() < 0.3 else random_text(rng, 10)
            pos = rng.choice([0, 0, rng.randint(0, len(text))])
            for mode in ("complete", "partial") if partial_ok else ("complete",):
                found = compiled.search(text, pos, partial=mode == "partial")
                if found is not None and found.partial and found.start() == len(text):
                    continue  # an empty partial match at the very end: the parsers ignore it
                want = None
                if found is not None:
                    groups = {} if found.partial else {name: found.group(name) for name in compiled.groupindex}
                    want = [found.start(), found.end(), bool(found.partial), groups]
                queries.append([index, text, pos, mode])
                expected.append((source, want))
            if rng.random() < 0.3:
                queries.append([index, text, 0, "finditer"])
                expected.append((source, [list(m.span()) for m in compiled.finditer(text)]))
    module = "import { Regex } from " + json.dumps((RUNTIME_DIR / "index.mjs").as_uri()) + ";\n"
    module += "".join(f"const {var} = {code};\n" for var, code in ((s["var"], s["code"]) for s in sets.constants()))
    module += "export const REGEXES = [\n" + ",\n".join(codes) + "\n];\n"
    (tmp_path / "regexes.mjs").write_text(module, encoding="utf-8")
    (tmp_path / "run.mjs").write_text(RUNNER, encoding="utf-8")
    done = subprocess.run(
        ["node", str(tmp_path / "run.mjs")], input=json.dumps(queries), capture_output=True, text=True, check=True
    )
    actual = json.loads(done.stdout)
    assert len(codes) > 400 and len(queries) > 4000
    mismatches = [
        (source, query, want, got)
        for (source, want), query, got in zip(expected, queries, actual)
        if want != got
    ]
    assert mismatches[:10] == []


CLASS_SOURCES = [r"\w", r"\W", r"\s", r"\S", r"\d", r"\D", r"\b\w", r".", r"(?i:k)", r"(?i:[a-zß])", r"(?i:σ)", r"[^\s<]", r"[\w.\-]"]


def test_classes_per_code_point(tmp_path: Path):
    """Each class, run by the JS matcher over every code point (surrogates
    excepted: JavaScript pairs them), finds the runs the regex module finds."""
    sets = _Sets()
    codes = [regex_code(parse(f"(?:{source})+"), source, "p", "test", sets) for source in CLASS_SOURCES]
    module = "import { Regex } from " + json.dumps((RUNTIME_DIR / "index.mjs").as_uri()) + ";\n"
    module += "".join(f"const {c['var']} = {c['code']};\n" for c in sets.constants())
    module += "export const REGEXES = [\n" + ",\n".join(codes) + "\n];\n"
    (tmp_path / "regexes.mjs").write_text(module, encoding="utf-8")
    runner = r"""
import { REGEXES } from "./regexes.mjs";
let text = "";
for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) text += String.fromCodePoint(c);
const out = REGEXES.map((re) => {
  const runs = [];
  for (const m of re.finditer(text)) runs.push([m.start, m.end]);
  // UTF-16 offsets -> code point offsets (no surrogates in the text but pairs)
  const cps = [];
  let units = 0, points = 0;
  const offsets = new Map();
  for (const ch of text) { offsets.set(units, points); units += ch.length; points += 1; }
  offsets.set(units, points);
  return runs.map(([a, b]) => [offsets.get(a), offsets.get(b)]);
});
process.stdout.write(JSON.stringify(out));
"""
    (tmp_path / "run.mjs").write_text(runner, encoding="utf-8")
    done = subprocess.run(["node", str(tmp_path / "run.mjs")], capture_output=True, text=True, check=True)
    actual = json.loads(done.stdout)
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for source, runs in zip(CLASS_SOURCES, actual):
        expected = [list(m.span()) for m in regex.finditer(f"(?:{source})+", text, flags=regex.DOTALL)]
        assert runs == expected, source
