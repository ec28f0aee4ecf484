"""The build-time state plan (compiler/passes/state_plan.py, State.tree_fast/hold_run/ahead):
what the Go runtime derived at load time before, now decided by the
compiler and emitted as tables (Program.Fast, HoldRuns, Ahead). The plan
was checked equal to the runtime's own derivation on every bundled and
vector template and on 420 random templates when it moved; these cases pin
each rule."""

from __future__ import annotations

import json

from compiler.passes.state_plan import plan_state
from compiler.pipeline import to_program
from compiler.regex.charset import regex_set
from compiler.frontend.source import read
from compiler.resources import PROJECT_ROOT

SPACE = regex_set(r"\s").ranges


def _program(template: dict, tmp_path):
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(template), encoding="utf-8")
    return to_program(read(str(path)))


def _plans(program):
    plans = {state.region: plan_state(program, state) for state in program.states}
    for state in program.states:  # the pass stored exactly the plan on each State
        plan = plans[state.region]
        assert (state.tree_fast, state.hold_run, state.ahead) == (plan.derived, plan.hold_run, plan.ahead)
    return plans


def test_lookahead_close_gets_a_derived_fast_path_with_hold_lead():
    """qwen3's reasoning close `</think>|(?=\\s*<tool_call>\\s*\\{)|(?<=<think>)\\s*(?=<think>)`: the analysis
    leaves it without a fast path; the plan derives trigger `<`, lead `\\s`,
    held from the start of a trailing run of spaces."""
    program = to_program(read(str(PROJECT_ROOT / "templates_src" / "qwen3.json")))
    reasoning = next(f.index for f in program.fields if f.name == "reasoning_content")
    state = next(s for s in program.states if s.region == reasoning)
    assert state.fast is None
    plan = plan_state(program, state)
    assert plan.derived is not None
    assert plan.derived.triggers == ("<",)
    assert plan.derived.leads == SPACE and plan.derived.hold_lead
    assert plan.hold_run is None
    assert not plan.ahead  # its third branch's look-behind reads before the match


def test_hold_run_when_no_delimiter_can_match_in_the_run(tmp_path):
    """A state whose `[ \\t]*à` keeps its partial match at a run's start and
    whose other delimiters must read `<` or `à` first: more spaces or tabs change nothing."""
    program = _program(
        {
            "start_anchor": "<|a|>",
            "fields": {
                "f0": {"open_pattern": "(?m)^<p>", "close_pattern": "[ ]*<b>"},
                "f1": {"open_pattern": "[ \\t]*\\u00e0", "close": "<x>c1"},
            },
        },
        tmp_path,
    )
    implicit = _plans(program)[None]
    assert implicit.hold_run == ((9, 9), (32, 32))
    assert not implicit.ahead  # (?m)^ reads the character before


def test_look_behind_reads_behind_and_literals_do_not(tmp_path):
    program = _program(
        {
            "start_anchor": "<|assistant|>",
            "fields": {
                "reasoning_content": {"open": "<think>", "close": "</think>"},
                "call": {"open_pattern": "(?<!b x</think>)<call>", "close": "</call>"},
                "content": {"close": "<|end|>"},
            },
        },
        tmp_path,
    )
    plans = _plans(program)
    assert not plans[None].ahead
    assert plans[0].ahead and plans[1].ahead


def test_no_plan_when_everything_is_kept(tmp_path):
    """An unbounded look-behind keeps all text (context -1): no derived fast path, no hold run."""
    program = _program(
        {"start_anchor": "<|a|>", "fields": {"x": {"open_pattern": "(?<=a.*)\\s*<b>", "close": "</b>"}}},
        tmp_path,
    )
    assert program.context == -1
    for plan in _plans(program).values():
        assert plan.derived is None and plan.hold_run is None
