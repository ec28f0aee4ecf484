// Tool-argument typing: string arguments of tool calls cast by the JSON
// schema of the tools passed to the parser. Part of the runtime (index.mjs
// re-exports it). Comments in [brackets] name entries of
// compiler/conformance/inventory.json (see index.mjs).

import { TypeError_, ValueError, intFromNumber, loads, pyFloat, pyInt, pyStrip } from "./pyjson.mjs";
import { get, has, isDict, truthy, typeName } from "./content.mjs";

function pyIterate(value) {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  if (isDict(value)) return Object.keys(value);
  throw new TypeError_(`'${typeName(value)}' object is not iterable`);
}

/**
 * The JSON-schema type names a parameter declares, in order: type (string or
 * list), anyOf, oneOf, then null for nullable [typing.schema.type-list,
 * typing.schema.anyOf, typing.schema.oneOf, typing.schema.nullable,
 * typing.schema.untyped].
 */
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

// What castOne returns when `raw` does not fit the type (no exception: a
// string argument of a string parameter is the common case).
const NO_CAST = Symbol("no cast");

/** Cast `raw` to one JSON-schema type; NO_CAST (or a ValueError thrown) when it does not fit. */
function castOne(raw, typeName_) {
  if (typeName_ === "integer") {
    // Python int(), else a whole float ("3.0", "1e3") [typing.integer, typing.integer.fails,
    // typing.integer.whole-float-text]
    try {
      return pyInt(raw);
    } catch (error) {
      if (!(error instanceof ValueError)) throw error;
      const number = pyFloat(raw);
      if (isInteger(number)) return intFromNumber(number);
    }
  } else if (typeName_ === "number") {
    // NaN and infinities fail; an int when whole and written without "."
    // [typing.number.int, typing.number.float, typing.number.fails]
    const number = pyFloat(raw);
    if (Number.isFinite(number)) return isInteger(number) && !raw.includes(".") ? intFromNumber(number) : number;
  } else if (typeName_ === "boolean") {
    // [typing.boolean.word, typing.boolean.digit, typing.boolean.fails]
    const word = pyStrip(raw);
    if (/^[\x00-\x7f]*$/.test(word)) {
      const lower = word.toLowerCase();
      if (["true", "1", "false", "0"].includes(lower)) return lower === "true" || lower === "1";
    }
  } else if (typeName_ === "null") {
    // case-sensitive [typing.null.null, typing.null.None, typing.null.fails]
    const word = pyStrip(raw);
    if (word === "null" || word === "None") return null;
  } else if (typeName_ === "object" || typeName_ === "array") {
    // [typing.object, typing.object.fails, typing.array, typing.array.fails]
    const decoded = loads(raw);
    if (typeName_ === "object" ? isDict(decoded) : Array.isArray(decoded)) return decoded;
  }
  return NO_CAST;
}

/**
 * The first type that `raw` casts to wins; otherwise `raw` stays a string
 * [typing.union, typing.union.later-type-wins, typing.all-fail-stays-string,
 * typing.string.fails, typing.unknown-type].
 */
export function castArgument(raw, types) {
  for (const name of types) {
    let value;
    try {
      value = castOne(raw, name);
    } catch (error) {
      if (error instanceof ValueError) continue;
      throw error;
    }
    if (value !== NO_CAST) return value;
  }
  return raw;
}

/**
 * Tool name -> its JSON-schema `properties` (or {}); no tools, no typing
 * [typing.tools.function-shape, typing.tools.bare-shape,
 * typing.tool-without-properties, typing.tools.empty-list].
 */
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

/**
 * Cast string arguments of `{"function": {"name", "arguments"}}` values (or
 * lists of them), in place: any field's value, not only tool_calls
 * [typing.applied, typing.applied-to-list, typing.not-a-call-skipped,
 * typing.tool-unknown, typing.argument-not-in-schema, typing.non-string-untouched].
 */
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
        // repeated keys collected by xml-inline's merge_duplicates
        // [typing.list-elementwise, typing.array-list-untouched]
        args[key] = argument.map((item) => (typeof item === "string" ? castArgument(item, types) : item));
      }
    }
  }
  return value;
}
