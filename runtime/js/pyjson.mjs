// Python's `json.loads`, `json.dumps`, `int()`, `float()` and `str.strip()`
// where JavaScript's built-ins differ. See README.md for the value mapping:
// Python ints beyond 2**53 - 1 are BigInt; every other number is a Number.
// Comments in [brackets] name entries of compiler/conformance/inventory.json (see
// index.mjs).

import { DECIMAL, SPACE } from "./unicode.mjs";
import { inRanges } from "./regex.mjs";

/** An exception carrying the class name Python raises (`pythonType`). */
export class PythonError extends Error {
  constructor(message, pythonType) {
    super(message);
    this.name = pythonType;
    this.pythonType = pythonType;
  }
}

export class ValueError extends PythonError {
  constructor(message) {
    super(message, "ValueError");
  }
}

export class KeyError extends PythonError {
  constructor(message) {
    super(message, "KeyError");
  }
}

export class TypeError_ extends PythonError {
  constructor(message) {
    super(message, "TypeError");
  }
}

export class AttributeError extends PythonError {
  constructor(message) {
    super(message, "AttributeError");
  }
}

export class RuntimeError extends PythonError {
  constructor(message) {
    super(message, "RuntimeError");
  }
}

/** Python's ValueError for ints of more than 4300 digits (not a JSONDecodeError). */
class IntDigitsError extends ValueError {}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
// CPython refuses to convert longer decimal strings to int (sys.int_info).
const INT_MAX_STR_DIGITS = 4300;

