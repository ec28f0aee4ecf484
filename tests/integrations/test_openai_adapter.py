"""OpenAI chat.completions output: runtime/openai/.

The streaming adapter, reassembled the way OpenAI clients reassemble deltas,
must give what `to_openai_message` gives for the parser's message, for every
sample of every bundled template and for any chunking of its output; tool-call
arguments of json / xml-inline calls must stream (arrive in several pieces).
"""

import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

from conftest import ROOT, load_generated
from runtime.openai import OpenAIStreamAdapter, to_openai_message, tool_call_id
from samples import load_samples

TEMPLATES = sorted(path.stem for path in (ROOT / "templates_src" / "samples").glob("*.json"))
SAMPLES = [(name, sample) for name in TEMPLATES for sample in load_samples(name)]
OK_SAMPLES = [(name, sample) for name, sample in SAMPLES if "expected_error" not in sample]
ERROR_SAMPLES = [(name, sample) for name, sample in SAMPLES if "expected_error" in sample]
STREAMING_TEMPLATES = [
    name
    for name in TEMPLATES
    if load_generated(name).TEMPLATE["fields"].get("tool_calls", {}).get("content") in ("json", "xml-inline")
]
CID = "chatcmpl-test"
# Roughly how models emit text: special tokens whole, then words, spaces, characters.
TOKENS = re.compile(r"\[[A-Z_]+\]|<\|[^|]*\|>|<｜[^｜]*｜>|<[^<>\s]*>|\w+|\s|.", re.DOTALL)


def sample_id(item):
    return f"{item[0]}-{item[1]['id']}"


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def reassemble(chunks):
    """Deltas -> message, as OpenAI clients do it: content and reasoning_content
    concatenated; per tool-call index the first id/type, name and arguments concatenated."""
    content = reasoning = None
    calls = {}
    for chunk in chunks:
        delta = chunk["choices"][0]["delta"]
        if delta.get("content") is not None:
            content = (content or "") + delta["content"]
        if delta.get("reasoning_content") is not None:
            reasoning = (reasoning or "") + delta["reasoning_content"]
        for entry in delta.get("tool_calls") or []:
            call = calls.setdefault(
                entry["index"], {"id": None, "type": None, "function": {"name": "", "arguments": ""}}
            )
            call["id"] = call["id"] or entry.get("id")
            call["type"] = call["type"] or entry.get("type")
            function = entry.get("function") or {}
            call["function"]["name"] += function.get("name") or ""
            call["function"]["arguments"] += function.get("arguments") or ""
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    if calls:
        assert sorted(calls) == list(range(len(calls))), "tool call indices must be 0..n-1"
        message["tool_calls"] = [calls[index] for index in range(len(calls))]
    return message


def run_adapter(module, prefix, pieces, tools=None, **kwargs):
    """('ok', chunks, adapter) or ('error', exception class name, None)."""
    adapter = OpenAIStreamAdapter(module, prefix, tools=tools, model="test-model", id=CID, created=1700000000, **kwargs)
    chunks = []
    try:
        for piece in pieces:
            chunks += adapter.feed(piece)
        chunks += adapter.finish()
    except Exception as error:  # noqa: BLE001 - the class is the result
        return "error", type(error).__name__, None
    return "ok", chunks, adapter


def run_parser(module, prefix, pieces, tools=None):
    """('ok', OpenAI message) or ('error', exception class name) for the parser fed the same pieces."""
    parser = module.ResponseParser(prefix, tools=tools)
    try:
        for piece in pieces:
            parser.feed(piece)
        message = parser.finalize()[0]
    except Exception as error:  # noqa: BLE001
        return "error", type(error).__name__
    return "ok", to_openai_message(message, completion_id=CID)


