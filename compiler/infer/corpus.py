"""Run `infer` over a folder of chat templates and tabulate what it got for each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import infer_source
from .core import InferError
from .load import SourceError, load
from .sandbox import RenderError


@dataclass
class Row:
    name: str
    status: str  # complete, partial, error
    passed: int
    total: int
    parts: dict
    reason: str
    template: dict | None
    family: str | None = None
    agree: int = 0
    samples: int = 0


def run_one(path: Path) -> Row:
    try:
        result = infer_source(load(path))
    except (InferError, RenderError, SourceError) as error:
        return Row(path.stem, "error", 0, 0, {}, str(error).splitlines()[0][:200], None)
    check = result.check
    passed = len(check.results) - len(check.failed)
    if result.complete:
        status, reason = "complete", ""
    else:
        status = "partial"
        reasons = [f"{f.part}: {f.reason}" for f in result.inferred.findings if f.part == "tool calls"]
        reasons += [f"probe {r.name} fails" for r in check.failed]
        if check.error:
            reasons.append(check.error)
        reason = "; ".join(reasons)[:200]
    return Row(path.stem, status, passed, len(check.results), result.inferred.parts, reason, result.inferred.template)


def run(folder: Path, *, families: bool = True) -> list[Row]:
    rows = [run_one(path) for path in sorted(Path(folder).glob("*.jinja"))]
    if families:
        from .agreement import FAMILIES, agreement

        for row in rows:
            row.family = FAMILIES.get(row.name)
            if row.family:
                found = agreement(row.template, row.family)
                row.agree, row.samples = found.agree, found.total
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "\\n")


def table(rows: list[Row]) -> str:
    complete = sum(row.status == "complete" for row in rows)
    lines = [
        "| chat template | result | probes | reasoning | tool calls | family samples agreeing | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        reasoning = row.parts.get("reasoning", "")
        reasoning = "yes" if reasoning.startswith("open") else "no"
        calls = row.parts.get("tool_calls", "")
        calls = calls.split(";")[0].replace("format ", "") if calls and not calls.startswith("none") else "no"
        probes = f"{row.passed}/{row.total}" if row.total else "-"
        family = f"{row.family}: {row.agree}/{row.samples}" if row.family else "-"
        lines.append(
            f"| `{row.name}` | {row.status} | {probes} | {reasoning} | {calls} | {family} | {_cell(row.reason)} |"
        )
    agree = sum(row.agree for row in rows)
    samples = sum(row.samples for row in rows)
    families = [row for row in rows if row.family]
    at_90 = sum(bool(row.samples) and row.agree / row.samples >= 0.9 for row in families)
    lines.append("")
    every = sum(row.status != "error" and row.total > 0 and row.passed == row.total for row in rows)
    lines.append(
        f"{complete} of {len(rows)} chat templates inferred completely (tool calls inferred and every applicable "
        f"validation probe comes back); {every} of {len(rows)} round-trip every applicable probe (the others "
        "include templates that ignore tool calls or cannot render them in the sandbox)."
    )
    lines.append(
        f"Agreement with the hand-written family template: {agree} of {samples} samples; "
        f"{at_90} of {len(families)} chat templates with a family agree on at least 90% of its samples."
    )
    return "\n".join(lines)
