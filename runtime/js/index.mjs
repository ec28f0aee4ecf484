// The runtime every generated JavaScript parser runs on: the streaming
// driver, content parsers, transforms and tool typing. It reproduces the
// reference interpreter (transformers.utils.chat_parsing 5.23.0) exactly:
// same events, same message, same Python exception class at the same call
// (in `error.pythonType`). No dependencies; runs in Node and in browsers.

import { Match, Regex, codePointBefore, inRanges, nextIndex } from "./regex.mjs";
import {
  AttributeError,
  JSONDecodeError,
  KeyError,
  PythonError,
  RuntimeError,
  TypeError_,
  ValueError,
  dumps,
  intFromNumber,
  loads,
  pyFloat,
  pyInt,
  pyStrip,
  setKey,
} from "./pyjson.mjs";
import { WORD } from "./unicode.mjs";

export {
  AttributeError,
  KeyError,
  Match,
  PythonError,
  Regex,
  RuntimeError,
  TypeError_ as TypeError,
  ValueError,
  dumps,
  loads,
  pyFloat,
  pyInt,
  pyStrip,
};

// ---------------------------------------------------------------------------
// Python values in JavaScript
// ---------------------------------------------------------------------------

/** A Python dict: a plain object (not an array, not null). */
export function isDict(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Python's truthiness. */
export function truthy(value) {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (typeof value === "bigint") return value !== 0n;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** Python's type name of a JSON value, for error messages. */
export function typeName(value) {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** `mapping.get(key, fallback)`, with the AttributeError a non-dict raises. */
function get(mapping, key, fallback) {
  if (!isDict(mapping)) throw new AttributeError(`'${typeName(mapping)}' object has no attribute 'get'`);
  return Object.prototype.hasOwnProperty.call(mapping, key) ? mapping[key] : fallback;
}

function has(mapping, key) {
  return Object.prototype.hasOwnProperty.call(mapping, key);
}

/** Python's `str(a) < str(b)`: code point order (not UTF-16 order). */
function pyLess(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i].codePointAt(0);
    const q = y[i].codePointAt(0);
    if (p !== q) return p < q;
  }
  return x.length < y.length;
}

function deepCopy(value) {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (isDict(value)) {
    const out = {};
    for (const key of Object.keys(value)) setKey(out, key, deepCopy(value[key]));
    return out;
  }
  return value;
}

function requireStr(value, what) {
  if (typeof value !== "string") {
    throw new AttributeError(`'${typeName(value)}' object has no attribute '${what}'`);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Content parsers: body text of a closed region -> value.
// ---------------------------------------------------------------------------

function parseText(text, args) {
  requireStr(text, "strip");
  return truthy(get(args, "strip", true)) ? pyStrip(text) : text;
}

function parseInt_(text, args) {
  const stripped = parseText(text, args);
  return pyInt(stripped);
}

function parseFloat_(text, args) {
  return pyFloat(parseText(text, args));
}

function isAsciiLower(text, words) {
  // Python's str.lower() maps no non-ASCII character to ASCII letters or digits.
  return /^[\x00-\x7f]*$/.test(text) && words.includes(text.toLowerCase());
}

function parseBool(text, args) {
  return isAsciiLower(parseText(text, args), ["true", "1"]);
}

const SENTINEL_OPEN = "\x01";
const SENTINEL_CLOSE = "\x02";

function isWordChar(cp) {
  return inRanges(WORD, cp);
}

/** `regex.sub(r"(?<=[{,])(\w+):", r'"\1":', text)`. */
function quoteBareKeys(text) {
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const before = i > 0 ? text.charCodeAt(i - 1) : -1;
    if ((before === 123 || before === 44) && i < text.length) {
      let j = i;
      while (j < text.length && isWordChar(text.codePointAt(j))) j = nextIndex(text, j);
      if (j > i && text.charCodeAt(j) === 58) {
        out += `${text.slice(copied, i)}"${text.slice(i, j)}":`;
        copied = j + 1;
        i = j + 1;
        continue;
      }
    }
    i = nextIndex(text, i);
  }
  return out + text.slice(copied);
}

function parseJson(text, args) {
  requireStr(text, "strip");
  const stringDelims = get(args, "string_delims", []);
  if (truthy(stringDelims) && (text.includes(SENTINEL_OPEN) || text.includes(SENTINEL_CLOSE))) {
    throw new ValueError("json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.");
  }
  let working = text;
  const strings = [];
  if (truthy(stringDelims)) {
    const stash = (value) => {
      strings.push(value);
      return `${SENTINEL_OPEN}${strings.length - 1}${SENTINEL_CLOSE}`;
    };
    for (const pair of stringDelims) {
      const [open, close] = pair;
      let out = "";
      if (open.length + close.length === 0) {
        // Python's re.sub with an empty pattern: a match before every code point and at the end.
        for (const char of working) out += `${stash("")}${char}`;
        working = out + stash("");
        continue;
      }
      let at = 0;
      for (;;) {
        const start = working.indexOf(open, at);
        if (start < 0) break;
        const end = working.indexOf(close, start + open.length);
        if (end < 0) break;
        out += `${working.slice(at, start)}${stash(working.slice(start + open.length, end))}`;
        at = end + close.length;
      }
      working = out + working.slice(at);
    }
  }
  if (truthy(get(args, "unquoted_keys", false))) working = quoteBareKeys(working);
  strings.forEach((value, index) => {
    working = working.split(`${SENTINEL_OPEN}${index}${SENTINEL_CLOSE}`).join(dumps(value));
  });
  try {
    return loads(working);
  } catch (error) {
    if (!(error instanceof JSONDecodeError)) throw error;
    if (truthy(get(args, "allow_non_json", undefined))) return parseText(text, args);
    if (working === text) throw new ValueError(`json: could not parse region as JSON: ${error.message}`);
    throw new ValueError(`json: could not parse after dialect transforms: ${error.message}`);
  }
}

function parseValue(raw, valueParser) {
  if (valueParser === null || valueParser === undefined) return raw;
  return parseContent(raw, get(valueParser, "name", "text"), get(valueParser, "args", {}));
}

// Regexes found in content_args (xml-inline's tag_pattern), compiled ahead of
// time by the compiler and registered by each generated module.
const CONTENT_REGEXES = new Map();

/** Called by generated modules: pattern source -> compiled Regex. */
export function registerContentRegex(regex) {
  CONTENT_REGEXES.set(regex.source, regex);
}

function parseXmlInline(text, args) {
  const tagPattern = get(args, "tag_pattern", null);
  if (tagPattern === null) throw new ValueError("xml-inline: 'tag_pattern' content_arg is required");
  const valueParser = get(args, "value_parser", null);
  const merge = truthy(get(args, "merge_duplicates", false));
  const regex = CONTENT_REGEXES.get(tagPattern);
  if (regex === undefined) {
    throw new ValueError(`xml-inline: tag_pattern was not compiled ahead of time: ${tagPattern}`);
  }
  const out = {};
  for (const match of regex.finditer(text)) {
    const groups = match.groupdict();
    const key = has(groups, "key") ? groups.key : null;
    if (key === null) {
      throw new ValueError(`xml-inline: tag_pattern must have a named group 'key'. Pattern: ${tagPattern}`);
    }
    const value = parseValue(has(groups, "value") ? groups.value : "", valueParser);
    if (merge && has(out, key)) {
      if (!Array.isArray(out[key])) out[key] = [out[key]];
      out[key].push(value);
    } else {
      setKey(out, key, value);
    }
  }
  return out;
}

function pySplit(text, sep, limit = -1) {
  if (typeof sep !== "string") throw new TypeError_(`must be str or None, not ${typeName(sep)}`);
  if (sep === "") throw new ValueError("empty separator");
  const parts = text.split(sep);
  if (limit >= 0 && parts.length > limit + 1) return [...parts.slice(0, limit), parts.slice(limit).join(sep)];
  return parts;
}

function parseKvLines(text, args) {
  requireStr(text, "split");
  const lineSep = get(args, "line_sep", "\n");
  const kvSep = get(args, "kv_sep", ":");
  const valueParser = get(args, "value_parser", null);
  const out = {};
  for (let line of pySplit(text, lineSep)) {
    line = parseText(line, args);
    if (!line) continue;
    if (typeof kvSep !== "string") throw new TypeError_(`'in <string>' requires string as left operand, not ${typeName(kvSep)}`);
    if (!line.includes(kvSep)) continue;
    const [key, value] = pySplit(line, kvSep, 1);
    setKey(out, parseText(key, args), parseValue(parseText(value, args), valueParser));
  }
  return out;
}

const CONTENT_PARSERS = {
  text: parseText,
  int: parseInt_,
  float: parseFloat_,
  bool: parseBool,
  json: parseJson,
  "xml-inline": parseXmlInline,
  "kv-lines": parseKvLines,
};

export function parseContent(text, name, args) {
  if (typeof name !== "string" || !has(CONTENT_PARSERS, name)) throw new KeyError(`'${name}'`);
  return CONTENT_PARSERS[name](text, args);
}

// ---------------------------------------------------------------------------
// Transforms (placeholders found at build time)
// ---------------------------------------------------------------------------

/** A whole-string `"{root.key.key}"` in a transform: looked up in scope. */
export class Placeholder {
  constructor(path) {
    this.path = path;
    const [root, ...keys] = path.split(".");
    this.root = root;
    this.keys = keys;
  }

  resolve(scope) {
    if (!scope.has(this.root)) {
      throw new KeyError(`transform placeholder '{${this.path}}' is not defined. Available: ${[...scope.keys()].sort()}`);
    }
    let value = scope.get(this.root);
    for (const key of this.keys) {
      if (!isDict(value)) {
        throw new ValueError(`transform placeholder '{${this.path}}' cannot index into ${typeName(value)} at '${key}'`);
      }
      if (!has(value, key)) {
        throw new ValueError(`transform placeholder '{${this.path}}' is missing key '${key}'`);
      }
      value = value[key];
    }
    return value;
  }
}

export function applyTransform(node, scope) {
  if (node instanceof Placeholder) return node.resolve(scope);
  if (Array.isArray(node)) return node.map((item) => applyTransform(item, scope));
  if (isDict(node)) {
    const out = {};
    for (const key of Object.keys(node)) setKey(out, key, applyTransform(node[key], scope));
    return out;
  }
  return node;
}

/** One field of a template, as the driver needs it. */
export class Field {
  constructor(name, options = {}) {
    this.name = name;
    this.content = options.content ?? "text";
    this.contentArgs = options.contentArgs ?? {};
    this.repeats = options.repeats ?? false;
    this.join = options.join ?? null;
    this.optional = options.optional ?? true;
    this.transform = options.transform ?? null;
    this.transformEach = options.transformEach ?? false;
    this.dirty = !["text", "int", "float", "bool"].includes(this.content);
    this.open = options.open ?? null;
    this.close = options.close ?? null;
  }

  valueOf_(body, captures) {
    const value = parseContent(body, this.content, this.contentArgs);
    if (this.transform === null) return value;
    if (!this.transformEach) {
      const scope = new Map(Object.entries(captures));
      scope.set("content", value);
      return applyTransform(this.transform, scope);
    }
    if (!Array.isArray(value)) {
      throw new ValueError(
        `Field '${this.name}': transform_each requires the parsed content to be a list, got ${typeName(value)}.`,
      );
    }
    return value.map((item) => {
      if (!isDict(item)) {
        throw new ValueError(
          `Field '${this.name}': transform_each requires each list element to be a dict, got ${typeName(item)}.`,
        );
      }
      const scope = new Map(Object.entries(captures));
      for (const key of Object.keys(item)) scope.set(key, item[key]);
      return applyTransform(this.transform, scope);
    });
  }
}

// ---------------------------------------------------------------------------
// Tool-argument typing
// ---------------------------------------------------------------------------

function pyIterate(value) {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  if (isDict(value)) return Object.keys(value);
  throw new TypeError_(`'${typeName(value)}' object is not iterable`);
}

/** The JSON-schema type names a parameter declares, in order. */
export function schemaTypes(schema) {
  if (!isDict(schema)) return [];
  const declared = get(schema, "type", null);
  const types = typeof declared === "string" ? [declared] : [];
  if (Array.isArray(declared)) types.push(...declared.filter((name) => typeof name === "string"));
  for (const union of ["anyOf", "oneOf"]) {
    const choices = get(schema, union, null);
    for (const choice of truthy(choices) ? pyIterate(choices) : []) types.push(...schemaTypes(choice));
  }
  if (truthy(get(schema, "nullable", null)) && !types.includes("null")) types.push("null");
  return types;
}

function isInteger(number) {
  return Number.isFinite(number) && Number.isInteger(number);
}

class NoCast extends Error {}

function castOne(raw, typeName_) {
  if (typeName_ === "integer") {
    try {
      return pyInt(raw);
    } catch (error) {
      if (!(error instanceof ValueError)) throw error;
      const number = pyFloat(raw);
      if (isInteger(number)) return intFromNumber(number);
    }
  } else if (typeName_ === "number") {
    const number = pyFloat(raw);
    if (Number.isFinite(number)) return isInteger(number) && !raw.includes(".") ? intFromNumber(number) : number;
  } else if (typeName_ === "boolean") {
    const word = pyStrip(raw);
    if (/^[\x00-\x7f]*$/.test(word)) {
      const lower = word.toLowerCase();
      if (["true", "1", "false", "0"].includes(lower)) return lower === "true" || lower === "1";
    }
  } else if (typeName_ === "null") {
    const word = pyStrip(raw);
    if (word === "null" || word === "None") return null;
  } else if (typeName_ === "object" || typeName_ === "array") {
    const decoded = loads(raw);
    if (typeName_ === "object" ? isDict(decoded) : Array.isArray(decoded)) return decoded;
  }
  throw new NoCast();
}

/** The first type that `raw` casts to wins; otherwise `raw` stays a string. */
export function castArgument(raw, types) {
  for (const name of types) {
    try {
      return castOne(raw, name);
    } catch (error) {
      if (error instanceof NoCast || error instanceof ValueError) continue;
      throw error;
    }
  }
  return raw;
}

/** Tool name -> its JSON-schema `properties` (or {}). */
export function toolParameters(tools) {
  const params = new Map();
  if (!truthy(tools)) return params;
  for (const tool of pyIterate(tools)) {
    const fn = isDict(tool) ? get(tool, "function", tool) : null;
    if (isDict(fn) && typeof get(fn, "name", null) === "string") {
      const parameters = get(fn, "parameters", null);
      const properties = isDict(parameters) ? get(parameters, "properties", null) : null;
      params.set(fn.name, isDict(properties) ? properties : {});
    }
  }
  return params;
}

/** Cast string arguments of `{"function": {"name", "arguments"}}` values (or lists of them), in place. */
export function typeToolCalls(value, params) {
  if (Array.isArray(value)) return value.map((item) => typeToolCalls(item, params));
  const fn = isDict(value) ? get(value, "function", null) : null;
  if (!isDict(fn)) return value;
  const name = get(fn, "name", null);
  const args = get(fn, "arguments", null);
  if (typeof name !== "string" || !isDict(args)) return value;
  const properties = params.get(name);
  if (truthy(properties)) {
    for (const key of Object.keys(args)) {
      if (!has(properties, key)) continue;
      const types = schemaTypes(properties[key]);
      if (types.length === 0) continue;
      const argument = args[key];
      if (typeof argument === "string") {
        args[key] = castArgument(argument, types);
      } else if (Array.isArray(argument) && !types.includes("array")) {
        args[key] = argument.map((item) => (typeof item === "string" ? castArgument(item, types) : item));
      }
    }
  }
  return value;
}

// ---------------------------------------------------------------------------
// Delimiters
// ---------------------------------------------------------------------------

/**
 * A delimiter given as one literal or a list of literals: the same answers as
 * the reference's regex partial search on `lit1|lit2|...` (longest first).
 */
export class Literals {
  constructor(literals, { growsAtEdge = false } = {}) {
    this.literals = [...literals].sort((a, b) => Array.from(b).length - Array.from(a).length);
    this.growsAtEdge = growsAtEdge;
    this.longest = Math.max(...this.literals.map((literal) => literal.length));
    this.prefixes = new Set();
    for (const literal of this.literals) {
      const chars = Array.from(literal);
      for (let i = 1; i < chars.length; i++) this.prefixes.add(chars.slice(0, i).join(""));
    }
  }

  /** Leftmost complete match at or after `pos` (longest on ties): [start, end] or null. */
  find(buf, pos) {
    let bestStart = -1;
    let bestEnd = -1;
    for (const literal of this.literals) {
      let found = buf.indexOf(literal, pos);
      // A literal with a lone surrogate never matches half of a pair (Python
      // sees one character there).
      while (found >= 0 && (isLowSurrogateOfPair(buf, found) || isLowSurrogateOfPair(buf, found + literal.length))) {
        found = buf.indexOf(literal, found + 1);
      }
      if (found >= 0 && (bestStart < 0 || found < bestStart)) {
        bestStart = found;
        bestEnd = found + literal.length;
      }
    }
    return bestStart < 0 ? null : [bestStart, bestEnd];
  }

  /** Leftmost start of a proper prefix of a literal running to the end of `buf`, or -1. */
  partialStart(buf, pos) {
    const size = buf.length;
    let start = Math.max(pos, size - this.longest + 1);
    if (start > pos && isLowSurrogateOfPair(buf, start)) start += 1;
    for (; start < size; start = nextIndex(buf, start)) {
      if (this.prefixes.has(buf.slice(start))) return start;
    }
    return -1;
  }
}

/** Whether index `i` falls inside a surrogate pair (charCodeAt is NaN outside the string). */
function isLowSurrogateOfPair(text, i) {
  const c = text.charCodeAt(i);
  if (!(c >= 0xdc00 && c <= 0xdfff)) return false;
  const b = text.charCodeAt(i - 1);
  return b >= 0xd800 && b <= 0xdbff;
}

/** The end of the last non-overlapping match of the start anchor in `text`, or -1. */
function lastAnchorEnd(anchor, text) {
  let last = -1;
  if (anchor instanceof Regex) {
    for (const match of anchor.finditer(text)) last = match.end;
    return last;
  }
  let pos = 0;
  for (;;) {
    const found = anchor.find(text, pos);
    if (found === null) return last;
    last = found[1];
    pos = found[1];
  }
}

// ---------------------------------------------------------------------------
// The streaming driver
// ---------------------------------------------------------------------------

const TRIM_AT = 1024;

export const OPEN = 0;
export const CLOSE = 1;

const MISSING_PREFIX =
  "ResponseParser/parse_response requires `prefix` (the chat prompt sent to the model before generation): " +
  "chat templates often pre-write part of the assistant message (e.g. an opening `<think>`). If the generation " +
  'already holds the whole message, pass prefix="" to opt out.';

/**
 * Streaming response parser over a template's tables (`spec`: fields,
 * implicit, watch, startAnchor, defaults), set by the generated module.
 */
export class StreamParser {
  constructor(spec, prefix, { tools = null } = {}) {
    if (prefix === null || prefix === undefined) throw new ValueError(MISSING_PREFIX);
    if (typeof prefix !== "string") throw new TypeError_(`prefix must be a str, got ${typeName(prefix)}`);
    this._spec = spec;
    this._toolParams = toolParameters(tools);
    this._buf = "";
    this._pos = 0;
    this._memo = new Map(); // delimiter -> its last search (see _scan)
    this._output = deepCopy(spec.defaults);
    this._enterImplicit();
    this._captures = {};
    this._body = [];
    this._opened = false;
    this._finalized = false;
    /** Events from the part of the turn the prompt prefilled. */
    this.initialEvents = [];
    if (prefix) {
      const end = lastAnchorEnd(spec.startAnchor, prefix);
      const text = end < 0 ? prefix : prefix.slice(end);
      if (text) {
        this._buf = text;
        this._process(this.initialEvents, false);
      }
    }
    this._noteHeld();
  }

  /** The named groups of the open match of the region open now (a copy). */
  get captures() {
    return { ...this._captures };
  }

  /** Add generated text; return the events it completes. */
  feed(text) {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    if (typeof text !== "string") throw new TypeError_(`can only concatenate str (not "${typeName(text)}") to str`);
    const events = [];
    const held = this._heldLead;
    if (held !== null && allLead(held, text, 0)) {
      // The held text and `text` are all of the state's hold lead (8,000
      // newline tokens in reasoning): the pending match stays where it is
      // and nothing can match, so no search runs (see _noteHeld).
      this._buf += text;
      return events;
    }
    const fast = this._spec.fast?.get(this._state);
    if (fast !== undefined && text && this._pos === this._buf.length && this._skippable(fast, text)) {
      // Nothing is held and no delimiter of this state can start in `text`
      // (the compiler's trigger analysis): it goes to the region as it is.
      this._buf += text;
      this._pos = this._buf.length;
      this._route(events, text);
      this._trim();
      this._noteHeld();
      return events;
    }
    this._buf += text;
    this._process(events, false);
    this._trim();
    this._noteHeld();
    return events;
  }

  _skippable(fast, text) {
    for (const trigger of fast.triggers) if (text.includes(trigger)) return false;
    return !inRanges(fast.leads, codePointBefore(text, text.length));
  }

  /**
   * After a search: the state's hold lead while the held text is all of it
   * (the compiler's analysis: then a delimiter that starts with an unbounded
   * repeat of it has its partial match at the read position, and text of
   * that class holding none of the trigger characters can complete no
   * match), else null.
   */
  _noteHeld() {
    const held = this._spec.holdLead?.get(this._state);
    this._heldLead = held !== undefined && allLead(held, this._buf, this._pos) ? held : null;
  }

  /**
   * Drop consumed text, keeping the `context` code points regex delimiters
   * may read behind the read position (-1: keep all). Amortised: only once
   * a kilobyte is droppable, so a feed costs no copy of the whole buffer
   * (a JavaScript string grown by `+=` is flattened when read by index).
   */
  _trim() {
    const context = this._spec.context;
    if (context < 0) return;
    // 2 * context UTF-16 units hold the last `context` code points whole:
    // a cut inside a surrogate pair only leaves half of a character no
    // delimiter reads (vectors: feat_context/long_text_of_pairs_trimmed).
    const cut = this._pos - 2 * context;
    if (cut < TRIM_AT) return;
    this._buf = this._buf.slice(cut);
    this._pos -= cut;
    this._memo.clear();
  }

  /** End of generation: [message, final events]. */
  finalize() {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    const events = [];
    this._process(events, true);
    const output = this._output;
    const missing = this._spec.fields.filter((field) => !field.optional && !has(output, field.name));
    if (missing.length > 0) {
      throw new ValueError(
        `Required response_template fields missing from parsed output: [${missing.map((f) => `'${f.name}'`).join(", ")}]`,
      );
    }
    const defaults = this._spec.defaults;
    const message = {};
    for (const key of Object.keys(output)) {
      const value = output[key];
      const empty =
        value === null ||
        value === undefined ||
        value === "" ||
        (Array.isArray(value) && value.length === 0) ||
        (isDict(value) && Object.keys(value).length === 0);
      if (has(defaults, key) || !empty) setKey(message, key, value);
    }
    this._output = message;
    this._finalized = true;
    return [message, events];
  }

  // -- the state machine ---------------------------------------------------

  _scan(watch, eos) {
    const buf = this._buf;
    const pos = this._pos;
    const size = buf.length;
    const fields = this._spec.fields;
    let hold = size;
    let best = null;
    for (const [kind, index, delim] of watch) {
      let start;
      let end;
      let match = null;
      if (delim instanceof Literals) {
        // Memoised while the buffer is unchanged (whole-text parsing searches
        // again after every region): a match at or after `pos`, or none from
        // an earlier position, is still the answer from `pos`.
        let found;
        const cached = this._memo.get(delim);
        if (cached !== undefined && cached.size === size && pos >= cached.pos && (cached.found === null || cached.found[0] >= pos)) {
          found = cached.found;
        } else {
          found = delim.find(buf, pos);
          this._memo.set(delim, { size, pos, found });
        }
        if (found === null) {
          if (!eos) {
            const partial = delim.partialStart(buf, pos);
            if (partial >= 0 && partial < hold) hold = partial;
          }
          continue;
        }
        [start, end] = found;
        if (!eos && end === size && delim.growsAtEdge) {
          if (start < hold) hold = start;
          continue;
        }
      } else {
        const cached = this._memo.get(delim);
        if (
          cached !== undefined &&
          cached.size === size &&
          cached.eos === eos &&
          pos >= cached.pos &&
          (cached.match === null || cached.match.start >= pos)
        ) {
          match = cached.match;
        } else {
          match = delim.search(buf, pos, !eos);
          this._memo.set(delim, { size, eos, pos, match });
        }
        if (match === null) continue;
        start = match.start;
        end = match.end;
        if (!eos && (match.partial || end === size)) {
          if (start < hold) hold = start;
          continue;
        }
      }
      if (best !== null) {
        if (start > best.start) continue;
        if (start === best.start) {
          const length = cpLength(buf, start, end);
          const bestLength = cpLength(buf, best.start, best.end);
          if (length < bestLength) continue;
          if (length === bestLength) {
            if (kind > best.kind) continue;
            if (kind === best.kind && !pyLess(fields[index].name, fields[best.index].name)) continue;
          }
        }
      }
      best = { kind, index, start, end, match };
    }
    if (best !== null && best.start >= hold) best = null;
    return [best, hold];
  }

  _process(events, eos) {
    const watchSets = this._spec.watch;
    for (;;) {
      const [best, hold] = this._scan(watchSets.get(this._state), eos);
      if (best !== null) {
        if (best.start > this._pos) this._route(events, this._buf.slice(this._pos, best.start));
        this._pos = best.end;
        if (best.kind === OPEN) {
          this._close(events);
          this._open(events, best.index, best.match);
        } else {
          const hadText = this._opened;
          this._close(events);
          if (!hadText && best.start === best.end) break; // a zero-width close of an empty region would fire forever
        }
        continue;
      }
      if (eos) {
        if (this._pos < this._buf.length) {
          this._route(events, this._buf.slice(this._pos));
          this._pos = this._buf.length;
        }
        this._close(events);
        break;
      }
      if (hold > this._pos) {
        this._route(events, this._buf.slice(this._pos, hold));
        this._pos = hold;
      }
      break;
    }
  }

  _route(events, text) {
    const current = this._current;
    if (current === null || !text) return;
    const field = this._spec.fields[current];
    if (!this._opened) {
      events.push({ type: "region_open", field: field.name });
      this._opened = true;
    }
    this._body.push(text);
    events.push({ type: "region_chunk", field: field.name, text, dirty: field.dirty });
  }

  _enterImplicit() {
    this._current = this._spec.implicit;
    this._state = -1;
  }

  _open(events, index, match) {
    const field = this._spec.fields[index];
    this._current = index;
    this._state = index;
    this._captures = {};
    if (match !== null) {
      const groups = match.groupdict();
      for (const key of Object.keys(groups)) if (groups[key] !== null) setKey(this._captures, key, groups[key]);
    }
    this._body = [];
    this._opened = true;
    events.push({ type: "region_open", field: field.name });
  }

  _close(events) {
    const current = this._current;
    if (current !== null && this._opened) {
      const field = this._spec.fields[current];
      let value = field.valueOf_(this._body.join(""), this._captures);
      if (this._toolParams.size > 0) value = typeToolCalls(value, this._toolParams);
      const output = this._output;
      if (field.join !== null) {
        if (typeof value !== "string") {
          throw new ValueError(`Field '${field.name}': 'join' requires each match to parse to a string, got ${typeName(value)}.`);
        }
        const previous = has(output, field.name) ? output[field.name] : null;
        if (previous === null) output[field.name] = value;
        else if (typeof previous === "string") output[field.name] = previous + field.join + value;
        else throw new TypeError_(`unsupported operand type(s) for +: '${typeName(previous)}' and 'str'`);
      } else if (field.repeats) {
        if (!has(output, field.name)) setKey(output, field.name, []);
        const list = output[field.name];
        if (!Array.isArray(list)) throw new AttributeError(`'${typeName(list)}' object has no attribute 'append'`);
        list.push(value);
      } else {
        setKey(output, field.name, value);
      }
      events.push({ type: "region_close", field: field.name, value });
    }
    this._enterImplicit();
    this._captures = {};
    this._body = [];
    this._opened = false;
  }
}

/** Whether `text` from `from` on is all of a hold lead's class and holds none of its trigger characters. */
function allLead(held, text, from) {
  const lead = held.lead;
  for (let i = from; i < text.length; ) {
    const cp = text.codePointAt(i);
    if (!inRanges(lead, cp)) return false;
    i += cp > 0xffff ? 2 : 1;
  }
  for (const trigger of held.triggers) if (text.includes(trigger, from)) return false;
  return true;
}

function cpLength(text, start, end) {
  let count = 0;
  for (let i = start; i < end; i = nextIndex(text, i)) count++;
  return count;
}

/** `parse_response` for one text or a batch (one prefix for all, or one per text). */
export function runParseResponse(makeParser, text, prefix, tools) {
  if (prefix === null || prefix === undefined) throw new ValueError(MISSING_PREFIX);
  let texts;
  let batched;
  if (typeof text === "string") {
    texts = [text];
    batched = false;
  } else if (Array.isArray(text)) {
    texts = text;
    batched = true;
  } else {
    throw new TypeError_(`parse_response expects a str or a list of str, got ${typeName(text)}`);
  }
  let prefixes;
  if (typeof prefix === "string") prefixes = texts.map(() => prefix);
  else if (Array.isArray(prefix)) {
    if (prefix.length === 0) prefixes = texts.map(() => "");
    else if (prefix.length !== texts.length) {
      throw new ValueError(
        `Got ${texts.length} response(s) but ${prefix.length} prefix(es); \`prefix\` must be one string (used for every response) or one per response.`,
      );
    } else prefixes = prefix;
  } else throw new TypeError_(`prefix must be a str or a list of str, got ${typeName(prefix)}`);
  const messages = texts.map((one, i) => {
    const parser = makeParser(prefixes[i], tools);
    parser.feed(one);
    return parser.finalize()[0];
  });
  return batched ? messages : messages[0];
}

