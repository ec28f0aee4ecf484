"""infer over the corpus of real chat templates (`../shared/chat_templates/`, beside the checkout; the project
keeps no copy). Fails when fewer templates are inferred completely or round-trip every validation probe than the
recorded floors, when an inferred template does not compile for a language, or when agreement with the
hand-written family templates drops (samples agreeing; agreeing or explained; templates at 90% or more).
Raise the floors when infer gets better (docs/infer.md has the table: `python -m compiler infer --corpus
../shared/chat_templates --table`)."""

from __future__ import annotations

from pathlib import Path


from compiler.backends import backend
from compiler.frontend import source as sources
from compiler.infer.agreement import FAMILIES
from compiler.infer.corpus import run
from compiler.pipeline import to_program

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "chat_templates"

# Recorded floors (see the module docstring).
COMPLETE_FLOOR = 33  # inferred completely
ROUNDTRIP_FLOOR = 41  # every applicable validation probe comes back
AGREEING_SAMPLES_FLOOR = 513  # family samples parsed as the hand-written template parses them
COVERED_SAMPLES_FLOOR = 732  # agreeing or explained (agreement.QUIRKS)
COVERED_TEMPLATES_FLOOR = 41  # chat templates whose family samples agree or are explained for at least 90%


def test_the_corpus_is_there():
    assert CORPUS.is_dir(), f"the corpus of chat templates is expected at {CORPUS} (../shared beside the checkout)"
    assert len(list(CORPUS.glob("*.jinja"))) >= 40


def test_corpus():
    """One pass over the corpus (it takes minutes) checks the figures."""
    rows = run(CORPUS)
    complete = [row.name for row in rows if row.status == "complete"]
    roundtrip = [row.name for row in rows if row.status != "error" and row.total and row.passed == row.total]
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
    families = [row for row in rows if row.agreement is not None]
    assert {row.name for row in families} == set(FAMILIES)
    agree = sum(row.agree for row in families)
    covered = agree + sum(row.explained for row in families)
    total = sum(row.samples for row in families)
    covered_templates = [row.name for row in families if row.agreement.covered >= 0.9]
    assert compile_failures == []
    assert len(complete) >= COMPLETE_FLOOR, f"{len(complete)} complete (floor {COMPLETE_FLOOR}): {complete}"
    assert len(roundtrip) >= ROUNDTRIP_FLOOR, f"{len(roundtrip)} round-trip (floor {ROUNDTRIP_FLOOR})"
    assert agree >= AGREEING_SAMPLES_FLOOR, f"{agree} of {total} samples agree (floor {AGREEING_SAMPLES_FLOOR})"
    assert covered >= COVERED_SAMPLES_FLOOR, f"{covered} of {total} agree or are explained"
    assert len(covered_templates) >= COVERED_TEMPLATES_FLOOR, covered_templates


def test_explained_samples_name_their_class():
    """Every explained sample is filed under a class that states why a render cannot show it."""
    from compiler.infer.agreement import QUIRKS, agreement

    names = {quirk.name for quirk in QUIRKS}
    assert all(quirk.reason for quirk in QUIRKS)
    # A chat template that renders neither reasoning nor calls: the family samples with them are explained.
    found = agreement(
        {
            "version": 1,
            "start_anchor": "<|im_start|>assistant\n",
            "fields": {"content": {"close_pattern": r"\s*<\|im_end\|>[\s\S]*"}},
        },
        "qwen3",
        "",
    )
    assert set(found.explained) <= names
    assert "reasoning not rendered" in found.explained and "calls not rendered" in found.explained
    assert found.agree + found.explained_count + len(found.disagreements) == found.total


def test_every_corpus_family_exists():
    assert set(FAMILIES) <= {path.stem for path in CORPUS.glob("*.jinja")}
    assert all((ROOT / "templates_src" / f"{family}.json").is_file() for family in FAMILIES.values())


def test_written_otherwise_reads_the_chat_templates_own_render():
    """A sample not written as the chat template writes the hand-written result (calls as a JSON list where it
    writes one object per <tool_call>, another key, another end of turn) is explained; one written as rendered,
    key order, values and spacing aside, is not; nor is one the hand-written template raises on."""
    from chat_templates import CHATML

    from compiler.infer.agreement import Case, _written_otherwise
    from compiler.infer.sandbox import Renderer

    calls = [
        {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}},
        {"type": "function", "function": {"name": "get_time", "arguments": "{}"}},
    ]
    want = {"role": "assistant", "content": "", "tool_calls": calls}
    as_rendered = (
        '<tool_call>\n{"arguments": {"days": 2, "city": "Oslo"}, "name": "get_weather"}\n</tool_call>\n'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call><|im_end|>'
    )
    as_list = '<tool_call>[{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}, {"name": "get_time", "arguments": {}}]</tool_call><|im_end|>'

    def case(output: str, wanted: dict | str = want) -> Case:
        sample = {"id": "s", "prefix": "", "output": output}
        return Case(sample, wanted, "ValueError", {}, None, CHATML, renderer)

    other_key = as_rendered.replace('"arguments": {"days"', '"parameters": {"days"')
    other_end = as_rendered.replace("<|im_end|>", "<|eom|>")
    with Renderer(CHATML) as renderer:
        assert _written_otherwise(case(as_list))
        assert _written_otherwise(case(other_key))
        assert _written_otherwise(case(other_end))
        assert not _written_otherwise(case(as_rendered))
        assert not _written_otherwise(case(as_list, "ValueError"))
        # content alone: written as rendered, or with another end of turn
        assert not _written_otherwise(case("Hello there.<|im_end|>", {"role": "assistant", "content": "Hello there."}))
        assert _written_otherwise(case("Hello there.<|end|>", {"role": "assistant", "content": "Hello there."}))
    # A template that writes more after the last turn (Command R7B opens the next one): only its end of turn counts.
    with Renderer(CHATML + "<|next|>") as renderer:
        assert not _written_otherwise(case("Hello there.<|im_end|>", {"role": "assistant", "content": "Hello there."}))
        assert not _written_otherwise(case(as_rendered))
    # A template that refuses an empty assistant turn (Mistral's): the turn is read from the generation prompt.
    refuses_empty = (
        "{%- for m in messages if m.role == 'assistant' and not m.content and not m.tool_calls -%}"
        "{{ raise_exception('empty turn') }}{%- endfor -%}" + CHATML
    )
    with Renderer(refuses_empty) as renderer:
        assert not _written_otherwise(case(as_rendered))
        assert _written_otherwise(case(as_list))
