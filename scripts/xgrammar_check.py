"""Check the `ebnf` and `structural-tag` grammars with xgrammar, where it is
installed (it pulls in torch, so it is not in the test extra and CI does not
run this). For every bundled template: compile the EBNF grammar (and the
structural tag where the template has one) with xgrammar's compiler, and
match the bundled samples the llguidance tests use (each with its own tools
and prompt), byte by byte.

    pip install xgrammar && python scripts/xgrammar_check.py

Prints one line per template and a summary; record the summary in
docs/grammar.md ("xgrammar").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]


def main() -> int:
    try:
        import xgrammar as xgr
    except ImportError:
        print("xgrammar is not installed: pip install xgrammar", file=sys.stderr)
        return 2
    from compiler.grammar import GrammarError, grammar

    # The samples the llguidance tests hold every grammar to (calls that
    # validate as written), without those the grammar rejects on purpose.
    sys.path.insert(0, str(ROOT / "tests"))
    from test_grammar import SAMPLES, STRICTER
    from compiler.frontend.source import bundled

    tokenizer_info = xgr.TokenizerInfo([bytes([i]).decode("latin-1") for i in range(256)])
    compiler = xgr.GrammarCompiler(tokenizer_info)
    failures = 0
    for path in sorted(bundled()):
        name = path.stem
        results = []
        try:
            ebnf = grammar(name, TOOLS, format="ebnf")
            compiler.compile_grammar(xgr.Grammar.from_ebnf(ebnf, root_rule_name="root"))
        except GrammarError as error:
            results.append(f"ebnf refused ({error.path})")
            print(f"{name}: " + "; ".join(results))
            continue
        except Exception as error:  # report and go on
            failures += 1
            results.append(f"ebnf FAILED: {type(error).__name__}: {error}")
        # Each sample, with its own tools and prompt: its output must be
        # consumed whole by the matcher (no stop token in this byte vocabulary,
        # so this checks the output is a prefix the grammar allows).
        accepted, total, rejected = 0, 0, []
        for sample in (s for n, s in SAMPLES if n == name and (n, s["id"]) not in STRICTER):
            try:
                text = grammar(name, sample.get("tools") or [], format="ebnf", prefix=sample["prefix"])
            except GrammarError:
                continue
            total += 1
            try:
                matcher = xgr.GrammarMatcher(compiler.compile_grammar(xgr.Grammar.from_ebnf(text, root_rule_name="root")))
                ok = bool(matcher.accept_string(sample["output"]))
            except Exception as error:
                failures += 1
                ok = False
                rejected.append(f"{sample['id']} ({type(error).__name__})")
                continue
            accepted += ok
            if not ok:
                rejected.append(sample["id"])
        results.append(f"ebnf ok, samples accepted {accepted}/{total}" + (f" (not: {', '.join(rejected)})" if rejected else ""))
        try:
            tag = json.loads(grammar(name, TOOLS, format="structural-tag"))
            structures = [xgr.StructuralTagItem(begin=s["begin"], schema=json.dumps(s["schema"]), end=s["end"]) for s in tag["structures"]]
            compiler.compile_structural_tag(structures, tag["triggers"])
            results.append("structural-tag ok")
        except GrammarError:
            results.append("structural-tag n/a")
        except Exception as error:
            failures += 1
            results.append(f"structural-tag FAILED: {type(error).__name__}: {error}")
        print(f"{name}: " + "; ".join(results))
    from importlib.metadata import version

    print(f"xgrammar {version('xgrammar')}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
