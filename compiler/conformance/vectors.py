"""Conformance vectors: what the reference interpreter does on each input,
cut into several chunkings, written as one JSON case per line in
compiler/conformance/vectors/<file>.jsonl. Every language's runtime runs the same vectors
(as protobuf's conformance suite does). Three sources, all in the project:

- every bundled template's samples (templates_src/samples/<name>.json)
  -> compiler/conformance/vectors/<name>.jsonl;
- the feature templates written for the format inventory
  (compiler/conformance/features/<name>.json: a template and its samples)
  -> compiler/conformance/vectors/<name>.jsonl, the template copied to
  compiler/conformance/templates/<name>.json for the runners;
- the differential tests' shapes (tests/support/shapes.py): seeded combinations of
  each shape's blocks and delimiter fragments -> compiler/conformance/vectors/shape_<name>.jsonl
  (templates not in templates_src/ copied to compiler/conformance/templates/).

A case's `template` is templates_src/<template>.json when that exists, else
compiler/conformance/templates/<template>.json. compiler/conformance/inventory.json lists
every rule of the format; `python -m compiler vectors --coverage` names the
cases that exercise each (compiler/conformance/coverage.py).

The recovery-mode vectors (`recover=True`) are recovery.py's, written to
compiler/conformance/recovery/ by the same command (`python -m compiler vectors`).

Deterministic: the same sources always give the same bytes.
Needs transformers (the reference) to generate; not to run the vectors.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

from ..frontend.source import bundled
from ..resources import CHECKOUT, TEMPLATES_DIR as BUNDLED_DIR

SAMPLES_DIR = BUNDLED_DIR / "samples"
CONFORMANCE_DIR = Path(__file__).resolve().parent
VECTORS_DIR = CONFORMANCE_DIR / "vectors"
FEATURES_DIR = CONFORMANCE_DIR / "features"
TEMPLATES_DIR = CONFORMANCE_DIR / "templates"
INVENTORY_FILE = CONFORMANCE_DIR / "inventory.json"
FAILURES_DIR = CONFORMANCE_DIR / "failures"
RECOVERY_DIR = CONFORMANCE_DIR / "recovery"  # the recovery-mode vectors (recovery.py)
RECOVERY_SOURCES = RECOVERY_DIR / "sources.json"


def read_failure_list(path: Path) -> dict[str, str]:
    """A failure list, in the one format every list uses (the conformance lists
    and tests/known_failures.txt): `<id>  # <reason>` per line, `#` lines are
    comments -> id (or prefix ending in "*") -> reason."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        listed, _, reason = line.partition("#")
        if listed.strip():
            out[listed.strip()] = reason.strip()
    return out


def known_failures(lang: str) -> dict[str, str]:
    """failures/<lang>.txt (python, js, go): case id (or prefix ending in "*") -> reason."""
    return read_failure_list(FAILURES_DIR / f"{lang}.txt")


def is_listed(failures: dict[str, str], case_id: str) -> bool:
    return any(case_id == key or (key.endswith("*") and case_id.startswith(key[:-1])) for key in failures)


SHAPES_FILE = CHECKOUT / "tests" / "support" / "shapes.py"  # the shapes live with the tests (a checkout)
RANDOM_CUTTINGS = 3
# Shape inputs: how many per shape and how long (the per-character chunking
# makes a case's size grow with its text; the corpus stays a few MB). Shapes
# of bundled templates get fewer: their samples have vectors already.
SHAPE_TEXTS = 6
BUNDLED_SHAPE_TEXTS = 4
SHAPE_TEXT_LIMIT = 100


def parse_json_lines(text: str) -> list[dict]:
    """JSON lines split at "\n" only: cases hold U+2028 and other characters
    that str.splitlines() would also split at."""
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def read_json_lines(path: Path) -> list[dict]:
    return parse_json_lines(path.read_text(encoding="utf-8"))


