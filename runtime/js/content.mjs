// Python values in JavaScript, the content parsers (body text of a closed
// region -> value), transforms and the Field a generated module declares.
// Part of the runtime (index.mjs re-exports what generated modules use).
// Comments in [brackets] name entries of compiler/conformance/inventory.json (see
// index.mjs).

import { inRanges, nextIndex } from "./regex.mjs";
import {
  AttributeError,
  JSONDecodeError,
  KeyError,
  TypeError_,
  ValueError,
  dumps,
  loads,
  pyFloat,
  pyInt,
  pyStrip,
  setKey,
} from "./pyjson.mjs";
import { WORD } from "./unicode.mjs";

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
export function get(mapping, key, fallback) {
  if (!isDict(mapping)) throw new AttributeError(`'${typeName(mapping)}' object has no attribute 'get'`);
  return Object.prototype.hasOwnProperty.call(mapping, key) ? mapping[key] : fallback;
}

export function has(mapping, key) {
  return Object.prototype.hasOwnProperty.call(mapping, key);
}

/** Python's `str(a) < str(b)`: code point order (not UTF-16 order). */
export function pyLess(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i].codePointAt(0);
    const q = y[i].codePointAt(0);
    if (p !== q) return p < q;
  }
  return x.length < y.length;
}

export function deepCopy(value) {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (isDict(value)) {
    const out = {};
    for (const key of Object.keys(value)) setKey(out, key, deepCopy(value[key]));
    return out;
  }
  return value;
}

