"""The facts the passes store on the IR (compiler/ir.py) are the analyses'
answers, for every bundled template: backends read them instead of calling
the analyses (tests/test_layout.py), so these pin that nothing was lost."""

from __future__ import annotations

import pytest

from compiler.frontend import source as sources
from compiler.ir import RegexDelimiter
from compiler.passes.branches import branch_hint, state_hint
from compiler.passes.context import blind, reach_back_of
from compiler.passes.lookbehind_reach import context_cut
from compiler.passes.lookbehind_settle import settled_delimiter, settled_of
from compiler.passes.state_plan import plan_state
from compiler.pipeline import to_program
from compiler.resources import PROJECT_ROOT

NAMES = sorted(p.stem for p in (PROJECT_ROOT / "templates_src").glob("*.json"))


@pytest.mark.parametrize("name", NAMES)
def test_ir_facts_are_the_analyses_answers(name):
    program = to_program(sources.read(name))
    assert program.context_cut == context_cut(program)
    for delim in [program.start_anchor] + [d for f in program.fields for d in (f.open, f.close)]:
        if not isinstance(delim, RegexDelimiter):
            continue
        assert delim.branches == (branch_hint(delim) if delim.hint is None else None)
        settled = settled_of(delim) if delim is not program.start_anchor else None
        if settled is None:
            assert delim.settled is None
            continue
        assert delim.settled.dead.pattern == settled.dead
        assert delim.settled.dead.hint == settled_delimiter(delim, settled.dead).hint
        assert (delim.settled.alive and delim.settled.alive.pattern) == settled.alive
        assert (delim.settled.anchored, delim.settled.tail, delim.settled.absent) == (
            settled.anchored,
            settled.tail,
            settled.absent,
        )
    for state in program.states:
        delims = program.watched(state)
        assert (state.reach, state.blind) == (reach_back_of(delims), blind(delims))
        assert state.branch_fast == (state_hint(delims) if delims and state.fast is None else None)
        if any(isinstance(d, RegexDelimiter) and d.ast is None for d in delims):
            continue
        plan = plan_state(program, state)
        assert (state.tree_fast, state.hold_run, state.ahead) == (plan.derived, plan.hold_run, plan.ahead)
