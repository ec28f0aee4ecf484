"""Chat templates are untrusted code: each bad one gets a clear error naming its cause, and nothing is written."""

from __future__ import annotations

import json

import pytest

import chat_templates as ct
from compiler.cli import main
from compiler.infer import RenderError


@pytest.mark.parametrize(
    "template, kind",
    [
        (ct.LOOPS, "loop"),
        (ct.EXPLODES, "explode"),
        (ct.ESCAPES, "sandbox"),
        (ct.MUTATES, "sandbox"),
        (ct.DOES_NOT_RENDER, "raised"),
        (ct.SYNTAX, "syntax"),
    ],
)
def test_bad_renders_raise_a_render_error(render_with, template, kind):
    renderer = render_with(template, timeout=3)
    with pytest.raises(RenderError) as caught:
        renderer.render([{"role": "user", "content": "x" * 10}])
    assert caught.value.kind == kind


def test_memory_explosion_is_contained(render_with):
    renderer = render_with("{{ 'x' * 100000000000 }}", timeout=5)
    with pytest.raises(RenderError) as caught:
        renderer.render([])
    assert caught.value.kind == "explode"
    # The worker survives or restarts: a good render afterwards still works.
    assert render_with("ok{{ messages | length }}").render([]) == "ok0"


def test_renderer_restarts_after_a_timeout(render_with):
    renderer = render_with("{% if messages %}" + ct.LOOPS + "{% endif %}done", timeout=2)
    with pytest.raises(RenderError):
        renderer.render([{"role": "user", "content": "a"}])
    assert renderer.render([]) == "done"


def _write(tmp_path, text):
    path = tmp_path / "chat_template.jinja"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "template, message",
    [
        (ct.LOOPS, "did not finish in time"),
        (ct.EXPLODES, "grew past"),
        (ct.ESCAPES, "outside the sandbox"),
        (ct.DOES_NOT_RENDER, "this template needs a system message"),
        (ct.SYNTAX, "does not compile"),
        (ct.NO_ASSISTANT, "renders no assistant turn"),
        (ct.NO_PROMPT, "no start anchor"),
    ],
)
def test_cli_gives_a_clear_error_and_writes_nothing(tmp_path, capsys, template, message):
    out = tmp_path / "template.json"
    status = main(["infer", str(_write(tmp_path, template)), "-o", str(out), "--timeout", "5"])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err
    assert "nothing written" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_cli_reports_ignored_tool_calls(tmp_path, capsys):
    out = tmp_path / "template.json"
    status = main(["infer", str(_write(tmp_path, ct.IGNORES_TOOLS)), "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1
    assert "tool calls: not inferred" in err and "ignores tool calls" in err
    assert "tool_calls" not in json.loads(out.read_text(encoding="utf-8"))["fields"]


def test_renders_are_deterministic(render_with):
    """strftime_now reads a fixed clock, so two probes never differ by the time they were rendered at."""
    renderer = render_with("{{ strftime_now('%Y-%m-%d %H:%M:%S.%f') }}")
    first = renderer.render([])
    assert first == "2026-01-15 12:00:00.000000"
    assert render_with("{{ strftime_now('%Y-%m-%d %H:%M:%S.%f') }}", timeout=9).render([]) == first