// A non-string body (an unmatched xml-inline `value` group is null) has no
// str method [error.feed.xml-value-group-unmatched-parsed]
function requireStr(value, what) {
  if (typeof value !== "string") {
    throw new AttributeError(`'${typeName(value)}' object has no attribute '${what}'`);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Content parsers: body text of a closed region -> value.
// ---------------------------------------------------------------------------

// str.strip: Unicode whitespace, on code points (pyStrip) [content.text.strip, content.text.strip-false,
// content.text.whitespace-only, content.text.crlf, content.text.empty, content.text.non-bmp,
// field.content.text, field.content_args.strip]
function parseText(text, args) {
  requireStr(text, "strip");
  return truthy(get(args, "strip", true)) ? pyStrip(text) : text;
}

// Python int() (pyInt): sign, surrounding whitespace, underscores, Unicode digits,
// any size [content.int, content.int.strip-false, content.number.underscore,
// content.number.unicode-digits, content.int.beyond-double, content.int.error, field.content.int]
function parseInt_(text, args) {
  const stripped = parseText(text, args);
  return pyInt(stripped);
}

// Python float() (pyFloat): exponents, nan/inf words [content.float, content.float.exponent,
// content.float.error, field.content.float]
function parseFloat_(text, args) {
  return pyFloat(parseText(text, args));
}

function isAsciiLower(text, words) {
  // Python's str.lower() maps no non-ASCII character to ASCII letters or digits.
  return /^[\x00-\x7f]*$/.test(text) && words.includes(text.toLowerCase());
}

// Lowercased "true" or "1"; anything else is false, never an error [content.bool.true,
// content.bool.true-any-case, content.bool.one, content.bool.other-false, field.content.bool]
function parseBool(text, args) {
  return isAsciiLower(parseText(text, args), ["true", "1"]);
}

const SENTINEL_OPEN = "\x01";
const SENTINEL_CLOSE = "\x02";

function isWordChar(cp) {
  return inRanges(WORD, cp);
}

/** `regex.sub(r"(?<=[{,])(\w+):", r'"\1":', text)`: only a \w+ key right after "{" or "," [content.json.unquoted_keys.quoted]. */
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

// json.loads semantics (pyjson.mjs loads) [content.json, field.content.json, content.json.nan-infinity,
// content.json.duplicate-keys, content.json.unicode-escapes, content.json.beyond-double]
function parseJson(text, args) {
  requireStr(text, "strip");
  const stringDelims = get(args, "string_delims", []);
  // Checked before anything else, so allow_non_json does not apply [error.feed.json-sentinel]
  if (truthy(stringDelims) && (text.includes(SENTINEL_OPEN) || text.includes(SENTINEL_CLOSE))) {
    throw new ValueError("json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.");
  }
  let working = text;
  const strings = [];
  // Text between each pair of markers becomes a JSON string: non-greedy, across
  // newlines, the pairs in order [content.json.string_delims, field.content_args.string_delims,
  // content.json.string_delims.parsed, content.json.string_delims.several]
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
  // [content.json.unquoted_keys, field.content_args.unquoted_keys]
  if (truthy(get(args, "unquoted_keys", false))) working = quoteBareKeys(working);
  strings.forEach((value, index) => {
    working = working.split(`${SENTINEL_OPEN}${index}${SENTINEL_CLOSE}`).join(dumps(value));
  });
  try {
    return loads(working);
  } catch (error) {
    if (!(error instanceof JSONDecodeError)) throw error;
    // The text as `text` parses it: stripped unless strip is false [content.json.allow_non_json,
    // content.json.allow_non_json.strip-false, field.content_args.allow_non_json]
    if (truthy(get(args, "allow_non_json", undefined))) return parseText(text, args);
    // [error.feed.json-invalid, error.feed.json-invalid-after-dialect]
    if (working === text) throw new ValueError(`json: could not parse region as JSON: ${error.message}`);
    throw new ValueError(`json: could not parse after dialect transforms: ${error.message}`);
  }
}

// name defaults to text [content.value_parser, content.value_parser.default-text,
// field.content_args.value_parser]
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

// Every non-overlapping tag_pattern match adds key -> value; none: {} [content.xml-inline,
// field.content.xml-inline, field.content_args.tag_pattern, content.xml-inline.no-match]
function parseXmlInline(text, args) {
  const tagPattern = get(args, "tag_pattern", null);
  // At the close, not at load [error.feed.xml-no-tag-pattern]
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
    // Absent or not taking part [error.feed.xml-no-key-group]
    if (key === null) {
      throw new ValueError(`xml-inline: tag_pattern must have a named group 'key'. Pattern: ${tagPattern}`);
    }
    // No `value` group: ""; one that did not take part: null [content.xml-inline.value-missing,
    // error.feed.xml-value-group-unmatched-parsed]
    const value = parseValue(has(groups, "value") ? groups.value : "", valueParser);
    // [content.xml-inline.merge_duplicates, content.xml-inline.duplicates-last-wins,
    // field.content_args.merge_duplicates]
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

// Key/value lines into a dict [content.kv-lines, field.content.kv-lines]
function parseKvLines(text, args) {
  requireStr(text, "split");
  const lineSep = get(args, "line_sep", "\n");
  const kvSep = get(args, "kv_sep", ":");
  const valueParser = get(args, "value_parser", null);
  const out = {};
  // [content.kv-lines.line_sep, field.content_args.line_sep]
  for (let line of pySplit(text, lineSep)) {
    line = parseText(line, args);
    // Empty lines and lines without kv_sep [content.kv-lines.line-skipped]
    if (!line) continue;
    if (typeof kvSep !== "string") throw new TypeError_(`'in <string>' requires string as left operand, not ${typeName(kvSep)}`);
    if (!line.includes(kvSep)) continue;
    // Split once, at the first kv_sep; the last value of a key wins [content.kv-lines.first-separator,
    // content.kv-lines.kv_sep, field.content_args.kv_sep, content.kv-lines.strip-false,
    // content.kv-lines.duplicates-last-wins]
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

/**
 * A whole-string `"{root.key.key}"` in a transform: looked up in scope. Which
 * strings are placeholders the compiler decides (compiler/ir.py TPlaceholder);
 * every other string reaches the runtime as a literal.
 */
export class Placeholder {
  constructor(path) {
    this.path = path;
    const [root, ...keys] = path.split(".");
    this.root = root;
    this.keys = keys;
  }

  resolve(scope) {
    // [error.transform.unknown-name]
    if (!scope.has(this.root)) {
      throw new KeyError(`transform placeholder '{${this.path}}' is not defined. Available: ${[...scope.keys()].sort()}`);
    }
    let value = scope.get(this.root);
    // [transform.dotted]
    for (const key of this.keys) {
      // [error.transform.index-non-dict]
      if (!isDict(value)) {
        throw new ValueError(`transform placeholder '{${this.path}}' cannot index into ${typeName(value)} at '${key}'`);
      }
      // [error.transform.missing-key]
      if (!has(value, key)) {
        throw new ValueError(`transform placeholder '{${this.path}}' is missing key '${key}'`);
      }
      value = value[key];
    }
    return value;
  }
}

// Dicts and lists rebuilt, a whole placeholder gives its value (its type kept),
// scalars and strings kept [transform.nested, transform.type-kept,
// transform.scalars-kept, transform.whole-value]
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
    // [event.chunk-clean, event.chunk-dirty]
    this.dirty = !["text", "int", "float", "bool"].includes(this.content);
    this.open = options.open ?? null;
    this.close = options.close ?? null;
  }

  valueOf_(body, captures) {
    const value = parseContent(body, this.content, this.contentArgs);
    if (this.transform === null) return value;
    // Captures plus `content`, which wins over a capture of that name [transform,
    // transform.capture, transform.content-shadows-capture]
    if (!this.transformEach) {
      const scope = new Map(Object.entries(captures));
      scope.set("content", value);
      return applyTransform(this.transform, scope);
    }
    // [error.transform_each.not-list]
    if (!Array.isArray(value)) {
      throw new ValueError(
        `Field '${this.name}': transform_each requires the parsed content to be a list, got ${typeName(value)}.`,
      );
    }
    return value.map((item) => {
      // [error.transform_each.item-not-dict]
      if (!isDict(item)) {
        throw new ValueError(
          `Field '${this.name}': transform_each requires each list element to be a dict, got ${typeName(item)}.`,
        );
      }
      const scope = new Map(Object.entries(captures));
      // The element's keys win over captures [transform_each, transform_each.item-shadows-capture]
      for (const key of Object.keys(item)) scope.set(key, item[key]);
      return applyTransform(this.transform, scope);
    });
  }
}
