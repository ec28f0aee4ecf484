"""OpenAI chat.completions output for generated response parsers.

    from runtime.openai import OpenAIStreamAdapter, to_openai_message

    adapter = OpenAIStreamAdapter(qwen3, prompt, tools=tools, model="qwen3")
    for text in stream:
        for chunk in adapter.feed(text):      # chat.completion.chunk dicts
            send(chunk)
    for chunk in adapter.finish():            # the last one carries finish_reason
        send(chunk)
    adapter.message                           # the parsed message (after finish)

    to_openai_message(module.parse_response(text, prefix=prompt), completion_id=adapter.id)

Only three fields of the parsed message are used: `content`, `reasoning_content`
and `tool_calls`. Each tool call gets the id `tool_call_id(completion_id, index)`:
`id_prefix` plus 24 hex digits of SHA-256 of "<completion id>:<index>", so the
streaming adapter and `to_openai_message` agree when given the same completion id.

What is sent, and when. The rule everywhere: a delta is sent only when it is
known to be a prefix of the final value, so that concatenating the deltas gives
exactly what `to_openai_message` gives for the message the parser returns.

- content / reasoning_content (`text` fields without a transform): each region
  chunk is sent as it arrives, except whitespace: leading whitespace of a region
  is dropped and trailing whitespace is held until text follows it (the field is
  stripped at close; `strip: false` sends everything). For `join` fields the
  separator is sent before the second region's first text (or at its close).
  Other content types are sent at close (non-strings as JSON text).
- tool calls: the first delta of a call carries its `id`, `type` and
  `function.name`, sent as soon as the name is known: at the region open when it
  comes from an open-pattern capture, or when the body has written it
  (`{"name": ...}` bodies); calls are announced in index order. Then
  `function.arguments` as string deltas whose concatenation is exactly
  `json.dumps(final_arguments)` (the typed arguments of the closed message):
  * `json` bodies (including the `string_delims` / `unquoted_keys` dialects) are
    read incrementally and re-serialised in `json.dumps` layout: brackets,
    separators and keys as soon as they are read, string values character by
    character, numbers and literals once complete. The value of an argument the
    tools schema could cast (it declares a type other than string) is held until
    it is complete, then cast the way the parser casts it and sent whole.
    Argument text follows the name; with tools, arguments the body writes
    before the name come at close (what may be cast depends on the name).
  * `xml-inline` bodies (`<parameter=k>v</parameter>` style, nested in an outer
    `...</function>` pattern or flat): one parameter at a time, once its match is
    settled: the tag pattern matches it completely in the body so far without
    running into the end of the text seen (partial matching, `$` taken as never
    matching), the match is unchanged when the text is followed by more of the
    same (greedy parts), and the outer closing tag cannot start at or before it.
    Values are cast as above. The last parameter and the closing brace come at
    close. (While one parameter grows long, the search is retried only each
    time it has grown by an eighth, to stay linear.)
  * anything else (other content types, `allow_non_json`, `merge_duplicates`,
    shapes the transform analysis does not recognise, arguments that are not an
    object or array, text that does not read as JSON): at close, in one piece.
  At close the rest of `json.dumps(final_arguments)` is sent.

Tool call ids are always generated (a model's own ids, e.g. kimi_k2's
`functions.f:0` in the transform's `id`, are not used).

Known limits: a model that repeats a key in an arguments object gets the object
as written (json.loads of the deltas still gives the final arguments, since both
keep the last value); a non-repeating field that the output opens twice keeps
only the second region in the message, while the stream has sent both.

Standard library only; everything parser-specific (casting, content parsers, the
`regex` module) is taken from the runtime the parser module runs on, so this
package works next to a vendored parser too (copy its folder under another name
than `openai`, which would shadow the `openai` package).

Modules, from the top down: `adapter` (events -> chunks, and the text fields),
`calls` (the tool_calls field: its calls, their announcement and casting),
`regions` (one call region's json or xml-inline body read as it streams),
`jsonstream` (incremental JSON reading, arguments written in json.dumps layout)
and `message` (call ids and the non-streaming message).
"""

from .adapter import OpenAIStreamAdapter
from .message import to_openai_message, tool_call_id

__all__ = ["OpenAIStreamAdapter", "to_openai_message", "tool_call_id"]
