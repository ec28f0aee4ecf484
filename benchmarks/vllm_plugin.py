"""Per-request parsing cost in vLLM: the plugin against vLLM's own response-template path.

    .venv-vllm/bin/python -m benchmarks.vllm_plugin            # 5 rounds
    .venv-vllm/bin/python -m benchmarks.vllm_plugin --rounds 3 --templates qwen3

Runs in the vLLM environment (scripts/setup-vllm). A request is one sample of a
bundled template (templates_src/samples/): a parser made for it with the
request's prompt and tools, then the output parsed
- streamed: `parse_delta` with 4-character deltas, as vLLM's serving loop calls it;
- whole: `parse`, as vLLM's non-streaming path calls it.
Two comparisons, each the median over templates of the per-template ratio
(vLLM's time / the plugin's time; each template's time is the sum over its
samples of the fastest of the rounds, in CPU time, cyclic collector off):
1. vLLM's built-in parser (`--reasoning-parser hf --tool-call-parser hf`) on the
   simplified variants it accepts (tests/integrations/vllm/inner/vllm_agreement.py:
   reasoning named `thinking`, plain-text reasoning and content), both parsers on
   the same template;
2. vLLM's vendored interpreter (`vllm.parser.chat_parsing`, what the built-in
   path runs) on every bundled template as it is, which the built-in parser
   refuses: the interpreter against the compiled parser, both without a serving
   layer (a `ResponseParser` fed 4-character chunks; `parse_response`).
Tokenizers are made locally (tests/integrations/vllm/inner/support.py). A full
run (no --templates) writes benchmarks/vllm_plugin.txt.
"""

from __future__ import annotations

import argparse
import gc
import logging
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integrations" / "vllm" / "inner"))

import support as S  # noqa: E402


def _cpu(fn) -> int:
    start = time.process_time_ns()
    fn()
    return max(time.process_time_ns() - start, 1)


def _streamed(cls, tok, req_tools, prompt_ids, output):
    def run():
        parser = cls(tok, req_tools)
        req = parser.adjust_request(S.request(tools=req_tools))
        pieces = [output[i : i + 4] for i in range(0, len(output), 4)] or [""]
        for index, piece in enumerate(pieces):
            parser.parse_delta(piece, [0], req, prompt_ids, finished=index == len(pieces) - 1)

    return run


def _whole(cls, tok, req_tools, prompt_ids, output):
    def run():
        parser = cls(tok, req_tools)
        req = parser.adjust_request(S.request(tools=req_tools))
        parser.set_prompt_token_ids(prompt_ids)
        parser.parse(output, req, enable_auto_tools=True)

    return run


def _interpreter_streamed(template, prefix, output, tools):
    from vllm.parser.chat_parsing import ResponseParser

    def run():
        parser = ResponseParser(template, prefix=prefix, tools=tools)
        for i in range(0, len(output), 4):
            parser.feed(output[i : i + 4])
        parser.finalize()

    return run


def _interpreter_whole(template, prefix, output, tools):
    from vllm.parser.chat_parsing import parse_response

    return lambda: parse_response(output, template, prefix=prefix, tools=tools)


def _plugin_module_streamed(module, prefix, output, tools):
    def run():
        parser = module.ResponseParser(prefix, tools=tools)
        for i in range(0, len(output), 4):
            parser.feed(output[i : i + 4])
        parser.finalize()

    return run


def _time(pairs, rounds):
    """Sum over samples of the fastest round, for each side of each pair."""
    best = [[None, None] for _ in pairs]
    for _ in range(rounds):
        for index, pair in enumerate(pairs):
            for side in (0, 1):
                t = _cpu(pair[side])
                best[index][side] = t if best[index][side] is None else min(best[index][side], t)
    return sum(b[0] for b in best), sum(b[1] for b in best)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--templates", nargs="*", default=None)
    args = parser.parse_args(argv)
    from vllm.tool_parsers import ToolParserManager

    ToolParserManager.import_tool_parser("compiler.integrations.vllm")
    for logger in ("vllm", "compiler.integrations.vllm.parser"):  # both log each cut-off sample's call
        logging.getLogger(logger).setLevel(logging.ERROR)
    import vllm_agreement as agreement

    names = args.templates or S.BUNDLED
    gc.disable()
    rows = {"builtin": [], "interpreter": []}
    out = []

    def emit(text):
        print(text, flush=True)
        out.append(text)

    emit(
        f"{'template':<22}{'vs hf streamed':>16}{'vs hf whole':>13}{'vs interp. streamed':>21}{'vs interp. whole':>18}"
    )
    for name in names:
        line = f"{name:<22}"
        cases = list(S.cases(name))
        if name in agreement.VARIANTS:
            template = agreement.simplified(name)
            tok = S.tokenizer_for(name, template)
            ours = S.parser_class("compiled_template", "compiled_template", tok)
            theirs = S.parser_class("hf", "hf", tok)
            usable = [(s, t) for s, t in agreement._agreeing_samples(name, template)]
            ratios = []
            for make in (_streamed, _whole):
                pairs = []
                for sample, req_tools in usable:
                    ids = tok.encode(sample.get("prefix", ""), add_special_tokens=False)
                    pairs.append(
                        (
                            make(theirs, tok, req_tools, ids, sample["output"]),
                            make(ours, tok, req_tools, ids, sample["output"]),
                        )
                    )
                slow, fast = _time(pairs, args.rounds)
                ratios.append(slow / fast)
            rows["builtin"].append(ratios)
            line += f"{ratios[0]:>15.2f}x{ratios[1]:>12.2f}x"
        else:
            line += f"{'(refused)':>16}{'':>13}"
        tok = S.tokenizer_for(name)
        module = S.parser_class("compiled_template", None, tok)(tok).compiled.module
        template = S.template(name)
        ratios = []
        for interp, ours_make in (
            (_interpreter_streamed, _plugin_module_streamed),
            (_interpreter_whole, lambda m, p, o, t: (lambda: m.parse_response(o, prefix=p, tools=t))),
        ):
            pairs = [
                (
                    interp(template, s.get("prefix", ""), s["output"], tools),
                    ours_make(module, s.get("prefix", ""), s["output"], tools),
                )
                for s, _, tools in cases
            ]
            slow, fast = _time(pairs, args.rounds)
            ratios.append(slow / fast)
        rows["interpreter"].append(ratios)
        emit(line + f"{ratios[0]:>20.2f}x{ratios[1]:>17.2f}x")
    gc.enable()
    for key, label in (
        ("builtin", "vLLM's built-in hf parser (simplified variants)"),
        ("interpreter", "vLLM's interpreter (bundled)"),
    ):
        if rows[key]:
            streamed = statistics.median(r[0] for r in rows[key])
            whole = statistics.median(r[1] for r in rows[key])
            emit(f"median vs {label}, {len(rows[key])} templates: streamed {streamed:.2f}x, whole {whole:.2f}x")
    if args.templates is None:
        import vllm

        header = (
            f"# python -m benchmarks.vllm_plugin --rounds {args.rounds} (in .venv-vllm)\n"
            f"# vllm {vllm.__version__}, Python {platform.python_version()}, {platform.machine()}; "
            "ratios: vLLM's time / the plugin's (CPU time)\n"
        )
        (ROOT / "benchmarks" / "vllm_plugin.txt").write_text(header + "\n".join(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
