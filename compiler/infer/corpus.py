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
    agreement: object = None  # agreement.Agreement, when the chat template has a family

    @property
    def agree(self) -> int:
        return self.agreement.agree if self.agreement else 0

    @property
    def samples(self) -> int:
        return self.agreement.total if self.agreement else 0

    @property
    def explained(self) -> int:
        return self.agreement.explained_count if self.agreement else 0


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
    paths = sorted(Path(folder).glob("*.jinja"))
    rows = [run_one(path) for path in paths]
    if families:
        from .agreement import FAMILIES, agreement

        for path, row in zip(paths, rows):
            row.family = FAMILIES.get(row.name)
            if row.family:
                row.agreement = agreement(row.template, row.family, path.read_text(encoding="utf-8"))
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "\\n")


def table(rows: list[Row]) -> str:
    lines = [
        "| chat template | result | probes | reasoning | tool calls | family samples agreeing (+ explained) | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        reasoning = row.parts.get("reasoning", "")
        reasoning = "yes" if reasoning.startswith("open") else "no"
        calls = row.parts.get("tool_calls", "")
        calls = calls.split(";")[0].replace("format ", "") if calls and not calls.startswith("none") else "no"
        probes = f"{row.passed}/{row.total}" if row.total else "-"
        family = f"{row.family}: {row.agree}/{row.samples} (+{row.explained})" if row.family else "-"
        lines.append(
            f"| `{row.name}` | {row.status} | {probes} | {reasoning} | {calls} | {family} | {_cell(row.reason)} |"
        )
    lines.append("")
    lines += summary(rows)
    return "\n".join(lines)


def summary(rows: list[Row]) -> list[str]:
    complete = sum(row.status == "complete" for row in rows)
    every = sum(row.status != "error" and row.total > 0 and row.passed == row.total for row in rows)
    families = [row for row in rows if row.family]
    agree = sum(row.agree for row in families)
    explained = sum(row.explained for row in families)
    samples = sum(row.samples for row in families)
    at_90 = sum(bool(row.samples) and row.agree / row.samples >= 0.9 for row in families)
    covered_90 = sum(bool(row.samples) and row.agreement.covered >= 0.9 for row in families)
    return [
        f"{complete} of {len(rows)} chat templates inferred completely (tool calls inferred and every applicable "
        f"validation probe comes back); {every} of {len(rows)} round-trip every applicable probe (the others "
        "include templates that ignore tool calls or cannot render them in the sandbox).",
        f"Agreement with the hand-written family template: {agree} of {samples} samples agree and {explained} more "
        f"are explained ({samples - agree - explained} unexplained); {at_90} of {len(families)} chat templates "
        f"with a family agree on at least 90% of its samples, {covered_90} of {len(families)} agree or explain at "
        "least 90%.",
    ]


def agreement_table(rows: list[Row]) -> str:
    """Per chat template with a family: agreeing, explained (by class) and unexplained samples."""
    lines = [
        "| chat template | family | agree | explained | unexplained | agree + explained | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if not row.family:
            continue
        found = row.agreement
        share = f"{100 * found.covered:.0f}%"
        lines.append(
            f"| `{row.name}` | {row.family} | {found.agree}/{found.total} | {found.explained_count} | "
            f"{len(found.disagreements)} | {share} | {_cell(found.reasons())} |"
        )
    return "\n".join(lines)


def quirks_table() -> str:
    from .agreement import QUIRKS

    lines = ["| class | the test | why a render cannot show it |", "|---|---|---|"]
    lines += [f"| {quirk.name} | {_cell(quirk.tested)} | {_cell(quirk.reason)} |" for quirk in QUIRKS]
    return "\n".join(lines)