/** A Python int from ASCII digits (with sign): a Number when exact, else a BigInt. */
export function intFromDigits(text) {
  const digits = text.replace(/^[-+]/, ""); // leading zeros count towards the limit, as in CPython
  if (digits.length > INT_MAX_STR_DIGITS) {
    throw new IntDigitsError(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion`);
  }
  if (digits.length <= 15) {
    const n = Number(text);
    return n === 0 ? 0 : n;
  }
  const big = BigInt(text);
  return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(big);
}

/** A Python int equal to the integral Number `n`. */
export function intFromNumber(n) {
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  return BigInt(n);
}

/** Python's `str.strip()` (characters for which `str.isspace` is true) [content.text.strip, content.text.crlf]. */
export function pyStrip(text) {
  let start = 0;
  let end = text.length;
  while (start < end && isSpaceAt(text, start)) start += 1;
  while (end > start && isSpaceAt(text, end - 1)) end -= 1;
  return text.slice(start, end);
}

function isSpaceAt(text, i) {
  // Every Python whitespace character is in the BMP.
  return inRanges(SPACE, text.charCodeAt(i));
}

/** The whitespace `int()` and `float()` ignore around a number: str.isspace but \x1c-\x1f. */
function numberStrip(text) {
  const isNumberSpace = (i) => {
    const c = text.charCodeAt(i);
    return (c < 0x1c || c > 0x1f) && inRanges(SPACE, c);
  };
  let start = 0;
  let end = text.length;
  while (start < end && isNumberSpace(start)) start += 1;
  while (end > start && isNumberSpace(end - 1)) end -= 1;
  return text.slice(start, end);
}

function decimalValue(cp) {
  if (cp >= 48 && cp <= 57) return cp - 48;
  if (cp < 128) return -1;
  let lo = 0;
  let hi = DECIMAL.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < DECIMAL[3 * mid]) hi = mid - 1;
    else if (cp > DECIMAL[3 * mid + 1]) lo = mid + 1;
    else return DECIMAL[3 * mid + 2] + cp - DECIMAL[3 * mid];
  }
  return -1;
}

/** Unicode decimal digits -> ASCII, other characters kept (as Python's number parsing reads them). */
function asciiDigits(text) {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  let out = "";
  for (const ch of text) {
    const value = decimalValue(ch.codePointAt(0));
    out += value >= 0 ? String(value) : ch;
  }
  return out;
}

function pyRepr(text) {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
}

/**
 * Python's `int(text)` for a str (base 10): surrounding whitespace, sign,
 * underscores between digits, Unicode decimal digits, any size
 * [content.int, content.int.strip-false, content.number.underscore,
 * content.number.unicode-digits, content.int.beyond-double, content.int.error].
 */
export function pyInt(text) {
  const stripped = asciiDigits(numberStrip(text));
  const m = /^([-+]?)(\d(?:_?\d)*)$/.exec(stripped);
  if (m === null) throw new ValueError(`invalid literal for int() with base 10: ${pyRepr(text)}`);
  return intFromDigits(m[1] + m[2].replace(/_/g, ""));
}

/**
 * Python's `float(text)` for a str: exponents, inf/infinity/nan words,
 * underscores, Unicode digits [content.float, content.float.exponent,
 * content.float.error, content.number.underscore, content.number.unicode-digits].
 */
export function pyFloat(text) {
  const stripped = asciiDigits(numberStrip(text));
  const m = /^([-+]?)(?:(inf|infinity|nan)|((?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?)(?:[eE]([-+]?\d(?:_?\d)*))?)$/i.exec(
    stripped,
  );
  if (m !== null) {
    const sign = m[1] === "-" ? -1 : 1;
    if (m[2] !== undefined) return m[2].toLowerCase() === "nan" ? NaN : sign * Infinity;
    const mantissa = m[3];
    if (/\d/.test(mantissa)) {
      const body = mantissa.replace(/_/g, "") + (m[4] !== undefined ? `e${m[4].replace(/_/g, "")}` : "");
      return sign * Number(body); // Number() reads ".5" and "5." as Python does
    }
  }
  throw new ValueError(`could not convert string to float: ${pyRepr(text)}`);
}

// ---------------------------------------------------------------------------
// json.loads
// ---------------------------------------------------------------------------

export class JSONDecodeError extends ValueError {
  constructor(msg, doc, pos) {
    let line = 1;
    let col = pos + 1;
    const before = doc.slice(0, pos);
    const lastNl = before.lastIndexOf("\n");
    line = before.split("\n").length;
    if (lastNl >= 0) col = pos - lastNl;
    super(`${msg}: line ${line} column ${col} (char ${pos})`);
  }
}

const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

/** Set a key as Python's dict does (also `__proto__`, as an own property). */
export function setKey(obj, key, value) {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Python's `json.loads(text)`: NaN/Infinity/-Infinity, big integers (BigInt),
 * lone surrogates in escapes, duplicate keys (the last value, at the first
 * key's place), control characters refused in strings; errors are ValueError
 * [content.json, content.json.nan-infinity, content.json.beyond-double,
 * content.json.unicode-escapes, content.json.duplicate-keys].
 */
export function loads(doc) {
  if (doc.startsWith("\ufeff")) throw new JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", doc, 0);
  let i = 0;
  const n = doc.length;
  const skip = () => {
    while (i < n && WS.has(doc[i])) i++;
  };
  const value = (depth) => {
    if (depth > 990) throw new PythonError("maximum recursion depth exceeded while decoding a JSON document", "RecursionError");
    const ch = doc[i];
    if (ch === '"') return string();
    if (ch === "{") return object(depth);
    if (ch === "[") return array(depth);
    if (ch === "n" && doc.startsWith("null", i)) {
      i += 4;
      return null;
    }
    if (ch === "t" && doc.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (ch === "f" && doc.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (ch === "N" && doc.startsWith("NaN", i)) {
      i += 3;
      return NaN;
    }
    if (ch === "I" && doc.startsWith("Infinity", i)) {
      i += 8;
      return Infinity;
    }
    if (ch === "-" && doc.startsWith("-Infinity", i)) {
      i += 9;
      return -Infinity;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(doc);
    if (m !== null) {
      i += m[0].length;
      if (m[2] === undefined && m[3] === undefined) return intFromDigits(m[1]);
      return Number(m[0]);
    }
    throw new JSONDecodeError("Expecting value", doc, i);
  };
  const string = () => {
    const begin = i;
    i++;
    let out = "";
    let chunkStart = i;
    for (;;) {
      if (i >= n) throw new JSONDecodeError("Unterminated string starting at", doc, begin);
      const c = doc.charCodeAt(i);
      if (c === 34) {
        out += doc.slice(chunkStart, i);
        i++;
        return out;
      }
      if (c < 0x20) throw new JSONDecodeError("Invalid control character at", doc, i);
      if (c === 92) {
        out += doc.slice(chunkStart, i);
        const e = doc[i + 1];
        if (e === undefined) throw new JSONDecodeError("Unterminated string starting at", doc, begin);
        if (e === "u") {
          const hex = doc.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JSONDecodeError("Invalid \\uXXXX escape", doc, i + 1);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          if (!(e in ESCAPES)) throw new JSONDecodeError("Invalid \\escape", doc, i);
          out += ESCAPES[e];
          i += 2;
        }
        chunkStart = i;
        continue;
      }
      i++;
    }
  };
  const object = (depth) => {
    i++;
    const out = {};
    skip();
    if (doc[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      if (doc[i] !== '"') {
        throw new JSONDecodeError("Expecting property name enclosed in double quotes", doc, i);
      }
      const key = string();
      skip();
      if (doc[i] !== ":") throw new JSONDecodeError("Expecting ':' delimiter", doc, i);
      i++;
      skip();
      setKey(out, key, value(depth + 1));
      skip();
      if (doc[i] === "}") {
        i++;
        return out;
      }
      if (doc[i] !== ",") throw new JSONDecodeError("Expecting ',' delimiter", doc, i);
      const comma = i;
      i++;
      skip();
      if (doc[i] === "}") throw new JSONDecodeError("Illegal trailing comma before end of object", doc, comma);
    }
  };
  const array = (depth) => {
    i++;
    const out = [];
    skip();
    if (doc[i] === "]") {
      i++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      skip();
      if (doc[i] === "]") {
        i++;
        return out;
      }
      if (doc[i] !== ",") throw new JSONDecodeError("Expecting ',' delimiter", doc, i);
      const comma = i;
      i++;
      skip();
      if (doc[i] === "]") throw new JSONDecodeError("Illegal trailing comma before end of array", doc, comma);
    }
  };
  skip();
  const result = value(0);
  skip();
  if (i !== n) throw new JSONDecodeError("Extra data", doc, i);
  return result;
}

// ---------------------------------------------------------------------------
// json.dumps (ensure_ascii=True, Python's separators)
// ---------------------------------------------------------------------------

function dumpString(text, ensureAscii) {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c < 0x20 || c === 0x7f || (ensureAscii && c > 0x7e) || isLoneSurrogate(text, i)) {
      out += `\\u${c.toString(16).padStart(4, "0")}`;
    } else out += text[i]; // either half of a surrogate pair is copied as it is
  }
  return `${out}"`;
}

function isLoneSurrogate(text, i) {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1);
    return !(d >= 0xdc00 && d <= 0xdfff);
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const b = text.charCodeAt(i - 1);
    return !(b >= 0xd800 && b <= 0xdbff);
  }
  return false;
}