def chunkings(text: str, seed: str) -> list[tuple[str, list[str]]]:
    """(label, chunks): whole, per character, and seeded random cuts."""
    out = [("whole", [text]), ("chars", list(text))]
    rng = random.Random(seed)
    for n in range(RANDOM_CUTTINGS):
        count = min(max(len(text) - 1, 0), rng.randint(1, max(1, len(text) // 3)))
        cuts = sorted(rng.sample(range(1, len(text)), count)) if count else []
        bounds = [0] + cuts + [len(text)]
        out.append((f"cuts{n}", [text[a:b] for a, b in zip(bounds, bounds[1:])]))
    return out


def run_reference(template: dict, prefix: str, chunks: list[str], tools) -> dict:
    from transformers.utils.chat_parsing import ResponseParser

    return trace(lambda: ResponseParser(template, prefix=prefix, tools=tools), chunks)


def _class_name(error: BaseException) -> str:
    return type(error).__name__


def plain_events(events: list[dict], error_type=_class_name) -> list[dict]:
    """Events as vectors hold them: a recovery-mode `region_malformed` event's
    exception (its "error") recorded by `error_type`, as a raised one is."""
    if not any("error" in event for event in events):
        return events
    return [{**event, "error": error_type(event["error"])} if "error" in event else event for event in events]


def parser_options(case: dict) -> dict:
    """The parser options a case asks for besides prefix and tools: `recover`
    (and `malformed`) for the recovery-mode vectors (compiler/conformance/recovery.py)."""
    return {key: case[key] for key in ("recover", "malformed") if key in case}


def trace(make_parser, chunks: list[str], error_type=_class_name) -> dict:
    """Everything observable of one run, up to the first exception: the
    vector fields initial_events, feeds, final_events, message, error.
    `error_type` records the exception (its class name in vectors; tests
    comparing two runs in one process pass `type` to compare classes)."""
    result = {"initial_events": None, "feeds": [], "final_events": None, "message": None, "error": None}
    try:
        parser = make_parser()
    except Exception as error:  # noqa: BLE001 - the class is the result
        result["error"] = {"stage": "init", "index": 0, "type": error_type(error)}
        return result
    result["initial_events"] = plain_events(parser.initial_events, error_type)
    for index, chunk in enumerate(chunks):
        try:
            result["feeds"].append(plain_events(parser.feed(chunk), error_type))
        except Exception as error:  # noqa: BLE001
            result["error"] = {"stage": "feed", "index": index, "type": error_type(error)}
            return result
    try:
        result["message"], final_events = parser.finalize()
        result["final_events"] = plain_events(final_events, error_type)
    except Exception as error:  # noqa: BLE001
        result["error"] = {"stage": "finalize", "index": 0, "type": error_type(error)}
    return result


def cases_for(name: str) -> list[dict]:
    """The vectors of a bundled template's samples."""
    template = json.loads((BUNDLED_DIR / f"{name}.json").read_text(encoding="utf-8"))
    samples_file = SAMPLES_DIR / f"{name}.json"
    if not samples_file.is_file():
        return []
    samples = json.loads(samples_file.read_text(encoding="utf-8"))["samples"]
    return _cases(name, name, template, samples)


def _cases(file_name: str, template_name: str, template: dict, samples: list[dict], default_tools=None) -> list[dict]:
    """Each sample in each chunking, with the reference's trace. A sample
    without a `tools` key gets `default_tools`."""
    cases = []
    for sample in samples:
        tools = sample.get("tools", default_tools)
        # A long feature sample may skip the default chunkings (its per-character
        # case would be most of the corpus) and give its own.
        cuts = (
            chunkings(sample["output"], f"{file_name}/{sample['id']}") if sample.get("default_chunkings", True) else []
        )
        # A feature sample may add its own chunkings (empty feeds, a delimiter
        # cut at a chosen point); they must join to its output.
        for index, given in enumerate(sample.get("chunkings", [])):
            if "".join(given) != sample["output"]:
                raise ValueError(f"{file_name}/{sample['id']}: chunking {index} does not join to the output")
            cuts.append((f"given{index}", list(given)))
        for label, chunks in cuts:
            case = {
                "id": f"{file_name}/{sample['id']}/{label}",
                "template": template_name,
                "prefix": sample["prefix"],
                "chunks": chunks,
                "tools": tools,
            }
            case.update(run_reference(template, sample["prefix"], chunks, tools))
            cases.append(case)
    return cases


def feature_sources() -> dict[str, dict]:
    """name -> {"doc", "template", "tools"?, "samples"} from compiler/conformance/features/."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(FEATURES_DIR.glob("*.json"))}


def load_shapes() -> list:
    """The differential tests' shapes (tests/support/shapes.py), loaded by path."""
    if not SHAPES_FILE.is_file():
        return []
    name = "_vector_shapes"
    spec = importlib.util.spec_from_file_location(name, SHAPES_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return list(module.SHAPES)


def shape_samples(shape, count: int = SHAPE_TEXTS) -> list[dict]:
    """Seeded inputs from a shape: blocks (well-formed regions) mixed with
    vocabulary pieces (broken and split delimiters, noise), each prefix and
    the shape's tools in turn. Texts are cut at SHAPE_TEXT_LIMIT characters."""
    rng = random.Random(f"shape/{shape.name}")
    blocks = list(shape.blocks)
    vocabulary = shape.vocabulary()
    samples = []
    for index in range(count):
        pieces = []
        for _ in range(rng.randint(1, 6)):
            pieces.append(rng.choice(blocks) if rng.random() < 0.6 else rng.choice(vocabulary))
        text = "".join(pieces)[:SHAPE_TEXT_LIMIT]
        prefix = shape.prefixes[index % len(shape.prefixes)]
        if index % 4 == 3:
            prefix += rng.choice(blocks)[: SHAPE_TEXT_LIMIT // 2]
        tools = shape.tools if shape.tools and index % 2 == 0 else None
        samples.append({"id": f"{index:02d}", "prefix": prefix, "output": text, "tools": tools})
    return samples


def render(cases: list[dict]) -> str:
    return "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)


def _template_text(template: dict) -> str:
    return json.dumps(template, indent=2, ensure_ascii=False) + "\n"


def expected_files() -> dict[Path, str]:
    """Every vectors file (and copied template) -> its content."""
    out = {}
    for path in bundled():
        cases = cases_for(path.stem)
        if cases:
            out[VECTORS_DIR / f"{path.stem}.jsonl"] = render(cases)
    for name, feature in feature_sources().items():
        out[TEMPLATES_DIR / f"{name}.json"] = _template_text(feature["template"])
        cases = _cases(name, name, feature["template"], feature["samples"], feature.get("tools"))
        out[VECTORS_DIR / f"{name}.jsonl"] = render(cases)
    bundled_names = {path.stem for path in bundled()}
    for shape in load_shapes():
        if shape.name not in bundled_names:
            out[TEMPLATES_DIR / f"{shape.name}.json"] = _template_text(shape.template)
        file_name = f"shape_{shape.name}"
        count = BUNDLED_SHAPE_TEXTS if shape.name in bundled_names else SHAPE_TEXTS
        samples = shape_samples(shape, count)
        out[VECTORS_DIR / f"{file_name}.jsonl"] = render(_cases(file_name, shape.name, shape.template, samples))
    for name, template in recovery_templates().items():
        out[TEMPLATES_DIR / f"{name}.json"] = _template_text(template)
    return out


def recovery_templates() -> dict[str, dict]:
    """The templates only the recovery-mode samples use (recovery.py), copied to templates/ with the others."""
    return json.loads(RECOVERY_SOURCES.read_text(encoding="utf-8")).get("templates", {})


def write_all(check: bool = False) -> list[Path]:
    """Write (or, with check, only compare) the vectors; return stale paths."""
    stale = []
    expected = expected_files()
    for path, text in expected.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for path in sorted(VECTORS_DIR.glob("*.jsonl")) + sorted(TEMPLATES_DIR.glob("*.json")):
        if path not in expected:
            stale.append(path)
            if not check:
                path.unlink()
    return stale