def check_chunks(chunks):
    """Every chunk is a valid chat.completion.chunk; the stream's framing is right."""
    assert chunks, "finish() always returns the final chunk"
    for position, chunk in enumerate(chunks):
        ChatCompletionChunk.model_validate(chunk)
        assert chunk["id"] == CID and chunk["object"] == "chat.completion.chunk"
        assert chunk["model"] == "test-model" and chunk["created"] == 1700000000
        choice = chunk["choices"][0]
        assert choice["index"] == 0
        delta = choice["delta"]
        assert ("role" in delta) == (position == 0)
        if position < len(chunks) - 1:
            assert choice["finish_reason"] is None
            assert set(delta) - {"role"}, "no empty chunks before the last"
        for key in ("content", "reasoning_content"):
            if key in delta:
                assert isinstance(delta[key], str) and delta[key]
    seen = set()
    for chunk in chunks:
        for entry in chunk["choices"][0]["delta"].get("tool_calls") or []:
            first = entry["index"] not in seen
            seen.add(entry["index"])
            # id, type and name come once, in the first delta of a call
            assert ("id" in entry) == first and ("type" in entry) == first
            assert ("name" in entry["function"]) == first
            if first:
                assert entry["id"] == tool_call_id(CID, entry["index"])
                assert entry["type"] == "function"
    last = chunks[-1]["choices"][0]
    assert last["finish_reason"] == ("tool_calls" if seen else "stop")


def argument_pieces(chunks):
    """index -> the non-empty argument deltas of that call."""
    pieces = {}
    for chunk in chunks:
        for entry in chunk["choices"][0]["delta"].get("tool_calls") or []:
            text = entry["function"].get("arguments")
            if text:
                pieces.setdefault(entry["index"], []).append(text)
    return pieces


def assert_streams_like_parser(name, sample, pieces):
    module = load_generated(name) if isinstance(name, str) else name
    tools = sample.get("tools")
    want = run_parser(module, sample["prefix"], pieces, tools)
    got = run_adapter(module, sample["prefix"], pieces, tools)
    if want[0] == "error":
        assert got[:2] == want, f"{name}/{sample['id']}: the adapter must raise what the parser raises"
        return None
    assert got[0] == "ok", f"{name}/{sample['id']}: adapter raised {got[1]}"
    check_chunks(got[1])
    assert reassemble(got[1]) == want[1]
    assert got[2].to_message() == want[1]
    return got[1]


# --------------------------------------------------------------------------
# Every sample: streamed == to_openai_message(parse_response(...))
# --------------------------------------------------------------------------


@pytest.mark.parametrize("item", OK_SAMPLES, ids=sample_id)
def test_sample_reassembles_to_the_non_streaming_message(item):
    name, sample = item
    module = load_generated(name)
    message = module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools"))
    want = to_openai_message(message, completion_id=CID)
    status, chunks, adapter = run_adapter(module, sample["prefix"], [sample["output"]], sample.get("tools"))
    assert status == "ok", chunks
    assert adapter.message == message
    check_chunks(chunks)
    assert reassemble(chunks) == want
    # per character too; compared with the parser fed the same pieces (see the property test)
    assert_streams_like_parser(name, sample, list(sample["output"]))


@pytest.mark.parametrize("item", ERROR_SAMPLES, ids=sample_id)
def test_error_sample_raises_what_the_parser_raises(item):
    name, sample = item
    module = load_generated(name)
    for pieces in ([sample["output"]], list(sample["output"])):
        want = run_parser(module, sample["prefix"], pieces, sample.get("tools"))
        assert want[0] == "error"
        assert run_adapter(module, sample["prefix"], pieces, sample.get("tools"))[:2] == want
    with pytest.raises(Exception) as parsed:
        module.parse_response(sample["output"], prefix=sample["prefix"], tools=sample.get("tools"))
    assert type(parsed.value).__name__ == sample["expected_error"]


# --------------------------------------------------------------------------
# Arguments stream
# --------------------------------------------------------------------------


# Templates whose calls' arguments the adapter sends whole, at the call's
# close (still exact), and why; the test fails when one starts to stream.
ARGUMENTS_COME_WHOLE = {
    "deepseek_v4": "its outer tag pattern reads the key before the value (`^(?P<key>invoke)...(?P<value>...)`); "
    "xml-inline arguments stream only under a leading `(?P<value>.*)`",
}


