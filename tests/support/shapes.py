"""Template shapes the differential tests cover, each with the pieces that
hypothesis assembles into model outputs: well-formed blocks, noise tokens,
prefixes (prefilled regions, several earlier turns) and tool lists.

Every literal delimiter and every prefix of it is added to the noise
automatically, so generated texts also hold broken and split delimiters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

TEMPLATES_SRC = Path(__file__).resolve().parents[2] / "templates_src"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "metric": {"type": "boolean"},
                "threshold": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "options": {"type": "object"},
                "note": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
                "hint": {"type": "string", "nullable": True},
            },
        },
    },
}
SEARCH_TOOL = {
    "name": "search",
    "parameters": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
    },
}
TOOLS = [WEATHER_TOOL, SEARCH_TOOL]

COMMON_NOISE = [
    "Hello",
    " world",
    ".",
    " ",
    "\n",
    "\n\n",
    "  \t",
    "é",
    "日本語",
    "🙂",
    "<",
    ">",
    "/",
    "|",
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    "=",
    "42",
    "3.5",
    "true",
    "null",
    '{"a": 1}',
    "\\",
]


# Tokens of the benchmark's stream shapes (benchmarks/shapes.py), so the
# generated outputs take the parsers' common paths and leave them: tokens
# ending in whitespace (ASCII and not), indentation, code, lone `<`, `</`.
STREAM_NOISE = [
    "word ",
    "word\n",
    " word",
    ".\n",
    ":\n",
    ")\n",
    "\n    ",
    ":\n       ",
    "(",
    "):",
    " <",
    "</",
    "b",
    '>"',
    "<t",
    " x",
    "résumé ",
    "東京\n",
    "\u3000",
    " \u3000",
    "word\u00a0",
    "\u2028",
]


@dataclass
class Shape:
    name: str
    template: dict
    blocks: list[str]
    noise: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=lambda: [""])
    tools: list | None = None

    def delimiter_literals(self) -> list[str]:
        found = []

        def add(value):
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, list):
                found.extend(v for v in value if isinstance(v, str))

        for spec in self.template["fields"].values():
            add(spec.get("open"))
            add(spec.get("close"))
        add(self.template.get("start_anchor"))
        return found

    def vocabulary(self) -> list[str]:
        pieces = list(self.noise) + COMMON_NOISE
        for literal in self.delimiter_literals():
            pieces.append(literal)
            pieces.extend(literal[:i] for i in range(1, len(literal)))
            pieces.extend(literal[i:] for i in range(1, len(literal)))
        return sorted(set(pieces), key=lambda s: (len(s), s))


def _load(name: str) -> dict:
    return json.loads((TEMPLATES_SRC / f"{name}.json").read_text(encoding="utf-8"))


CHATML_TURNS = (
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nWeather in Paris?<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nok\n</think>\n\nLet me check.<|im_end|>\n"
    '<|im_start|>user\n<tool_response>\n{"temp": 21}\n</tool_response><|im_end|>\n'
)

QWEN3_5 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>\s*<function=(?P<name>[^>\n]+)>",
            "close_pattern": r"</function>\s*</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {"tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>"},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"\s*(?:<\|im_end\|>|<\|endoftext\|>)", "content": "text"},
    },
}

GPT_OSS = {
    "defaults": {"role": "assistant"},
    "start_anchor_pattern": r"<\|start\|>assistant",
    "fields": {
        "reasoning_content": {
            "open_pattern": r"(?:<\|start\|>assistant)?<\|channel\|>analysis<\|message\|>",
            "close": "<|end|>",
            "repeats": True,
            "join": "\n",
        },
        "tool_calls": {
            "open_pattern": (
                r"(?:<\|start\|>assistant)?<\|channel\|>commentary to=functions\.(?P<name>[\w.-]+)\s*"
                r"(?:<\|constrain\|>json)?<\|message\|>"
            ),
            "close": "<|call|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {
            "open_pattern": r"(?:<\|start\|>assistant)?<\|channel\|>final<\|message\|>",
            "close": ["<|return|>", "<|end|>"],
        },
    },
}

COHERE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "fields": {
        "reasoning_content": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>"},
        "tool_calls": {
            "open": "<|START_ACTION|>",
            "close": "<|END_ACTION|>",
            "content": "json",
            "transform": {
                "type": "function",
                "id": "{tool_call_id}",
                "function": {"name": "{tool_name}", "arguments": "{parameters}"},
            },
            "transform_each": True,
        },
        "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>"},
    },
}

GEMMA4 = {
    "defaults": {"role": "assistant"},
    "start_anchor": ["<|turn>model\n", "<tool_response|>"],
    "fields": {
        "reasoning_content": {"open": "<|channel>thought\n", "close": "<channel|>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<\|tool_call>call:(?P<name>\w+)",
            "close": "<tool_call|>",
            "repeats": True,
            "content": "json",
            "content_args": {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close": ["<turn|>", "<|tool_response>", "<eos>"], "content": "text"},
    },
}

ZERO_WIDTH = {
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"(?:^|<think>\s*)", "close": "</think>"},
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "content_args": {"allow_non_json": True},
        },
        "content": {"open_pattern": r"\s*<response>", "close": "</response>"},
    },
}

TYPED = {
    "defaults": {"role": "assistant", "content": ""},
    "start_anchor_pattern": r"<\|assistant\|>\n?",
    "fields": {
        "score": {"open": "<score>", "close": "</score>", "content": "int"},
        "confidence": {"open": "<conf>", "close": "</conf>", "content": "float"},
        "done": {"open": "<done>", "close": "</done>", "content": "bool"},
        "metadata": {
            "open": "<meta>",
            "close": "</meta>",
            "content": "kv-lines",
            "content_args": {"kv_sep": "=", "value_parser": {"name": "text"}},
        },
        "notes": {"open": "<note>", "close": "</note>", "repeats": True, "join": "\n\n"},
        "content": {"close": "<|end|>", "optional": False, "content_args": {"strip": False}},
    },
}

EXTENDING_LITERALS = {
    "defaults": {"role": "assistant"},
    "start_anchor": ["[ASSISTANT]", "[ASSISTANT]:"],
    "fields": {
        "tool_calls": {
            "open": ["<tc", "<tc>", "<tool_call>"],
            "close": ["</tc>", "</tc>\n"],
            "repeats": True,
            "content": "json",
            "content_args": {"allow_non_json": True},
        },
        "reasoning_content": {"open": ["[THINK]", "[THINK]\n"], "close": "[/THINK]"},
        "content": {"close": ["</s>", "</s></s>"]},
    },
}

# Zero-width and look-behind delimiters, (?m) anchors, an open with no close.
EDGE_PATTERNS = {
    "start_anchor_pattern": r"(?m)^ASSISTANT:",
    "fields": {
        "tool_calls": {
            "open_pattern": r"(?<=\n)CALL (?P<name>\w+):",
            "close_pattern": r"(?=\n)|$",
            "repeats": True,
            "transform": {"name": "{name}", "args": "{content}"},
        },
        "summary": {"open": "SUMMARY:", "content": "text"},
        "content": {"close_pattern": r"(?=\nEND)|\bEOF\b"},
    },
}

# No implicit field: text outside regions goes to the null sink.
NULL_SINK = {
    "start_anchor_pattern": r"\b",
    "fields": {
        "reasoning_content": {"open_pattern": r"<r>|(?<=</a>)\s*(?=\S)", "close": "</r>"},
        "content": {"open": ["<a>", "<answer>"], "close": "</a>", "repeats": True, "join": " "},
        "tool_calls": {
            "open_pattern": r"<call name=\"(?P<name>[^\"]*)\">",
            "close_pattern": r"</call(?P<junk>\s*)>",
            "repeats": True,
            "content": "kv-lines",
            "transform": {"function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}

SHAPES = [
    Shape(
        "qwen3",
        _load("qwen3"),
        blocks=[
            "<think>\nThe user wants the weather.\n</think>\n\n",
            "Sure, checking now.",
            '\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}\n</tool_call>',
            '<tool_call>\n{"name": "search", "arguments": {"query": "a </tool_call> b", "limit": "5"}}\n</tool_call>',
            '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
            "<|im_end|>",
            "<|im_end|>\n<|endoftext|>",
        ],
        noise=["<tool_call>", "</tool_call>", "<|im_end|>", "\n<tool_call>", "<think>", "</think>"],
        prefixes=[
            "",
            "<|im_start|>assistant\n",
            "<|im_start|>assistant\n<think>\n",
            CHATML_TURNS + "<|im_start|>assistant\n",
        ],
        tools=TOOLS,
    ),
    Shape(
        "qwen3_5_xml_inline",
        QWEN3_5,
        blocks=[
            "<think>\nPlan: call the tool.\n</think>\n\n",
            "Checking the weather.",
            "\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n"
            "</parameter>\n</function>\n</tool_call>",
            "<tool_call>\n<function=search>\n<parameter=query>\nx < y\n</parameter>\n</function>\n</tool_call>",
            "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>",
            "<|im_end|>",
        ],
        noise=["<function=", "</function>", "<parameter=", "</parameter>", "get_weather>", "city>"],
        prefixes=["", "<|im_start|>assistant\n<think>\n", "<|im_start|>assistant\n<think>\n\n</think>\n\n"],
        tools=TOOLS,
    ),
    Shape(
        "gpt_oss_channels",
        GPT_OSS,
        blocks=[
            "<|channel|>analysis<|message|>Need weather.<|end|>",
            "<|start|>assistant<|channel|>analysis<|message|>More thought.<|end|>",
            '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
            '<|channel|>commentary to=functions.search<|message|>{"query": "x"}<|call|>',
            "<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>",
        ],
        noise=["<|start|>", "assistant", "<|channel|>", "<|message|>", "commentary", " to=functions.", "final"],
        prefixes=[
            "",
            "<|start|>user<|message|>hi<|end|><|start|>assistant",
            "<|start|>assistant<|channel|>analysis<|message|>",
        ],
        tools=TOOLS,
    ),
    Shape(
        "cohere_transform_each",
        COHERE,
        blocks=[
            "<|START_THINKING|>I should search.<|END_THINKING|>",
            '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search", "parameters": {"query": "x", "limit": "2"}},'
            ' {"tool_call_id": "1", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>',
            "<|START_ACTION|>[]<|END_ACTION|>",
            "<|START_RESPONSE|>Here you go.<|END_RESPONSE|>",
        ],
        prefixes=["", "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"],
        tools=TOOLS,
    ),
    Shape(
        "gemma4_unquoted_keys",
        GEMMA4,
        blocks=[
            "<|channel>thought\nThinking...<channel|>",
            '<|tool_call>call:get_weather{city:<|"|>Paris, "FR"<|"|>,days:3}<tool_call|>',
            '<|tool_call>call:search{query:<|"|>a<tool_call|>b<|"|>}<tool_call|>',
            "<|tool_call>call:get_weather{}<tool_call|>",
            "The answer.",
            "<turn|>",
        ],
        noise=['<|"|>', "call:", "get_weather"],
        prefixes=[
            "",
            "<|turn>user\nhi<turn|>\n<|turn>model\n",
            "<|turn>model\n<|tool_call>call:x{}<tool_call|><tool_response|>",
        ],
        tools=TOOLS,
    ),
    Shape(
        "zero_width_open",
        ZERO_WIDTH,
        blocks=[
            "The user asks.\n</think>\n\n",
            "<think>\nmore\n</think>",
            '\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
            "<response>\nDone.\n</response>",
            "<tool_call>not json</tool_call>",
        ],
        prefixes=["", "<|assistant|>", "<|assistant|><think>\n"],
    ),
    Shape(
        "typed_fields",
        TYPED,
        blocks=[
            "<score> 7 </score>",
            "<score>x</score>",
            "<conf>0.25</conf>",
            "<conf>1e3</conf>",
            "<done>TRUE</done>",
            "<done>no</done>",
            "<meta>\na = 1\nb=two\nbad line\n</meta>",
            "<note>first</note>",
            "<note>second</note>",
            "Answer text ",
            "<|end|>",
        ],
        prefixes=["", "<|assistant|>\n", "<|user|>hi<|assistant|>"],
    ),
    Shape(
        "extending_literals",
        EXTENDING_LITERALS,
        blocks=[
            "[THINK]\nhmm[/THINK]",
            '<tc>{"name": "f", "arguments": {"x": 1}}</tc>\n',
            '<tool_call>{"name": "g", "arguments": {}}</tc>',
            "<tc not json</tc>",
            "Final words.",
            "</s>",
            "</s></s>",
        ],
        prefixes=["", "[ASSISTANT]", "[ASSISTANT]:", "[USER] hi [ASSISTANT]: [THINK]"],
    ),
]

SHAPES += [
    Shape(
        "edge_patterns",
        EDGE_PATTERNS,
        blocks=[
            "Hi there",
            "\nCALL search:query=x",
            "\nCALL get_weather:",
            "SUMMARY: all done",
            "\nEND",
            " EOF",
            "EOF",
        ],
        noise=["CALL ", "\n", "ASSISTANT:", "END"],
        prefixes=["", "USER: hi\nASSISTANT:", "ASSISTANT: one\nASSISTANT: two\nCALL x:"],
    ),
    Shape(
        "null_sink",
        NULL_SINK,
        blocks=[
            "<r>why</r>",
            "<a>yes</a>",
            "<answer>maybe</a>",
            '<call name="get_weather">city: Paris\ndays: 3\n</call >',
            "junk",
        ],
        noise=["<call", ' name="', "</call", "</a>", "  x"],
        prefixes=["", "word", "<a>pre"],
        tools=TOOLS,
    ),
]


# Lazy repeats in opens (issue 37): DeepSeek V3.1's natural call open, and a
# reasoning open whose name is read lazily up to "|", with implicit content
# closed by a literal or by a look-ahead for the next open. Fed one character
# at a time, the `regex` module's partial matches for the lazy repeat decide
# what is held back and when a duplicate open raises.
LAZY_REASONING = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"\[\[(?:[^<｜\n]+?)\|", "close": "]]", "content": "text"},
        "content": {"close_pattern": r"<\|/x\|>|(?=\[\[)", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_reasoning",
        LAZY_REASONING,
        blocks=["[[plan|think first]]", "answer", "<|/x|>", "[[a b|x]]tail", "[[q<", "[[x\n|", "[[ab|c]][[d|e]]", "text [[n|"],
        noise=["[[", "|", "]]", "<|/x|>", "<|", "｜", "\n", "[", "<"],
        prefixes=["<|a|>", "<|a|>[[p|", "<|a|>x [[", "<|a|>[[a"],
    ),
]

# Bounded lazy repeats ({m,n}?, {m,}? with m > 1) in opens and a close: the
# module's string search for the tail ends by start + max + len(tail).
LAZY_BOUNDED = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"\[\[(?:[^<｜\n]{1,6}?)\|", "close": "]]", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<call (?P<name>[^<>\s]{2,}?)>",
            "close_pattern": r"</call[ ]{0,3}?>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|/x\|>|(?=\[\[)", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_bounded",
        LAZY_BOUNDED,
        blocks=[
            "[[plan|think first]]",
            "[[abcdefgh|x]]",
            "answer",
            "<|/x|>",
            '<call get_weather>{"city": "Paris"}</call>',
            '<call search>{"query": "x"}</call  >',
            "<call s>{}</call>",
            "[[q<",
            "[[ab|c]][[d|e]]",
            "<call a b>",
        ],
        noise=["[[", "|", "]]", "<|/x|>", "<call ", "</call", " ", ">", "｜", "\n", "<"],
        prefixes=["<|a|>", "<|a|>[[p|", "<|a|>x [[", "<|a|>[[abcdefg"],
        tools=TOOLS,
    ),
]

# Lazy repeats of at most one (`??`) and lazy repeats before alternations
# whose branches share their first characters (the `regex` module hoists
# the shared prefix out of the branches, and the tail's test is that prefix).
LAZY_OPTIONAL = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"\[\[(?:[a-z]??)(?:\|\||\|>)", "close": "]]", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<call (?P<name>[^<>\s]+?)(?:>>|>\n)",
            "close_pattern": r"</call\s??>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|/x\|>|(?=\[\[)", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_optional",
        LAZY_OPTIONAL,
        blocks=[
            "[[p||think first]]",
            "[[|>x]]",
            "[[ab||c]]",
            "answer",
            "<|/x|>",
            '<call get_weather>>{"city": "Paris"}</call>',
            '<call search>\n{"query": "x"}</call\n>',
            "<call s>",
            "<call a>x",
            "[[q|",
            "[[a|b]][[|>e]]",
            "</call  >",
        ],
        noise=["[[", "|", "||", "|>", "]]", "<|/x|>", "<call ", "</call", " ", ">", ">>", "\n", "<"],
        prefixes=["<|a|>", "<|a|>[[p|", "<|a|>x [[", "<|a|>[[a"],
        tools=TOOLS,
    ),
]

# Lazy repeats of groups, of an alternation of single characters (the
# module's set) and before case-insensitive literals.
LAZY_GROUPS = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open_pattern": r"\[\[(?:\w\w)*?(?i:\|go\|)", "close": "]]", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<call (?P<name>(?:[a-z]|_)+?)(?i:>)",
            "close_pattern": r"(?i)</call\s*?>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|/x\|>|(?=\[\[)", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_groups",
        LAZY_GROUPS,
        blocks=[
            "[[ab|go|think]]",
            "[[abcd|GO|x]]",
            "[[a|go|",
            "[[|Go|y]]",
            "answer",
            "<|/x|>",
            '<call get_weather>{"city": "Paris"}</call>',
            '<call search>{"query": "x"}</CALL >',
            "<call s_t>{}</Call\n>",
            "<call a b>",
            "[[ab|g",
        ],
        noise=["[[", "|", "|go|", "|GO", "]]", "<|/x|>", "<call ", "</call", "</CALL", " ", ">", "\n", "<", "_"],
        prefixes=["<|a|>", "<|a|>[[ab", "<|a|>x [[", "<|a|>[[a|g"],
        tools=TOOLS,
    ),
]

# Delimiters an attempt opens with a lazy repeat of minimum 0: where the
# module attempts matches decides (lazy_partial.opens_lazily, lazy_lead).
LAZY_OPENING = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open": "[[", "close_pattern": r"[^<]*?\]\]", "content": "text"},
        "content": {"close_pattern": r"\s*?(?=\[\[)|<\|/x\|>", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_opening",
        LAZY_OPENING,
        blocks=["[[think first]]", "answer", "<|/x|>", "text \n [[a]]", "[[q]", "[[x\n]]tail", "[[ab]]c[[d]]", "  \n"],
        noise=["[[", "]", "]]", "<|/x|>", "<|", " ", "\n", "[", "<", "q"],
        prefixes=["<|a|>", "<|a|>[[p", "<|a|>x [[", "<|a|> "],
    ),
]


# Delimiters whose required string (the `regex` module's first string of the
# pattern) follows a bounded lazy repeat or a look-ahead: where the module's
# search attempts decides their partial matches (compiler/regex/
# required_partial.py); and a case-insensitive character before a lazy
# repeat, whose case state decides how its tail's test is packed.
LAZY_REQUIRED = {
    "start_anchor": "<|a|>",
    "fields": {
        "reasoning_content": {"open": "<t>", "close_pattern": r"\s{0,2}?(?=</t>)</t>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"[<\[]\s{0,3}?call[>\]]",
            "close_pattern": r"(?i:e)[^<]{0,2}?</call>|\[/call\]",
            "repeats": True,
            "content": "json",
        },
        "content": {"close_pattern": r"[ \n]{0,2}?<end>", "content": "text"},
    },
}

SHAPES += [
    Shape(
        "lazy_required",
        LAZY_REQUIRED,
        blocks=[
            "<t>plan</t>",
            "<t>a \n </t>",
            "hello",
            "< call>{\"name\": \"f\", \"arguments\": {}}E </call>",
            "[call]{\"name\": \"g\", \"arguments\": {\"x\": 1}}[/call]",
            "<   call>{}e</call>",
            "text  <end>",
            "[  call]",
        ],
        noise=["<", "[", " ", "\n", "call", "<end", "</t", "</call>", "E", "e", "z", "]", ">", "<e"],
        prefixes=["<|a|>", "<|a|><t>", "<|a|>x", "<|a|> "],
    ),
]


# A long open arriving in pieces (gpt_oss's `<|channel|>... to=functions.f
# ...<|message|>`): while a partial match goes on, the stream waits
# (StreamParser._waits) unless a complete match follows it in the same
# text (`<call name=f x <c>`), which the search takes; a text without the
# open's closing literals (`!>`, `<c>`) holds no complete match.
LONG_OPEN = {
    "version": 1,
    "start_anchor": "<|assistant|>",
    "fields": {
        "tool_calls": {
            "open_pattern": r"\s*<call\s+(?:name=)?(?P<name>\w+)[^!]*!>|\s*<c>",
            "close": "</call>",
            "repeats": True,
            "transform": {"name": "{name}", "arguments": "{content}"},
        },
        "content": {"close_pattern": r"\s*<end>\s*"},
    },
}

SHAPES += [
    Shape(
        "long_open",
        LONG_OPEN,
        blocks=[
            "<call name=f x <c>{}</call>",
            "<call g !>a=1</call>",
            "<call name=h",
            " y=2",
            " !>b</call>",
            "<c>c</call>",
            "text <end>",
        ],
        noise=[" ", "\n", "word ", "<", "<call", " name=", "f", " x ", "<c>", "!>", "!", ">", "</call>", "<ca"],
        prefixes=["", "<|assistant|>", "<|assistant|><call name=f", "<|assistant|>Hi "],
    ),
]


def _bundled_shape(path: Path) -> Shape:
    """A templates_src/ template, with its samples' outputs (whole and in
    thirds) as blocks and their prefixes and tools."""
    samples_file = TEMPLATES_SRC / "samples" / path.name
    samples = json.loads(samples_file.read_text(encoding="utf-8"))["samples"] if samples_file.is_file() else []
    blocks = ["Hello.", "\n"]
    for sample in samples:
        text = sample["output"]
        third = max(1, len(text) // 3)
        blocks += [text, text[:third], text[third : 2 * third], text[2 * third :]]
    prefixes = list(dict.fromkeys([""] + [sample["prefix"] for sample in samples]))
    tools = next((sample["tools"] for sample in samples if sample.get("tools")), None)
    return Shape(path.stem, _load(path.stem), blocks=blocks, noise=list(STREAM_NOISE), prefixes=prefixes, tools=tools)


def _merged(bundled: Shape) -> Shape:
    """A bundled template keeps the hand-written blocks of a shape of the same name."""
    for shape in SHAPES:
        if shape.name == bundled.name:
            bundled.blocks = shape.blocks + bundled.blocks
            bundled.noise = shape.noise + STREAM_NOISE
            bundled.prefixes = list(dict.fromkeys(shape.prefixes + bundled.prefixes))
            bundled.tools = shape.tools or bundled.tools
    return bundled


SHAPES = [_merged(_bundled_shape(path)) for path in sorted(TEMPLATES_SRC.glob("*.json"))] + [
    shape for shape in SHAPES if not (TEMPLATES_SRC / f"{shape.name}.json").is_file()
]

def _lazy_deepseek() -> Shape:
    bundled = _bundled_shape(TEMPLATES_SRC / "deepseek_v31.json")
    template = json.loads(json.dumps(bundled.template))
    template["fields"]["tool_calls"]["open_pattern"] = (
        r"\s*(?:<｜tool▁calls▁begin｜>\s*)?<｜tool▁call▁begin｜>(?P<name>[^<｜]+?)<｜tool▁sep｜>"
    )
    extra = ["<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}<｜tool▁call▁end｜>", "<｜tool▁call▁begin｜>a b<", "<｜tool▁call▁begin｜>x｜"]
    return Shape("deepseek_v31_lazy", template, blocks=bundled.blocks + extra, noise=bundled.noise + ["<｜tool▁sep｜>"],
                 prefixes=bundled.prefixes, tools=bundled.tools)


SHAPES.append(_lazy_deepseek())

SHAPES_BY_NAME = {shape.name: shape for shape in SHAPES}
