"""Reading SOURCE: a .jinja file, a tokenizer_config.json (string or named list), a save_pretrained directory."""

from __future__ import annotations

import json

import pytest

from compiler.infer.load import DEFAULT_EOS, SourceError, load, write_response_template


def test_jinja_file_uses_default_tokens(tmp_path):
    path = tmp_path / "chat_template.jinja"
    path.write_text("{{ messages }}", encoding="utf-8")
    source = load(path)
    assert source.chat_template == "{{ messages }}"
    assert (source.eos_token, source.tokens_known, source.config_path) == (DEFAULT_EOS, False, None)
    assert load(path, eos_token="<|end|>").eos_token == "<|end|>"


def test_config_with_a_named_list_and_token_dicts(tmp_path):
    path = tmp_path / "tokenizer_config.json"
    path.write_text(
        json.dumps(
            {
                "chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
                "bos_token": {"content": "<B>"},
                "eos_token": "<E>",
            }
        ),
        encoding="utf-8",
    )
    source = load(path)
    assert (source.chat_template, source.bos_token, source.eos_token, source.tokens_known) == ("D", "<B>", "<E>", True)


def test_directory_prefers_chat_template_jinja(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<E>", "other": 1}), encoding="utf-8")
    (tmp_path / "chat_template.jinja").write_text("J", encoding="utf-8")
    source = load(tmp_path)
    assert (source.chat_template, source.eos_token) == ("J", "<E>")
    write_response_template(source.config_path, {"fields": {"content": {}}})
    written = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert written == {"eos_token": "<E>", "other": 1, "response_template": {"fields": {"content": {}}}}


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: p, "no such file"),
        (lambda p: (p.mkdir(), p)[1], "neither chat_template.jinja nor tokenizer_config.json"),
        (lambda p: (p.write_text("{}", encoding="utf-8"), p)[1], "no chat_template"),
        (lambda p: (p.write_text("[1]", encoding="utf-8"), p)[1], "not a JSON object"),
    ],
)
def test_bad_sources_name_the_cause(tmp_path, setup, message):
    path = setup(tmp_path / ("x.json" if message in ("no chat_template", "not a JSON object") else "missing"))
    with pytest.raises(SourceError, match=message):
        load(path)