@pytest.mark.parametrize("name", STREAMING_TEMPLATES)
def test_arguments_arrive_in_pieces(name):
    """Fed token by token, some realistic sample of every json / xml-inline
    template sends a call's arguments in more pieces than "{" and the rest
    (except those listed in ARGUMENTS_COME_WHOLE, which send them in one)."""
    best = 0
    for sample in load_samples(name):
        if "expected_error" in sample:
            continue
        pieces = TOKENS.findall(sample["output"])
        assert "".join(pieces) == sample["output"]
        status, chunks, _ = run_adapter(load_generated(name), sample["prefix"], pieces, sample.get("tools"))
        if status == "ok":
            best = max([best] + [len(parts) for parts in argument_pieces(chunks).values()])
    if name in ARGUMENTS_COME_WHOLE:
        assert best == 1, f"{name} streams its arguments now: drop it from ARGUMENTS_COME_WHOLE"
        return
    assert best >= 3, f"{name}: arguments did not stream"


def one_sample(name, sample_name):
    return next(sample for sample in load_samples(name) if sample["id"] == sample_name)


def test_json_arguments_stream_per_character_and_cast_values_come_whole():
    sample = one_sample("qwen3", "single_call_typed")  # {"city": "Paris", "days": "3"}, days: integer
    chunks = assert_streams_like_parser("qwen3", sample, list(sample["output"]))
    pieces = argument_pieces(chunks)[0]
    assert "".join(pieces) == '{"city": "Paris", "days": 3}'
    assert pieces == ["{", '"city": ', '"', "P", "a", "r", "i", "s", '"', ', "days": ', "3", "}"]
    # without tools nothing is cast: the string streams too
    status, chunks, _ = run_adapter(load_generated("qwen3"), sample["prefix"], list(sample["output"]))
    assert argument_pieces(chunks)[0][-5:] == [', "days": ', '"', "3", '"', "}"]


def test_xml_arguments_stream_one_parameter_at_a_time():
    sample = one_sample("qwen3_5", "single_call_typed")
    chunks = assert_streams_like_parser("qwen3_5", sample, list(sample["output"]))
    assert argument_pieces(chunks)[0] == ["{", '"city": "Paris"', ', "days": 3', ', "include_hourly": true}']


def test_closing_tags_inside_an_xml_value_are_not_taken_for_the_end():
    sample = one_sample("qwen3_5", "closing_tags_inside_argument")
    for pieces in (list(sample["output"]), [sample["output"]]):
        assert_streams_like_parser("qwen3_5", sample, pieces)


def test_name_from_the_open_pattern_is_sent_at_the_open():
    module = load_generated("qwen3_5")
    adapter = OpenAIStreamAdapter(module, "", model="m", id=CID)
    chunks = adapter.feed("<tool_call>\n<function=get_weather>\n<parameter=ci")
    entries = [entry for chunk in chunks for entry in chunk["choices"][0]["delta"].get("tool_calls", [])]
    assert entries and entries[0]["function"]["name"] == "get_weather"
    assert entries[0]["function"]["arguments"] == "{"


def test_name_from_the_body_is_sent_when_written():
    module = load_generated("qwen3")
    adapter = OpenAIStreamAdapter(module, "", model="m", id=CID)
    assert not adapter.feed('<tool_call>\n{"name": "get_wea')
    chunks = adapter.feed('ther", "arguments": {"ci')
    entries = [entry for chunk in chunks for entry in chunk["choices"][0]["delta"].get("tool_calls", [])]
    assert entries[0]["function"] == {"name": "get_weather", "arguments": "{"}


