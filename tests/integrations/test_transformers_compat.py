"""use_compiled(tokenizer): the patched tokenizer methods behave as transformers' own.

The tokenizer is built offline: a byte-level BPE model trained here on the
qwen3 samples, wrapped in PreTrainedTokenizerFast, the template's delimiters
added as special tokens. Nothing is fetched from the Hub.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from compiler import TemplateError, compile_template, pipeline, restore, use_compiled
from compiler.integrations import transformers as compat

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = json.loads((ROOT / "templates_src" / "qwen3.json").read_text(encoding="utf-8"))
SAMPLES = json.loads((ROOT / "templates_src" / "samples" / "qwen3.json").read_text(encoding="utf-8"))["samples"]
SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
BY_ID = {sample["id"]: sample for sample in SAMPLES}


def _make_tokenizer(template=TEMPLATE):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    model = Tokenizer(models.BPE(unk_token="[UNK]"))
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    model.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["[UNK]"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    model.train_from_iterator([s["prefix"] + s["output"] for s in SAMPLES], trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=model)
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIALS})
    tokenizer.response_template = template
    return tokenizer


@pytest.fixture(scope="module")
def base_tokenizer():
    return _make_tokenizer()


@pytest.fixture(autouse=True)
def cache_in_tmp(tmp_path, monkeypatch):
    """Never write to the real ~/.cache."""
    monkeypatch.setenv(compat.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def tokenizer(base_tokenizer):
    tok = copy.deepcopy(base_tokenizer)
    tok.response_template = copy.deepcopy(TEMPLATE)
    yield tok
    restore(tok)


@pytest.fixture
def compiles(monkeypatch):
    """Counts code generations (pipeline.python_source calls), starting from an empty memory cache."""
    calls = []
    real = pipeline.python_source
    monkeypatch.setattr(pipeline, "_MODULES", {})

    def counting(source, **kwargs):
        calls.append(source.sha256)
        return real(source, **kwargs)

    monkeypatch.setattr(pipeline, "python_source", counting)
    return calls


def ids(tokenizer, text):
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def outcome(call):
    """What a call gives: ('ok', value) or ('raised', class, message)."""
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - compared, not handled
        return ("raised", type(error), str(error))


def same(before, after, *, message=True):
    if before[0] == "raised" and not message:
        return after[0] == "raised" and after[1] is before[1]
    return before == after


class ReferenceSpy:
    """Counts uses of transformers' interpreter by the tokenizer methods."""

    def __init__(self):
        import transformers.tokenization_utils_base as base

        self.base, self.calls = base, 0
        self.saved = {name: getattr(base, name) for name in ("_template_parse_response", "ResponseParser")}

    def __enter__(self):
        for name, real in self.saved.items():
            setattr(self.base, name, self.counting(real))
        return self

    def counting(self, real):
        def wrapper(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        return wrapper

    def __exit__(self, *exc_info):
        for name, real in self.saved.items():
            setattr(self.base, name, real)


def compare(tokenizer, calls, *, messages=True):
    """Run each call on the plain tokenizer, then patched: same results (and same errors).

    Patched, a call that succeeds must not have touched transformers' interpreter."""
    restore(tokenizer)
    before = [outcome(lambda c=c: c(tokenizer)) for c in calls]
    after = []
    with use_compiled(tokenizer), ReferenceSpy() as spy, warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*interpreter was used instead")
        for call in calls:
            used = spy.calls
            after.append(outcome(lambda: call(tokenizer)))
            if after[-1][0] == "ok":
                assert spy.calls == used, "the compiled parser was not used"
    assert len(before) == len(after)
    for one, two in zip(before, after):
        assert same(one, two, message=messages), (one, two)
    return after


# --------------------------------------------------------------------------


def test_tokenizer_round_trips_every_sample(base_tokenizer):
    for sample in SAMPLES:
        for text in (sample["prefix"], sample["output"]):
            assert base_tokenizer.decode(ids(base_tokenizer, text)) == text


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s["id"])
def test_strings_match_reference(tokenizer, sample):
    tools = sample.get("tools")
    calls = [
        lambda t: t.parse_response(sample["output"], prefix=sample["prefix"], tools=tools),
        lambda t: t.parse_response(sample["output"], prefix=sample["prefix"]),
        lambda t: t.parse_response(sample["output"], prefix=""),
        lambda t: t.parse_response(sample["output"], prefix=[]),
    ]
    # The runtime's error message for a bad JSON region is worded differently: compare classes there.
    results = compare(tokenizer, calls, messages=False)
    if "expected" in sample:
        assert results[0] == ("ok", sample["expected"])
    else:
        assert results[0][0] == "raised" and results[0][1].__name__ == sample["expected_error"]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s["id"])
