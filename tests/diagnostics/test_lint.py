"""`python -m compiler check`: each finding on a template made to trigger it,
a clean template, exit codes, and every finding on a bundled template
explained in templates_src/README.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.diagnostics.lint import HAZARD, KINDS, NOTE, lint
from compiler.pipeline import to_program
from compiler.frontend.source import bundled, from_dict, read

ROOT = Path(__file__).resolve().parents[2]


def findings_of(fields: dict, **top) -> set[tuple[str, str]]:
    template = {"start_anchor": "<|assistant|>", "fields": fields, **top}
    return {(f.code, f.path) for f in lint(to_program(from_dict(template)))}


CLEAN = {
    "reasoning_content": {"open": "<think>", "close": "</think>"},
    "tool_calls": {
        "open_pattern": r"\s*<tool_call>",
        "close": "</tool_call>",
        "repeats": True,
        "content": "json",
        "transform": {"type": "function", "function": "{content}"},
    },
    "content": {"close_pattern": r"\s*<\|end\|>"},
}


def with_field(name, **spec):
    fields = {key: dict(value) for key, value in CLEAN.items()}
    fields[name] = spec
    return fields


CASES = [
    (
        "implicit-overwrite",
        "fields.content",
        with_field("tool_calls", open="<tool_call>", close="</tool_call>", repeats=True, content="json"),
    ),
    ("implicit-overwrite", "fields.content", with_field("content", close="<|end|>")),
    (
        "open-prefix",
        "fields.reasoning_content.open",
        {
            **with_field("tool_calls", open="<tool_call>", close="</tool_call>", repeats=True, content="json"),
            "reasoning_content": {"open": "<tool", "close": "</tool>"},
        },
    ),
    ("empty-match", "fields.reasoning_content.open_pattern", with_field("reasoning_content", open_pattern=r"(?:^|<think>)", close="</think>")),
    ("backtracking", "fields.reasoning_content.open_pattern", with_field("reasoning_content", open_pattern=r"(?:a+)+<think>", close="</think>")),
    (
        "unused-group",
        "fields.reasoning_content.open_pattern",
        with_field("reasoning_content", open_pattern=r"<think(?P<mode> \w+)?>", close="</think>", transform="{content}"),
    ),
    (
        "close-group",
        "fields.reasoning_content.close_pattern",
        with_field("reasoning_content", open="<think>", close_pattern=r"</think(?P<x>\s*)>", transform="{content}"),
    ),
    ("js-unsupported", "fields.reasoning_content.open_pattern", with_field("reasoning_content", open_pattern=r"(?:a?)*<think>", close="</think>")),
    ("go-unsupported", "fields.reasoning_content.close_pattern", with_field("reasoning_content", open="<think>", close_pattern=r"</think>(?=\s)")),
    (
        "chunk-dependent",
        "fields.tool_calls.close_pattern",
        with_field("tool_calls", open_pattern=r"\s*<tool_call>", close_pattern=r"</tool_call>(?=\s*(?:<tool_call>|$))", repeats=True, content="json"),
    ),
    (
        "chunk-dependent",
        "fields.tool_calls.open_pattern",
        with_field("tool_calls", open_pattern=r"\s*<tool_call>(?:json)?", close="</tool_call>", repeats=True, content="json"),
    ),
    ("regex-quirk", "fields.reasoning_content.open_pattern", with_field("reasoning_content", open_pattern=r"<t(?:[^b]|[^a])>", close="</think>")),
    (
        "regex-unsupported",
        "fields.reasoning_content.open_pattern",
        with_field("reasoning_content", open_pattern=r"<(t)\1>", close="</think>"),
    ),
    # Reasoning ends at any run of two whitespace characters: no literal a
    # grammar could keep out of the text.
    ("text-delimiter", "fields.reasoning_content.close_pattern", with_field("reasoning_content", open="<think>", close_pattern=r"\s{2,}")),
    (
        "no-structural-tag",
        "fields.tool_calls.content",
        with_field(
            "tool_calls",
            open_pattern=r"\s*<tool_call>(?P<name>\w+)",
            close="</tool_call>",
            repeats=True,
            content="xml-inline",
            content_args={"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"},
            transform={"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        ),
    ),
]


@pytest.mark.parametrize("code,path,fields", CASES, ids=[f"{c}:{p}" for c, p, _ in CASES])
def test_each_finding_is_reported_with_its_path(code, path, fields):
    assert (code, path) in findings_of(fields)


def test_clean_template_has_no_findings():
    assert findings_of(CLEAN) == set()


def test_every_finding_code_has_a_kind():
    """Each code is a hazard (a fault of the template: exit 1) or a note (a
    limit of this compiler: exit 0 unless --strict), fixed per code."""
    assert {code for code, _, _ in CASES} == set(KINDS)
    assert set(KINDS.values()) == {HAZARD, NOTE}
    notes = {code for code, kind in KINDS.items() if kind == NOTE}
    assert notes == {"regex-unsupported", "js-unsupported", "go-unsupported", "no-structural-tag"}
    doc = __import__("compiler.diagnostics.lint", fromlist=["lint"]).__doc__
    assert all(f"{code}:" in doc or f"{code}," in doc for code in KINDS)


# A Cohere-style template: one action block holding a JSON list of calls
# (`transform_each`). It parses as intended; only the structural tag, a limit
# of our grammar emitter, is unavailable.
COHERE_STYLE = {
    **with_field(
        "tool_calls",
        open_pattern=r"\s*<\|START_ACTION\|>",
        close="<|END_ACTION|>",
        content="json",
        transform={"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}},
        transform_each=True,
    ),
}


def run_check(*args):
    return subprocess.run([sys.executable, "-m", "compiler", "check", *map(str, args)], capture_output=True, text=True, cwd=ROOT)


def test_our_limits_are_notes_not_failures(tmp_path):
    import json

    assert findings_of(COHERE_STYLE) == {("no-structural-tag", "fields.tool_calls.transform_each")}
    path = tmp_path / "cohere_style.json"
    path.write_text(json.dumps({"start_anchor": "<|assistant|>", "fields": COHERE_STYLE}))
    result = run_check(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "note: fields.tool_calls.transform_each: [no-structural-tag]" in result.stdout
    assert "no hazards, 1 note(s)" in result.stdout
    strict = run_check("--strict", path)
    assert strict.returncode == 1 and "[no-structural-tag]" in strict.stdout


def test_check_command_exit_codes(tmp_path):
    import json

    clean, dirty = tmp_path / "clean.json", tmp_path / "dirty.json"
    clean.write_text(json.dumps({"start_anchor": "<|assistant|>", "fields": CLEAN}))
    dirty.write_text(json.dumps({"start_anchor": "<|assistant|>", "fields": CASES[0][2]}))
    run = lambda path: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "compiler", "check", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert run(clean).returncode == 0
    result = run(dirty)
    assert result.returncode == 1 and "fields.content: [implicit-overwrite]" in result.stdout


def explained_findings() -> set[tuple[str, str, str]]:
    """Rows of the 'Lint findings' table in templates_src/README.md: (template, code, path); `*` matches any."""
    text = (ROOT / "templates_src" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Lint findings", 1)[1]
    rows = set()
    for line in section.splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"[\w*]+", cells[0]) and cells[0] != "template":
            rows.add((cells[0], cells[1], cells[2]))
    return rows


def test_every_bundled_finding_is_explained():
    rows = explained_findings()

    def explained(name, finding):
        return any(
            template in (name, "*") and code == finding.code and path in (finding.path, "*")
            for template, code, path in rows
        )

    unexplained = [
        f"{path.stem}: {finding}"
        for path in bundled()
        for finding in lint(to_program(read(str(path))))
        if not explained(path.stem, finding)
    ]
    assert unexplained == []
    # and no stale rows: every specific row still matches a finding
    actual = {(p.stem, f.code, f.path) for p in bundled() for f in lint(to_program(read(str(p))))}
    stale = [row for row in rows if "*" not in row and row not in actual]
    assert stale == []
