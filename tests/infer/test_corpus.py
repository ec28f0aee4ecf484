"""infer over the corpus of real chat templates (`../shared/chat_templates/`, beside the checkout; the project
keeps no copy). Fails when fewer templates are inferred completely than the recorded floor, when an inferred
template does not compile for a language, or when agreement with the hand-written family templates drops.
Raise the floors when infer gets better (docs/infer.md has the table: `python -m compiler infer --corpus
../shared/chat_templates --table`)."""

from __future__ import annotations

from pathlib import Path


from compiler.backends import backend
from compiler.frontend import source as sources
from compiler.infer.agreement import FAMILIES, agreement
from compiler.infer.corpus import run
from compiler.pipeline import to_program

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "chat_templates"

# Recorded floors (see the module docstring).
COMPLETE_FLOOR = 32
AGREEING_SAMPLES_FLOOR = 395


def test_the_corpus_is_there():
    assert CORPUS.is_dir(), f"the corpus of chat templates is expected at {CORPUS} (../shared beside the checkout)"
    assert len(list(CORPUS.glob("*.jinja"))) >= 40


def test_corpus():
    """One pass over the corpus (it takes minutes) checks the three figures."""
    rows = run(CORPUS, families=False)
    complete = [row.name for row in rows if row.status == "complete"]
    compile_failures = []
    for row in rows:
        if row.template is None:
            continue
        program = to_program(sources.from_dict(row.template, "inferred"))
        for lang in ("py", "js", "go"):
            try:
                backend(lang).render(program)
            except Exception as error:  # noqa: BLE001 - listed, then asserted
                compile_failures.append(f"{row.name} ({lang}): {error}")
    total = agree = 0
    for row in rows:
        family = FAMILIES.get(row.name)
        if family:
            found = agreement(row.template, family)
            agree += found.agree
            total += found.total
    assert compile_failures == []
    assert len(complete) >= COMPLETE_FLOOR, f"{len(complete)} complete (floor {COMPLETE_FLOOR}): {complete}"
    assert agree >= AGREEING_SAMPLES_FLOOR, f"{agree} of {total} samples agree (floor {AGREEING_SAMPLES_FLOOR})"


def test_every_corpus_family_exists():
    assert set(FAMILIES) <= {path.stem for path in CORPUS.glob("*.jinja")}
    assert all((ROOT / "templates_src" / f"{family}.json").is_file() for family in FAMILIES.values())
