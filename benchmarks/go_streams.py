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
    with open(argv[0], "w", encoding="utf-8") as handle:
        json.dump(streams(), handle, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
