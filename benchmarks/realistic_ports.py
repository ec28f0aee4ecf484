"""The JavaScript and Go columns of the realistic benchmark (benchmarks/realistic.py).

The variants Python parsed (per template: the warm-up set, then each
round's two sets, whole and streamed, with their 4-character chunks) go to
a JSON file; Node runs
benchmarks/realistic_node.mjs on generated/js, and a Go program written
from benchmarks/realistic_go/main.go.tmpl into a temporary module (its
replace lines point at generated/go and runtime/go) runs on the same file.
Each reports, per template, the median over rounds of CPU ns per sample,
whole and streamed, and the messages of its first timed round, which are
compared with Python's compiled messages (a mismatch is a note).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODULE = "github.com/response-template-compiler/response-template-compiler"


def cases(rounds_items: dict, go: bool = False) -> dict:
    def one(item):
        out = {"prefix": item["prefix"], "text": item["text"], "chunks": item["chunks"]}
        if go:
            out["tools_json"] = json.dumps(item["tools"]) if item["tools"] else ""
        else:
            out["tools"] = item["tools"]
        return out

    return {
        "order": list(rounds_items),
        "templates": {
            name: [{mode: [one(item) for item in items] for mode, items in pair.items()} for pair in sets]
            for name, sets in rounds_items.items()
        },
    }


def go_source(names: list[str]) -> str:
    template = (HERE / "realistic_go" / "main.go.tmpl").read_text(encoding="utf-8")
    imports = "\n".join(f'\t"{MODULE}/generated/go/{name}"' for name in names)
    entries = "\n".join(f'\t"{name}": {{{name}.New, {name}.ParseResponse}},' for name in names)
    return template.replace("{{IMPORTS}}", imports).replace("{{ENTRIES}}", entries)


def run_go(rounds_items: dict, folder: Path) -> dict:
    module = folder / "gomod"
    module.mkdir()
    (module / "go.mod").write_text(
        f"module realisticbench\n\ngo 1.22\n\nrequire (\n\t{MODULE}/generated/go v0.0.0\n\t{MODULE}/runtime/go v0.0.0\n)\n\n"
        f"replace (\n\t{MODULE}/generated/go => {ROOT / 'generated' / 'go'}\n"
        f"\t{MODULE}/runtime/go => {ROOT / 'runtime' / 'go'}\n)\n",
        encoding="utf-8",
    )
    (module / "main.go").write_text(go_source(list(rounds_items)), encoding="utf-8")
    path = folder / "go_cases.json"
    path.write_text(json.dumps(cases(rounds_items, go=True), ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, GOWORK="off", GOFLAGS="-mod=mod")
    subprocess.run(
        ["go", "build", "-o", str(folder / "bench"), "."],
        cwd=module,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    done = subprocess.run([str(folder / "bench"), str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def run_node(rounds_items: dict, folder: Path) -> dict:
    path = folder / "node_cases.json"
    path.write_text(json.dumps(cases(rounds_items), ensure_ascii=False), encoding="utf-8")
    done = subprocess.run(
        ["node", str(HERE / "realistic_node.mjs"), str(path), str(ROOT / "generated" / "js")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


def compare(lang: str, name: str, theirs: list, items: list[dict], notes: list[str]) -> None:
    from .__main__ import load_module
    from .realistic import outcome

    module = load_module(name)
    differ = 0
    for item, got in zip(items, theirs):
        mine = outcome(
            lambda item=item: module.parse_response(item["text"], prefix=item["prefix"], tools=item["tools"])
        )
        if isinstance(mine, tuple):
            differ += "error" not in got
        elif "ok" not in got or json.loads(json.dumps(mine)) != got["ok"]:
            differ += 1
    if differ:
        notes.append(f"{lang} {name}: {differ} of {len(items)} messages differ from compiled Python's")


def run_ports(rounds_items: dict) -> dict:
    """{"js": {template: {"whole", "stream"}}, "go": {...}, "notes": [...]}"""
    out = {"js": {}, "go": {}, "notes": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for lang, tool, run in (("js", "node", run_node), ("go", "go", run_go)):
            if shutil.which(tool) is None:
                out["notes"].append(f"{lang}: {tool} is not on PATH, not measured")
                continue
            try:
                found = run(rounds_items, folder)
            except subprocess.CalledProcessError as error:
                out["notes"].append(f"{lang}: failed ({(error.stderr or '').strip()[-400:]})")
                continue
            for name, row in found.items():
                compare(lang, name, row.pop("outcomes"), rounds_items[name][1]["whole"], out["notes"])
                out[lang][name] = row
    return out
