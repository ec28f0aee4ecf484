// The runtime every generated JavaScript parser runs on: the streaming
// driver, content parsers, transforms and tool typing. It reproduces the
// reference interpreter (transformers.utils.chat_parsing 5.23.0) exactly:
// same events, same message, same Python exception class at the same call
// (in `error.pythonType`). No dependencies; runs in Node and in browsers.
//
// This module only re-exports; the code is in
//   content.mjs  Python values, content parsers, transforms, Field
//   typing.mjs   tool-argument typing
//   driver.mjs   delimiters, hold-back, the streaming state machine, finalize
//   recover.mjs  the recovery mode (recover: true), vLLM 0.33's machine
//   whole.mjs    parseResponse on a whole text: one search as the end of the stream
//   regex.mjs    the delimiter regex matcher (partial matching)
//   regex_parts.mjs  its code point helpers and pattern-tree rewrites
//   regex_search.mjs the module's search loop where a required string decides
//   pyjson.mjs   json.loads/dumps, int(), float(), str.strip(), exceptions
//   unicode.mjs  Python's character classes
//
// Comments in [brackets] in these modules name the entries of the format
// inventory, compiler/conformance/inventory.json (`entries[*].id`), whose vectors
// pin the rule the code beside them implements (docs/format.md states them),
// as runtime/core.py does for Python; tests/test_rule_citations_js.py checks
// that every id exists and that every rule core.py cites is cited here too.
// Ports follow the inventory, not this code.

export { Match, Regex } from "./regex.mjs";
export {
  AttributeError,
  KeyError,
  PythonError,
  RuntimeError,
  TypeError_ as TypeError,
  ValueError,
  dumps,
  loads,
  pyFloat,
  pyInt,
  pyStrip,
} from "./pyjson.mjs";
export { Field, Placeholder, applyTransform, isDict, parseContent, registerContentRegex, truthy, typeName } from "./content.mjs";
export { castArgument, schemaTypes, toolParameters, typeToolCalls } from "./typing.mjs";
export { CLOSE, Literals, OPEN, StreamParser, runParseResponse } from "./driver.mjs";
export { MALFORMED_MODES, RecoveringParser } from "./recover.mjs";
export { parseWhole } from "./whole.mjs";
