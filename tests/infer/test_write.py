"""`infer --write` on a save_pretrained directory: transformers loads the template offline and parses with it."""

from __future__ import annotations

import json

import chat_templates as ct
from compiler.cli import main


def _tiny_tokenizer(folder):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2, "<|im_start|>": 3, "<|im_end|>": 4}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="[UNK]", chat_template=ct.CHATML
    )
    tokenizer.save_pretrained(folder)


def test_write_stores_a_template_transformers_loads(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _tiny_tokenizer(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert "response_template" not in config
    status = main(["infer", str(tmp_path), "--write"])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "wrote response_template" in err
    written = json.loads((tmp_path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert written["response_template"]["start_anchor"] == "<|im_start|>assistant\n"
    assert {k: v for k, v in written.items() if k != "response_template"} == config

    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tmp_path), local_files_only=True)
    assert tokenizer.response_template == written["response_template"]
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True
    )
    output = (
        '<think>\nwhy\n</think>\n\nsure\n<tool_call>\n{"name": "f", "arguments": {"a": "b"}}\n</tool_call><|im_end|>'
    )
    assert tokenizer.parse_response(output, prefix=prompt) == {
        "role": "assistant",
        "reasoning_content": "why",
        "content": "sure",
        "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": "b"}}}],
    }


def test_write_needs_a_tokenizer_config(tmp_path, capsys):
    path = tmp_path / "chat_template.jinja"
    path.write_text(ct.CHATML, encoding="utf-8")
    assert main(["infer", str(path), "--write"]) == 2
    assert "--write needs a tokenizer_config.json" in capsys.readouterr().err
