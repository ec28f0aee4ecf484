"""The Python runtime's names in one namespace: generated parsers import from here.

The runtime is split by concern (docs/runtime.md describes the design):

- runtime/values.py: content parsers, transforms, tool typing, `Field`, `close_region`
- runtime/markup.py: `xml-inline`, `kv-lines` and json's dialect options (they register with values)
- runtime/delimiters.py: `Literals`, `Pattern`, their matches, `Lead`, `Leads`
- runtime/settled.py: `Settled`, for delimiters whose look-behinds a buffer settles
- runtime/cut.py: `ContextCut`, for templates with unbounded look-behinds
- runtime/stream.py: the stream driver, `StreamParser` (generated modules add each state's fast path and searches)
- runtime/whole.py: `parse_response` on whole texts; runtime/recover.py: `recover=True`

Only the standard library, plus `regex`, imported the first time a regex
delimiter, `xml-inline` or a json dialect option needs it. The modules
import nothing else, so `--vendor` can inline the ones a template needs into
one file (compiler/backends/python/vendor.py).
"""

from runtime.cut import LEAD_RUN_LIMIT, ContextCut
from runtime.markup import (
    _COMPILED,
    _RE_SPACE_DIFFERS,
    compiled_regex,
    content_regex,
    parse_kv_lines,
    parse_xml_inline,
    rewrite_json,
    string_delim_regex,
    xml_inline_parser,
)
from runtime.delimiters import (
    LONG_TEXT,
    CompleteMatch,
    Lead,
    Leads,
    Literals,
    PartialMatch,
    Pattern,
    last_anchor_end,
    literal_alternation,
    tail_prefix_start,
)
from runtime.settled import Settled
from runtime.stream import FINALIZED, SHORT, StreamParser, hold_start, prefix_rules
from runtime.values import (
    _ATOMS,
    CLOSE,
    CONTENT_PARSERS,
    OPEN,
    PREPARED,
    REWRITES,
    SAME_IN_RE,
    Field,
    Placeholder,
    _transform_closures,
    apply_transform,
    cast_argument,
    close_region,
    join_stripped,
    json_loads,
    parse_bool,
    parse_content,
    parse_float,
    parse_int,
    parse_json,
    parse_plain_json,
    parse_text,
    prepared_parser,
    regex_module,
    schema_types,
    tool_parameters,
    transform_builder,
    type_tool_calls,
)
from runtime.whole import WHOLE_LIMIT, run_parse_response