def test_token_ids_and_numpy_match_reference(tokenizer, sample):
    out, pre = ids(tokenizer, sample["output"]), ids(tokenizer, sample["prefix"])
    tools = sample.get("tools")
    calls = [
        lambda t: t.parse_response(out, prefix=pre, tools=tools),  # list[int]
        lambda t: t.parse_response(out, prefix=sample["prefix"]),
        lambda t: t.parse_response(np.array(out), prefix=np.array(pre)),  # 1D arrays
        lambda t: t.parse_response(np.array([out, out]), prefix=pre),  # 2D array: a batch
        lambda t: t.parse_response(np.array([out, out]), prefix=np.array([pre, pre])),  # one prefix per row
        lambda t: t.parse_response([out, out[: len(out) // 2]], prefix=[pre, pre]),  # list[list[int]]
        lambda t: t.parse_response([out], prefix=sample["prefix"], tools=tools),
    ]
    compare(tokenizer, calls, messages=False)


def test_batches_match_reference(tokenizer):
    good = [s for s in SAMPLES if "expected" in s and "tools" not in s]
    texts = [s["output"] for s in good]
    prefixes = [s["prefix"] for s in good]
    calls = [
        lambda t: t.parse_response(texts, prefix=prefixes),
        lambda t: t.parse_response(tuple(texts), prefix=tuple(prefixes)),
        lambda t: t.parse_response(texts, prefix=prefixes[0]),  # one prefix for all
        lambda t: t.parse_response(texts, prefix=[]),
        lambda t: t.parse_response(texts, prefix=prefixes[:2]),  # mismatched lengths
        lambda t: t.parse_response([], prefix=""),
        lambda t: t.parse_response([], prefix=[]),
        lambda t: t.parse_response(texts[:1], prefix=[prefixes[0], prefixes[1]]),
        lambda t: t.parse_response([ids(t, x) for x in texts], prefix=[ids(t, p) for p in prefixes]),
        lambda t: t.parse_response([ids(t, x) for x in texts], prefix=[ids(t, p) for p in prefixes[:3]]),
    ]
    results = compare(tokenizer, calls)
    assert results[0] == ("ok", [s["expected"] for s in good])
    assert results[4][0] == "raised" and results[4][1] is ValueError and "prefix" in results[4][2]


def test_a_failing_item_in_a_batch_raises_the_same_class(tokenizer):
    texts = [BY_ID["reasoning_then_content"]["output"], BY_ID["cut_off_mid_call"]["output"]]
    results = compare(tokenizer, [lambda t: t.parse_response(texts, prefix="")], messages=False)
    assert results[0][0] == "raised" and results[0][1] is ValueError


def test_tools_as_python_functions(tokenizer):
    def get_weather(city: str, days: int):
        """Get the weather.

        Args:
            city: The city.
            days: How many days.
        """

    sample = BY_ID["single_call_typed"]
    results = compare(tokenizer, [lambda t: t.parse_response(sample["output"], prefix=sample["prefix"], tools=[get_weather])])
    assert results[0] == ("ok", sample["expected"])


def test_errors_are_transformers_own(tokenizer):
    sample = BY_ID["reasoning_then_content"]
    no_template = _make_tokenizer(template=None)
    calls = [
        lambda t: t.parse_response(sample["output"]),  # prefix=None
        lambda t: t.parse_response(sample["output"], prefix=None),
        lambda t: t.get_response_parser(),
        lambda t: t.get_response_parser(prefix=np.array([ids(t, "a b")] * 2)),  # a batch: not one prefix
        lambda t: t.get_response_parser(prefix=[ids(t, "ab"), ids(t, "cd")]),
    ]
    results = compare(tokenizer, calls)
    assert all(r[0] == "raised" and r[1] is ValueError for r in results)
    missing = [
        lambda t: t.parse_response(sample["output"], prefix=""),
        lambda t: t.parse_response(sample["output"]),  # no template comes before no prefix
        lambda t: t.get_response_parser(prefix=""),
        lambda t: t.get_response_parser(),
    ]
    results = compare(no_template, missing)
    assert all(r[0] == "raised" and r[1] is AttributeError for r in results)


def test_schema_override_is_compiled_and_used(tokenizer, compiles):
    other = json.loads((ROOT / "templates_src" / "deepseek_r1.json").read_text(encoding="utf-8"))
    text = "Let me think.</think>\n\nThe answer is 4.<｜end▁of▁sentence｜>"
    calls = [
        lambda t: t.parse_response(text, other, prefix=""),
        lambda t: t.parse_response(text, schema=other, prefix="<｜Assistant｜><think>\n"),
        lambda t: t.get_response_parser(other, prefix="").feed(text),
        lambda t: t.get_response_parser(response_template=other, prefix="").finalize(),
    ]
    results = compare(tokenizer, calls)
    assert results[1][1]["reasoning_content"] == "Let me think."
    assert len(compiles) == 2  # the tokenizer's template and the override, once each
    with use_compiled(tokenizer):
        assert type(tokenizer.get_response_parser(other, prefix="")).__module__.startswith("compiled_")


def test_rejected_override_raises_what_transformers_raises(tokenizer):
    bad = {"version": 1, "fields": {"content": {"content": "text"}}}  # no start_anchor
    calls = [
        lambda t: t.parse_response("x", bad, prefix=""),
        lambda t: t.get_response_parser(bad, prefix=""),
        lambda t: t.parse_response("x", {}, prefix=""),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error raised by transformers needs no warning
        results = compare(tokenizer, calls)
    assert all(r[0] == "raised" for r in results)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s["id"])
def test_streaming_parser_matches_reference(tokenizer, sample):
    def stream(t, prefix, chunks):
        parser = t.get_response_parser(prefix=prefix, tools=sample.get("tools"))
        events = list(parser.initial_events)
        for chunk in chunks:
            events += parser.feed(chunk)
        message, final = parser.finalize()
        return message, events + final

    text = sample["output"]
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    pieces = [ids(tokenizer, sample["prefix"])]
    calls = [
        lambda t: stream(t, sample["prefix"], chunks),
        lambda t: stream(t, pieces[0], [text]),  # prefix as token ids
        lambda t: stream(t, np.array(pieces[0]), list(text)),
    ]
    compare(tokenizer, calls, messages=False)


def test_only_the_instance_is_patched_and_restore_undoes_it(tokenizer, base_tokenizer):
    cls = type(tokenizer)
    class_methods = (cls.parse_response, cls.get_response_parser)
    signatures = [inspect.signature(tokenizer.parse_response), inspect.signature(tokenizer.get_response_parser)]
    patch = use_compiled(tokenizer)
    assert "parse_response" in tokenizer.__dict__ and "get_response_parser" in tokenizer.__dict__
    assert (cls.parse_response, cls.get_response_parser) == class_methods
    assert "parse_response" not in base_tokenizer.__dict__
    assert [inspect.signature(tokenizer.parse_response), inspect.signature(tokenizer.get_response_parser)] == signatures
    assert patch.module.TEMPLATE == TEMPLATE
    assert type(tokenizer.get_response_parser(prefix="")).__module__.startswith("compiled_")
    use_compiled(tokenizer)  # patching twice, then one restore, gives the original back
    patch.restore()
    assert "parse_response" not in tokenizer.__dict__ and "get_response_parser" not in tokenizer.__dict__
    assert tokenizer.parse_response.__func__ is cls.parse_response
    restore(tokenizer)  # a no-op now
    with use_compiled(tokenizer) as patch:
        assert tokenizer.parse_response.__func__ is compat.parse_response
    assert tokenizer.parse_response.__func__ is cls.parse_response


def test_an_explicit_module_or_dict_is_used(tokenizer, compiles, monkeypatch):
    from conftest import load_generated

    qwen3 = load_generated("qwen3")
    seen = []
    real = qwen3.parse_response
    monkeypatch.setattr(qwen3, "parse_response", lambda *a, **k: seen.append(1) or real(*a, **k))
    sample = BY_ID["reasoning_then_content"]
    with use_compiled(tokenizer, qwen3) as patch:
        assert patch.module is qwen3
        assert tokenizer.parse_response(sample["output"], prefix=sample["prefix"]) == sample["expected"]
        assert isinstance(tokenizer.get_response_parser(prefix=""), qwen3.ResponseParser)
    assert seen and not compiles
    with use_compiled(tokenizer, TEMPLATE) as patch:
        assert tokenizer.parse_response(sample["output"], prefix=sample["prefix"]) == sample["expected"]
    with pytest.raises(TypeError):
        use_compiled(tokenizer, "qwen3")


def test_a_new_template_on_the_tokenizer_takes_effect(tokenizer):
    use_compiled(tokenizer)
    other = json.loads((ROOT / "templates_src" / "deepseek_r1.json").read_text(encoding="utf-8"))
    tokenizer.response_template = other
    assert tokenizer.parse_response("<think>a</think>b", prefix="")["reasoning_content"] == "a"
    tokenizer.response_template["defaults"] = {"role": "robot"}  # mutated in place
    assert tokenizer.parse_response("<think>a</think>b", prefix="")["role"] == "robot"


def test_use_compiled_rejects_an_uncompilable_template_up_front(tokenizer):
    tokenizer.response_template = {"version": 1, "fields": {}}
    with pytest.raises(TemplateError):
        use_compiled(tokenizer)


# --------------------------------------------------------------------------
# The disk cache
# --------------------------------------------------------------------------


def test_disk_cache_is_written_then_reused(tokenizer, compiles, cache_in_tmp, monkeypatch):
    use_compiled(tokenizer)
    assert len(compiles) == 1
    path = compat.cache_path(TEMPLATE)
    assert path.is_file() and path.parent.parent == cache_in_tmp
    assert path.name == compat.sources.canonical_sha256(TEMPLATE) + ".py"
    assert not [p for p in path.parent.iterdir() if p.suffix != ".py"]  # no temporary file left behind
    restore(tokenizer)

    monkeypatch.setattr(pipeline, "_MODULES", {})  # as in a new process
    patch = use_compiled(tokenizer)
    assert len(compiles) == 1  # read from disk, not compiled again
    assert patch.module.__file__ == str(path)
    sample = BY_ID["single_call_typed"]
    assert tokenizer.parse_response(sample["output"], prefix=sample["prefix"], tools=sample["tools"]) == sample["expected"]


def test_cache_dir_keyword_and_environment(tokenizer, compiles, tmp_path, monkeypatch):
    use_compiled(tokenizer, cache_dir=tmp_path / "mine")
    assert list((tmp_path / "mine").glob("*/*.py"))
    monkeypatch.setenv(compat.CACHE_ENV, str(tmp_path / "env"))
    assert compat.resolve_cache_dir() == tmp_path / "env"
    monkeypatch.delenv(compat.CACHE_ENV)
    assert compat.resolve_cache_dir() == Path.home() / ".cache" / "response-template-compiler"
    monkeypatch.setenv(compat.CACHE_ENV, str(tmp_path / "env"))
    use_compiled(tokenizer)  # in memory already: stored in the new directory too, not recompiled
    assert list((tmp_path / "env").glob("*/*.py")) and len(compiles) == 1
    monkeypatch.setattr(pipeline, "_MODULES", {})
    use_compiled(tokenizer, cache_dir=False)  # memory only
    assert len(compiles) == 2


def test_a_corrupt_cache_file_is_replaced(tokenizer, compiles, monkeypatch):
    use_compiled(tokenizer)
    path = compat.cache_path(TEMPLATE)
    path.write_text("this is not python(", encoding="utf-8")
    monkeypatch.setattr(pipeline, "_MODULES", {})
    use_compiled(tokenizer)
    assert len(compiles) == 2
    assert "class ResponseParser" in path.read_text(encoding="utf-8")


def test_a_second_process_reuses_the_generated_source(tmp_path):
    cache = tmp_path / "shared"
    compat.load_compiled(TEMPLATE, cache_dir=cache)
    if not list(cache.glob("*/*.py")):  # already in memory from another test: store it
        compat.pipeline._MODULES.pop(compat.sources.canonical_sha256(TEMPLATE))
        compat.load_compiled(TEMPLATE, cache_dir=cache)
    script = (
        "import json, sys\n"
        "from compiler import pipeline\nfrom compiler.integrations import transformers as c\n"
        "def fail(*a, **k): raise SystemExit('compiled again')\n"
        "pipeline.python_source = fail\n"
        "m = c.load_compiled(json.loads(sys.argv[1]), cache_dir=sys.argv[2])\n"
        "print(m.__file__)\n"
        "print(json.dumps(m.parse_response('<think>a</think>b<|im_end|>', prefix='')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(TEMPLATE), str(cache)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    file, message = result.stdout.splitlines()
    assert Path(file).parent.parent == cache
    assert json.loads(message) == {"role": "assistant", "reasoning_content": "a", "content": "b"}


# --------------------------------------------------------------------------
# compile_template
# --------------------------------------------------------------------------


def test_compile_template_builds_a_module_cached_by_hash(compiles):
    module = compile_template(TEMPLATE)
    sample = BY_ID["parallel_calls_with_content"]
    assert module.parse_response(sample["output"], prefix=sample["prefix"]) == sample["expected"]
    assert module.parse_response([sample["output"]] * 2, prefix=sample["prefix"]) == [sample["expected"]] * 2
    parser = module.ResponseParser(sample["prefix"])
    parser.feed(sample["output"])
    assert parser.finalize()[0] == sample["expected"]
    reordered = json.loads(json.dumps(TEMPLATE, sort_keys=True))  # same template, keys in another order
    assert compile_template(reordered) is module
    assert len(compiles) == 1
    changed = copy.deepcopy(TEMPLATE)
    changed["defaults"]["role"] = "model"
    assert compile_template(changed) is not module and len(compiles) == 2
