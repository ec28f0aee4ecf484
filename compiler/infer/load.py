"""Find the chat template: a .jinja file, a tokenizer_config.json, or a save_pretrained directory."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Used when the source names no special tokens (a bare .jinja file): templates
# that print them then show these in the inferred markers, and `infer` says so.
DEFAULT_BOS = "<s>"
DEFAULT_EOS = "</s>"


class SourceError(Exception):
    """The SOURCE cannot be read as a chat template."""


@dataclass
class ChatSource:
    chat_template: str
    origin: str
    bos_token: str
    eos_token: str
    tokens_known: bool  # bos/eos came from the source, not the defaults
    config_path: Path | None  # the tokenizer_config.json that --write updates


def _token(value) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def _from_config(path: Path, data: dict, template: str | None = None) -> ChatSource:
    chat = template if template is not None else data.get("chat_template")
    if isinstance(chat, list):
        named = {item.get("name"): item.get("template") for item in chat if isinstance(item, dict)}
        chat = named.get("default", next(iter(named.values()), None))
    if not isinstance(chat, str):
        raise SourceError(f"{path}: no chat_template (a string or a list of {{name, template}})")
    bos, eos = _token(data.get("bos_token")), _token(data.get("eos_token"))
    return ChatSource(
        chat_template=chat,
        origin=str(path),
        bos_token=bos if bos is not None else DEFAULT_BOS,
        eos_token=eos if eos is not None else DEFAULT_EOS,
        tokens_known=bos is not None or eos is not None,
        config_path=path,
    )


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SourceError(f"{path}: {error}") from None
    if not isinstance(data, dict):
        raise SourceError(f"{path}: not a JSON object")
    return data


def load(spec: str | Path, *, bos_token: str | None = None, eos_token: str | None = None) -> ChatSource:
    """Read SOURCE; explicit bos/eos override the source's."""
    path = Path(spec)
    if path.is_dir():
        config = path / "tokenizer_config.json"
        jinja = path / "chat_template.jinja"
        data = _read_json(config) if config.is_file() else {}
        template = jinja.read_text(encoding="utf-8") if jinja.is_file() else None
        if template is None and not data:
            raise SourceError(f"{path}: neither chat_template.jinja nor tokenizer_config.json")
        source = _from_config(config if config.is_file() else jinja, data, template)
        source.config_path = config
    elif path.suffix == ".json":
        source = _from_config(path, _read_json(path))
    elif path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SourceError(f"{path}: {error}") from None
        source = ChatSource(text, str(path), DEFAULT_BOS, DEFAULT_EOS, False, None)
    else:
        raise SourceError(f"{path}: no such file or directory")
    if bos_token is not None:
        source.bos_token = bos_token
    if eos_token is not None:
        source.eos_token = eos_token
    source.tokens_known = source.tokens_known or eos_token is not None
    return source


def write_response_template(config_path: Path, template: dict) -> None:
    """Store the template as `response_template`, keeping every other key (as save_pretrained writes it)."""
    data = _read_json(config_path) if config_path.is_file() else {}
    data["response_template"] = template
    config_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