def test_repeated_key_keeps_the_object_as_written():
    """json.loads keeps the last value of a repeated key at the first key's place:
    no prefix of json.dumps can be sent early, so the deltas spell the object as
    written, which json.loads reads as the same arguments."""
    module = load_generated("qwen3")
    text = '<tool_call>\n{"name": "f", "arguments": {"a": 1, "b": 2, "a": 3}}\n</tool_call><|im_end|>'
    status, chunks, adapter = run_adapter(module, "", list(text))
    assert status == "ok"
    arguments = reassemble(chunks)["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"a": 1, "b": 2, "a": 3}'
    assert json.loads(arguments) == adapter.message["tool_calls"][0]["function"]["arguments"] == {"a": 3, "b": 2}
    xml = load_generated("qwen3_5")
    text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>"
    status, chunks, adapter = run_adapter(xml, "", list(text))
    arguments = reassemble(chunks)["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == adapter.message["tool_calls"][0]["function"]["arguments"] == {"a": "2"}


# --------------------------------------------------------------------------
# Property tests
# --------------------------------------------------------------------------


@st.composite
def chunking(draw, text):
    """The whole text, one piece per character, or random cuts (piece sizes drawn, used in turn)."""
    kind = draw(st.sampled_from(["whole", "chars", "cuts", "cuts"]))
    if kind == "whole" or len(text) < 2:
        return [text]
    if kind == "chars":
        return list(text)
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=24))
    pieces, start, turn = [], 0, 0
    while start < len(text):
        pieces.append(text[start : start + sizes[turn % len(sizes)]])
        start += sizes[turn % len(sizes)]
        turn += 1
    return pieces


@pytest.mark.parametrize("name", TEMPLATES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_any_chunking_of_a_sample_reassembles_to_the_parsers_message(name, data):
    """Compared with the parser fed the same pieces (its result may depend on the
    chunking, as the reference's does: e.g. mistral's optional [ARGS] per character)."""
    sample = data.draw(st.sampled_from(load_samples(name)), label="sample")
    pieces = data.draw(chunking(sample["output"]), label="pieces")
    assert_streams_like_parser(name, sample, pieces)


JSON_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "x": {"type": ["number", "null"]},
                    "b": {"anyOf": [{"type": "boolean"}, {"type": "string"}]},
                    "l": {"type": "array"},
                    "s": {"type": "string"},
                },
            },
        },
    }
]
KEYS = st.sampled_from(["n", "x", "b", "l", "s", "k", "é", 'q"'])
STRINGS = st.text(st.sampled_from(list('ab "\\/\n\té😀\x01<>{},:[]') + ["\ud83d"]), max_size=6) | st.sampled_from(
    ["3", "1.5", "true", "null", "[1]", "{}", "x"]
)
SCALARS = STRINGS | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8
)


