"""Small chat templates written for the infer tests: one per output format, and bad ones."""

# ChatML with <think> reasoning (kept in the last turn), JSON calls in <tool_call>, an enable_thinking switch.
CHATML = """{%- for m in messages -%}
<|im_start|>{{ m.role }}
{% if m.role == 'assistant' -%}
{%- if m.reasoning_content %}<think>
{{ m.reasoning_content }}
</think>

{% endif -%}
{{ m.content }}
{%- for c in m.tool_calls or [] %}
<tool_call>
{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}
</tool_call>
{%- endfor -%}
{%- else -%}{{ m.content }}{%- endif -%}
<|im_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|im_start|>assistant
{% if enable_thinking is defined and not enable_thinking %}<think>

</think>

{% endif %}{% endif %}"""

# XML-like parameter tags with the name in the open marker; reasoning dropped from history, the prompt opens it.
XML_PARAMS = """{%- for m in messages -%}
[{{ m.role }}]{% if m.role == 'assistant' %}{{ m.content }}
{%- for c in m.tool_calls or [] %}
<call name={{ c.function.name }}>
{%- for k, v in c.function.arguments.items() %}
<arg {{ k }}>{{ v if v is string else v | tojson }}</arg>
{%- endfor %}
</call>
{%- endfor %}[end]
{% else %}{{ m.content }}[end]
{% endif %}{%- endfor -%}
{%- if add_generation_prompt %}[assistant]{% endif %}"""

# Mistral-like: no generation prompt, name then JSON arguments, non-ASCII markers, eos token closes the turn.
NAME_JSON = """{{ bos_token }}{%- for m in messages -%}
{%- if m.role == 'user' %}◁user▷{{ m.content }}◁/user▷
{%- else %}{{ m.content }}{% for c in m.tool_calls or [] %}【call】{{ c.function.name }}【args】{{ c.function.arguments | tojson }}{% endfor %}{{ eos_token }}{% endif %}
{%- endfor %}"""

# Bad templates.
LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
EXPLODES = "{% for m in messages %}{{ m.content * 100000 }}{% endfor %}"
ESCAPES = "{{ ''.__class__.__mro__[1].__subclasses__() }}"
MUTATES = "{% set seen = [] %}{{ seen.append(1) }}{% for m in messages %}{{ m.content }}{% endfor %}"
DOES_NOT_RENDER = "{{ raise_exception('this template needs a system message') }}"
SYNTAX = "{% for m in messages %}{{ m.content }"
NO_ASSISTANT = """{%- for m in messages if m.role == 'user' -%}<u>{{ m.content }}</u>{%- endfor -%}
{%- if add_generation_prompt %}<a>{% endif %}"""
IGNORES_TOOLS = """{%- for m in messages -%}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{%- endfor -%}
{%- if add_generation_prompt %}<assistant>{% endif %}"""
NO_PROMPT = "{%- for m in messages -%}{{ m.content }}{%- endfor -%}"

# Python-call arguments inside a section marker; single-quoted strings.
PYTHONIC = """{%- for m in messages -%}
<|{{ m.role }}|>{{ m.content }}
{%- if m.tool_calls %}<calls>[
{%- for c in m.tool_calls %}{{ c.function.name }}(
{%- for k, v in c.function.arguments.items() %}{{ k }}={{ "'" + v + "'" if v is string else v | tojson }}{{ ", " if not loop.last }}{% endfor %})
{{- ", " if not loop.last }}{% endfor %}]</calls>{% endif %}<|end|>
{% endfor -%}
{%- if add_generation_prompt %}<|assistant|>{% endif %}"""

# Arguments as JSON with bare keys and strings between custom delimiters.
DIALECT = """{%- macro v(x) -%}{%- if x is string -%}<|q|>{{ x }}<|q|>{%- elif x is mapping -%}{
{%- for k, y in x.items() %}{{ k }}:{{ v(y) }}{{ "," if not loop.last }}{% endfor %}}
{%- elif x is sequence -%}[{%- for y in x %}{{ v(y) }}{{ "," if not loop.last }}{% endfor %}]
{%- else -%}{{ x | tojson }}{%- endif -%}{%- endmacro -%}
{%- for m in messages -%}
<turn {{ m.role }}>{{ m.content }}
{%- for c in m.tool_calls or [] %}<call>call:{{ c.function.name }}{{ v(c.function.arguments) }}</call>{% endfor %}<end>
{% endfor -%}
{%- if add_generation_prompt %}<turn assistant>{% endif %}"""
