"""The speed suite's token streams as JSON, for the Go benchmarks.

`python -m benchmarks.go_streams FILE` writes [{"name", "template", "prefix",
"tokens"}]: the streams `python -m benchmarks` times (benchmarks/streams.py,
same seeds) at 8k tokens, and the degenerate ones (8,000 newlines or lone
`<`, one per token)."""

from __future__ import annotations

import json
import sys

from .streams import TEMPLATES, build, degenerate, tokenize

LENGTH = 8000


def streams() -> list[dict]:
    out = []
    for template in TEMPLATES:
        stream = build(template, LENGTH)
        out.append(
            {"name": f"{template}/prose8k", "template": template, "prefix": stream.prefix,
             "tokens": tokenize(stream.text, stream.specials, seed=LENGTH)}
        )
        for kind in ("newlines", "angles"):
            stream = degenerate(template, kind)
            out.append({"name": f"{template}/{kind}", "template": template, "prefix": stream.prefix, "tokens": list(stream.text)})
    return out


def main(argv: list[str]) -> int:
    """`FILE` for the speed suite's streams, `--ollama FILE` for the Ollama comparison's."""
    which = ollama_streams if argv[0] == "--ollama" else streams
    with open(argv[-1], "w", encoding="utf-8") as handle:
        json.dump(which(), handle, ensure_ascii=False)
    return 0



def ollama_streams() -> list[dict]:
    """qwen3 streams for the comparison with Ollama's hand-written parser
    (benchmarks/ollama): prose with reasoning and calls, tokens that end in a
    space, code, lone `<`, and many small tool calls. "ollama" names the
    parser `parsers.ParserForName` gets (thinking streams start in thinking)."""
    import random

    from .streams import filler

    prose = build("qwen3", LENGTH)
    prefix = prose.prefix
    rng = random.Random("ollama")
    words = filler(rng, LENGTH).split(" ")
    spaced = [word + " " for word in words]
    code_line = "    total = sum(x * x for x in values if x < limit)  # squares below the limit\n"
    code = "```python\ndef f(values, limit):\n" + code_line * 400 + "    return total\n```"
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>\n'
    return [
        {"name": "qwen3/prose8k", "template": "qwen3", "ollama": "qwen3-thinking", "prefix": prefix,
         "tokens": tokenize(prose.text, prose.specials, seed=LENGTH)},
        {"name": "qwen3/space-ended", "template": "qwen3", "ollama": "qwen3", "prefix": prefix,
         "tokens": spaced + ["<|im_end|>"]},
        {"name": "qwen3/code", "template": "qwen3", "ollama": "qwen3", "prefix": prefix,
         "tokens": tokenize(code, ("```",), seed=1) + ["<|im_end|>"]},
        {"name": "qwen3/angles", "template": "qwen3", "ollama": "qwen3", "prefix": prefix, "tokens": ["<"] * LENGTH},
        {"name": "qwen3/many-calls", "template": "qwen3", "ollama": "qwen3", "prefix": prefix,
         "tokens": tokenize(call * 400, ("<tool_call>", "</tool_call>"), seed=2) + ["<|im_end|>"]},
    ]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