def encode_json(value, draw):
    """JSON text for `value` with random spacing, escapes and number spellings."""
    space = lambda: draw(st.sampled_from(["", "", " ", "\n  ", "\t"]))  # noqa: E731
    if isinstance(value, dict):
        members = [
            encode_json(key, draw) + space() + ":" + space() + encode_json(item, draw) for key, item in value.items()
        ]
        return "{" + space() + ("," + space()).join(members) + space() + "}"
    if isinstance(value, list):
        return "[" + space() + ("," + space()).join(encode_json(item, draw) for item in value) + space() + "]"
    if isinstance(value, str):
        out = []
        for char in value:
            style = draw(st.sampled_from(["plain", "escape", "u"]))
            if char in '"\\' or ord(char) < 0x20 or 0xD800 <= ord(char) < 0xE000:
                style = "escape" if style == "plain" else style
            if style == "plain":
                out.append(char)
            elif style == "escape" or ord(char) > 0xFFFF:
                out.append(json.dumps(char)[1:-1])
            else:
                out.append("\\u%04X" % ord(char) if draw(st.booleans()) else "\\u%04x" % ord(char))
        return '"' + "".join(out) + '"'
    if isinstance(value, float) and value == value and abs(value) != float("inf") and draw(st.booleans()):
        return "%E" % value if draw(st.booleans()) else repr(value)
    return json.dumps(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_json_arguments_of_any_shape_reassemble_exactly(data):
    arguments = data.draw(st.dictionaries(KEYS, VALUES, max_size=4) | VALUES, label="arguments")
    body = data.draw(st.sampled_from(["name_first", "name_last"]))
    encoded = encode_json(arguments, data.draw)
    if body == "name_first":
        call = '{"name": "f", "arguments": ' + encoded + "}"
    else:
        call = '{"arguments": ' + encoded + ', "name": "f"}'
    second = '<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>'
    text = "Sure.\n<tool_call>\n" + call + "\n</tool_call>\n" + second + "<|im_end|>"
    tools = data.draw(st.sampled_from([None, JSON_TOOLS]))
    pieces = data.draw(chunking(text))
    assert_streams_like_parser("qwen3", {"id": "generated", "prefix": "", "tools": tools}, pieces)


def gemma_encode(value, draw):
    """gemma4's dialect: bare keys, <|"|>-delimited strings."""
    if isinstance(value, dict):
        members = []
        for key, item in value.items():
            bare = key.isidentifier() and draw(st.booleans())
            members.append((key if bare else '<|"|>' + key + '<|"|>') + ":" + gemma_encode(item, draw))
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(gemma_encode(item, draw) for item in value) + "]"
    if isinstance(value, str) and "<|" not in value and "\x01" not in value and draw(st.booleans()):
        return '<|"|>' + value + '<|"|>'
    return json.dumps(value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_json_dialect_arguments_reassemble_exactly(data):
    arguments = data.draw(st.dictionaries(KEYS, VALUES, max_size=4), label="arguments")
    text = "Let me check.<|tool_call>call:f" + gemma_encode(arguments, data.draw) + "<tool_call|><turn|>"
    tools = data.draw(st.sampled_from([None, JSON_TOOLS]))
    pieces = data.draw(chunking(text))
    assert_streams_like_parser("gemma4", {"id": "generated", "prefix": "", "tools": tools}, pieces)


XML_VALUES = st.sampled_from(
    ["Paris", "3", "true", "", "\n", " spaced ", "a\nb", "null", "[1, 2]", "1.5", "é😀", "a</parameter>b", "</function>",
     "a</parameter>\n</function>", "<parameter=k>", "</tool_call>", "x</parameter>\n\n", "</arg_value>", "</invoke>",
     "a</arg_value>\n</tool_call>"]
)  # fmt: skip
# template -> (call text around the parameters, one parameter)
XML_FORMATS = {
    "qwen3_5": ("Calling.\n<tool_call>\n<function=f>\n{}</function>\n</tool_call><|im_end|>", "<parameter={k}>{nl}{v}{nl}</parameter>{nl}"),
    "seed_oss": ("<seed:tool_call>\n<function=f>\n{}</function>\n</seed:tool_call><seed:eos>", "<parameter={k}>{nl}{v}{nl}</parameter>{nl}"),
    "glm45": ("\nCalling.\n<tool_call>f\n{}</tool_call><|observation|>", "<arg_key>{k}</arg_key>{nl}<arg_value>{v}</arg_value>{nl}"),
    "minimax_m2": (
        "Go.\n</think>\n\n<minimax:tool_call>\n<invoke name=\"f\">\n{}</invoke>\n</minimax:tool_call>[e~[",
        '<parameter name="{k}">{v}</parameter>{nl}',
    ),
}  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_xml_arguments_reassemble_exactly(data):
    name = data.draw(st.sampled_from(sorted(XML_FORMATS)))
    call, parameter = XML_FORMATS[name]
    params = data.draw(st.dictionaries(st.sampled_from(["n", "x", "b", "l", "s", "city"]), XML_VALUES, max_size=4))
    newline = lambda: data.draw(st.sampled_from(["", "\n"]))  # noqa: E731
    text = call.format("".join(parameter.format(k=key, v=value, nl=newline()) for key, value in params.items()))
    tools = data.draw(st.sampled_from([None, JSON_TOOLS]))
    pieces = data.draw(chunking(text))
    assert_streams_like_parser(name, {"id": "generated", "prefix": "", "tools": tools}, pieces)


# --------------------------------------------------------------------------
# finish_reason, message shape, content rules
# --------------------------------------------------------------------------


def test_finish_reason():
    qwen3 = load_generated("qwen3")
    _, chunks, _ = run_adapter(qwen3, "", ["Hello!<|im_end|>"])
    assert [chunk["choices"][0]["finish_reason"] for chunk in chunks] == [None, "stop"]
    assert chunks[-1]["choices"][0]["delta"] == {}
    _, chunks, _ = run_adapter(qwen3, "", ['<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'])
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    # nothing generated: one chunk, with the role and the finish reason
    _, chunks, _ = run_adapter(qwen3, "", [""])
    assert len(chunks) == 1 and chunks[0]["choices"][0] == {
        "index": 0,
        "delta": {"role": "assistant"},
        "finish_reason": "stop",
    }
    adapter = OpenAIStreamAdapter(qwen3, "", model="m")
    adapter.feed("Cut off mid-sent")
    assert adapter.finish("length")[-1]["choices"][0]["finish_reason"] == "length"
    with pytest.raises(RuntimeError):
        adapter.feed("more")


def test_to_openai_message_shape():
    message = {
        "role": "assistant",
        "reasoning_content": "Think.",
        "tool_calls": [
            {"type": "function", "function": {"name": "f", "arguments": {"x": 1, "y": "é"}}},
            {"type": "function", "function": {"name": "g"}},
        ],
    }
    out = to_openai_message(message, completion_id="c1")
    assert out == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Think.",
        "tool_calls": [
            {
                "id": tool_call_id("c1", 0),
                "type": "function",
                "function": {"name": "f", "arguments": '{"x": 1, "y": "\\u00e9"}'},
            },
            {"id": tool_call_id("c1", 1), "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ],
    }
    assert tool_call_id("c1", 0).startswith("call_") and tool_call_id("c1", 0) != tool_call_id("c1", 1)
    assert to_openai_message(message, id_prefix="fc_", completion_id="c1")["tool_calls"][0]["id"].startswith("fc_")
    assert to_openai_message({"role": "assistant", "content": "Hi"}) == {"role": "assistant", "content": "Hi"}


def test_content_whitespace_is_held_until_interior():
    qwen3 = load_generated("qwen3")
    adapter = OpenAIStreamAdapter(qwen3, "", model="m", id=CID)
    texts = []
    for piece in ["\n\n  Hello", "  ", "\n", "world", "  \n", "<|im_end|>"]:
        texts += [chunk["choices"][0]["delta"].get("content") for chunk in adapter.feed(piece)]
    texts += [chunk["choices"][0]["delta"].get("content") for chunk in adapter.finish()]
    assert [text for text in texts if text] == ["Hello", "  \nworld"]
    assert adapter.message["content"] == "Hello  \nworld"


def test_joined_fields_send_the_separator():
    gpt_oss = load_generated("gpt_oss")
    text = (
        "<|channel|>analysis<|message|>First.<|end|><|start|>assistant<|channel|>analysis<|message|>  <|end|>"
        "<|start|>assistant<|channel|>analysis<|message|>Third.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Done.<|return|>"
    )
    for pieces in ([text], list(text)):
        chunks = assert_streams_like_parser("gpt_oss", {"id": "joined", "prefix": ""}, pieces)
        assert reassemble(chunks)["reasoning_content"] == "First.\n\nThird."


def test_prefilled_text_is_sent_in_the_first_chunk():
    qwen3 = load_generated("qwen3")
    adapter = OpenAIStreamAdapter(qwen3, "<|im_start|>assistant\n<think>\nPrefilled thought", model="m", id=CID)
    chunks = adapter.feed(" goes on.</think>Answer.<|im_end|>") + adapter.finish()
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "reasoning_content": "Prefilled thought goes on."}
    assert reassemble(chunks) == to_openai_message(adapter.message, completion_id=CID)


def test_works_next_to_a_vendored_parser(tmp_path):
    """Standard library only: runs beside a vendored parser, without the project."""
    from compiler.cli import main

    out = tmp_path / "vendor"
    assert main(["build", "qwen3_5", "--vendor", "-o", str(out)]) == 0
    shutil.copytree(ROOT / "runtime" / "openai", out / "openai_chunks", ignore=shutil.ignore_patterns("__pycache__"))
    script = textwrap.dedent("""
        import json, sys
        sys.modules["runtime"] = sys.modules["compiler"] = sys.modules["openai"] = None
        sys.path.insert(0, %r)
        import qwen3_5, openai_chunks
        text = "<tool_call>\\n<function=f>\\n<parameter=a>\\n1\\n</parameter>\\n<parameter=b>\\nx\\n</parameter>\\n</function>\\n</tool_call>"
        adapter = openai_chunks.OpenAIStreamAdapter(qwen3_5, "", model="m", id="c")
        chunks = [c for piece in text for c in adapter.feed(piece)] + adapter.finish()
        print(json.dumps([e["function"].get("arguments") for c in chunks for e in c["choices"][0]["delta"].get("tool_calls", [])]))
        """ % str(out))
    result = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["{", '"a": "1"', ', "b": "x"}']


# --------------------------------------------------------------------------
# Other template shapes (compiled in process)
# --------------------------------------------------------------------------

OTHER_SHAPES = {
    # kv-lines calls: arguments come at close; content kept unstripped
    "kv": (
        {
            "start_anchor": "<|assistant|>",
            "fields": {
                "tool_calls": {
                    "open_pattern": r"<call (?P<name>\w+)>",
                    "close": "</call>",
                    "repeats": True,
                    "content": "kv-lines",
                    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
                },
                "content": {"close": "<|end|>", "content_args": {"strip": False}},
            },
        },
        " Checking:\n<call f>n: 3\ns: x y\n</call><|end|>",
    ),
    # flat xml-inline arguments, an int reasoning field (sent at close)
    "flat_xml": (
        {
            "start_anchor": "<|assistant|>",
            "fields": {
                "reasoning_content": {"open": "<n>", "close": "</n>", "content": "int"},
                "tool_calls": {
                    "open_pattern": r"\s*<call (?P<name>\w+)>",
                    "close": "</call>",
                    "repeats": True,
                    "content": "xml-inline",
                    "content_args": {"tag_pattern": r"<arg (?P<key>\w+)>(?P<value>.*?)</arg>"},
                    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
                },
                "content": {"close": "<|end|>"},
            },
        },
        "<n> 42 </n>Sure.\n<call f><arg n>3</arg> <arg s>a</arg>b</arg><arg l>[1]</arg></call><|end|>",
    ),
}


@pytest.mark.parametrize("shape", sorted(OTHER_SHAPES))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_other_template_shapes(shape, data):
    from compiler import compile_template

    template, text = OTHER_SHAPES[shape]
    module = compile_template(template, name=f"openai_{shape}")
    tools = data.draw(st.sampled_from([None, JSON_TOOLS]))
    chunks = assert_streams_like_parser(module, {"id": shape, "prefix": "", "tools": tools}, data.draw(chunking(text)))
    message = reassemble(chunks)
    assert message["tool_calls"][0]["function"]["name"] == "f"
    if shape == "kv":
        assert message["content"] == " Checking:\n"
        assert len(argument_pieces(chunks)[0]) == 1
    else:
        assert message["reasoning_content"] == "42"


def test_known_limit_a_reopened_field_keeps_only_its_last_region():
    """The parser overwrites a non-repeating field opened twice; deltas cannot be taken back."""
    from compiler import compile_template

    template, _ = OTHER_SHAPES["kv"]
    module = compile_template(template, name="openai_kv")
    status, chunks, adapter = run_adapter(module, "", ["A <call f>n: 1</call> B<|end|>"])
    assert adapter.message["content"] == " B"
    assert reassemble(chunks)["content"] == "A  B"
