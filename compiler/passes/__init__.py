"""Stage 3: pure passes over the IR, run in the order listed in PIPELINE.

Each pass takes a Program and returns a new one; together they decide every
fact a backend renders (literal delimiters, search hints, the smaller
patterns look-behind branches settle to, branch hints, states and watch
sets, the context kept for look-behinds and how far back it can be cut,
fast paths per state, and the node-tree plan per state). Backends only read
these facts off the IR (tests/test_layout.py checks that they import no pass).
"""

from __future__ import annotations

from ..ir import Program
from .branches import plan_branches, plan_state_hints
from .context import plan_context
from .literals import literalize_patterns
from .lookbehind_reach import plan_context_cut
from .lookbehind_settle import plan_settled
from .scan_plan import plan_scans
from .search_hints import plan_fast_paths, plan_search_hints
from .state_plan import plan_tree_states
from .states import plan_states
from .whole_search import plan_whole_search

PIPELINE = (
    literalize_patterns,
    plan_search_hints,  # RegexDelimiter.hint
    plan_settled,  # RegexDelimiter.settled (its patterns with their hints)
    plan_branches,  # RegexDelimiter.branches, where hint is None (settled patterns included)
    plan_whole_search,  # RegexDelimiter.whole
    plan_states,  # Program.states and their watch sets
    plan_context,  # Program.context, State.reach, State.blind
    plan_context_cut,  # Program.context_cut
    plan_fast_paths,  # State.fast
    plan_state_hints,  # State.branch_fast, State.hold_lead
    plan_tree_states,  # State.tree_fast, State.hold_run, State.ahead
    plan_scans,  # State.scan, State.hold_run_lead
)


def run_passes(program: Program) -> Program:
    for step in PIPELINE:
        program = step(program)
    return program