/**
 * Python's `repr(float)` of a finite non-zero Number: the same shortest digits
 * as JavaScript's, laid out as Python does (exponent form below 1e-4 and from
 * 1e16, with at least two exponent digits; otherwise ".0" on whole numbers).
 */
function floatRepr(value) {
  const [mantissa, exponentText] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const digits = String(Math.abs(exponent)).padStart(2, "0");
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${digits}`;
  }
  const sign = value < 0 ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
}

/**
 * Python's `json.dumps(value)`: NaN/Infinity, BigInt digits, `-0.0`, and
 * `\uXXXX` for non-ASCII (with `ensureAscii` false, only for control
 * characters and lone surrogates, so the text stays valid UTF-8).
 */
export function dumps(value, { ensureAscii = true } = {}) {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (value === Infinity) return "Infinity";
    if (value === -Infinity) return "-Infinity";
    if (Object.is(value, -0)) return "-0.0";
    // Integers beyond 2**53 are BigInt here: a Number that large is a float.
    if (Number.isSafeInteger(value)) return String(value);
    return floatRepr(value);
  }
  const options = { ensureAscii };
  if (typeof value === "string") return dumpString(value, ensureAscii);
  if (Array.isArray(value)) return `[${value.map((item) => dumps(item, options)).join(", ")}]`;
  return `{${Object.keys(value)
    .map((key) => `${dumpString(key, ensureAscii)}: ${dumps(value[key], options)}`)
    .join(", ")}}`;
}
