"""Stage 3: pure passes over the IR, run in the order listed in PIPELINE.

Each pass takes a Program and returns a new one; together they decide every
fact a backend renders (literal delimiters, search hints, states and watch
sets, the context kept for look-behinds, fast paths per state).
"""

from __future__ import annotations

from ..ir import Program
from .context import plan_context
from .literals import literalize_patterns
from .search_hints import plan_fast_paths, plan_search_hints
from .states import plan_states

PIPELINE = (literalize_patterns, plan_search_hints, plan_states, plan_context, plan_fast_paths)


def run_passes(program: Program) -> Program:
    for step in PIPELINE:
        program = step(program)
    return program
