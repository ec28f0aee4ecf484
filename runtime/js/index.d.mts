// Types of the response-template runtime (index.mjs).

/** A JSON value as the runtime holds it: Python ints beyond 2**53 - 1 are BigInt. */
export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };

export interface RegionOpen {
  type: "region_open";
  field: string;
  /** recover mode: the open delimiter's span in `inputText`, in code points (empty for the implicit region) */
  start?: number;
  end?: number;
  /** recover mode, explicit opens: the open match's named groups */
  captures?: { [name: string]: string };
}
export interface RegionChunk {
  type: "region_chunk";
  field: string;
  text: string;
  /** true for json / xml-inline / kv-lines: raw text whose parsed value only comes at close */
  dirty: boolean;
}
export interface RegionClose {
  type: "region_close";
  field: string;
  value: Value;
  /** recover mode: the close delimiter's span in `inputText`, in code points */
  start?: number;
  end?: number;
}
/** recover mode: a region whose value failed to parse (it stores nothing; parsing goes on). */
export interface RegionMalformed {
  type: "region_malformed";
  field: string;
  start: number;
  end: number;
  error: PythonError;
}
export type ParserEvent = RegionOpen | RegionChunk | RegionClose | RegionMalformed;

/** The parsed message: `role`, `content`, `reasoning_content`, `tool_calls`, ... as the template declares. */
export type Message = { [key: string]: Value };

/** A tool as a JSON schema (`{"type": "function", "function": {"name", "parameters"}}` or the bare function). */
export type Tool = { [key: string]: unknown };

export interface ParserOptions {
  tools?: Tool[] | null;
  /** vLLM 0.33's recovery mode (docs/recovery.md) */
  recover?: boolean;
  /** recover mode: what a malformed region leaves in the message */
  malformed?: "drop" | "content";
}
export interface ParseOptions {
  tools?: Tool[] | null;
  recover?: boolean;
  malformed?: "drop" | "content";
}

/** An exception with the class name the reference interpreter raises. */
export declare class PythonError extends Error {
  constructor(message: string, pythonType: string);
  readonly pythonType: string;
}
export declare class ValueError extends PythonError {
  constructor(message: string);
}
export declare class KeyError extends PythonError {
  constructor(message: string);
}
declare class TypeError_ extends PythonError {
  constructor(message: string);
}
export { TypeError_ as TypeError };
export declare class AttributeError extends PythonError {
  constructor(message: string);
}
export declare class RuntimeError extends PythonError {
  constructor(message: string);
}

/** Streaming parser; generated modules subclass it as `ResponseParser`. */
export declare class StreamParser {
  constructor(spec: unknown, prefix: string, options?: ParserOptions);
  /** Events from the part of the turn the prompt prefilled. */
  readonly initialEvents: ParserEvent[];
  /** Named groups of the open match of the region open now. */
  readonly captures: { [name: string]: string };
  /** Add generated text; return the events it completes. */
  feed(text: string): ParserEvent[];
  /** End of generation: the message and the last events. */
  finalize(): [Message, ParserEvent[]];
}

/**
 * The recovery-mode parser (`new ResponseParser(prefix, { recover: true })`
 * returns one): the same API, vLLM 0.33's events, and `inputText`.
 */
export declare class RecoveringParser {
  constructor(spec: unknown, prefix: string, options?: { tools?: Tool[] | null; malformed?: "drop" | "content" });
  readonly initialEvents: ParserEvent[];
  readonly captures: { [name: string]: string };
  /** The input after start-anchor truncation; event offsets index it in code points. */
  readonly inputText: string;
  feed(text: string): ParserEvent[];
  finalize(): [Message, ParserEvent[]];
}
export declare const MALFORMED_MODES: string[];

/** A match of a compiled delimiter regex (UTF-16 positions). */
export declare class Match {
  readonly start: number;
  readonly end: number;
  readonly partial: boolean;
  group(index: number): string | null;
  groupdict(): { [name: string]: string | null };
}

/** A delimiter regex compiled by the compiler, with the `regex` module's semantics. */
export declare class Regex {
  constructor(
    source: string,
    tree: unknown[],
    entry?: number[] | null,
    hint?: { triggers: string[]; leads: number[] | null } | null,
    firstLead?: number[] | null,
    lazyLead?: [number[], number] | null,
    required?: [string | number[][], number, number[] | null, number[][] | null, number, number] | null,
  );
  readonly source: string;
  search(text: string, pos: number, partial?: boolean): Match | null;
  finditer(text: string): Generator<Match, void, undefined>;
}

/** A literal delimiter (one literal or a list of them). */
export declare class Literals {
  constructor(literals: string[], options?: { growsAtEdge?: boolean });
}

export declare class Field {
  constructor(name: string, options?: Record<string, unknown>);
  readonly name: string;
}

export declare class Placeholder {
  constructor(path: string);
}

export declare const OPEN: 0;
export declare const CLOSE: 1;

/** Python's `json.loads`. */
export declare function loads(text: string): Value;
/** Python's `json.dumps` (ensure_ascii). */
export declare function dumps(value: Value): string;
/** Python's `int(text)`. */
export declare function pyInt(text: string): number | bigint;
/** Python's `float(text)`. */
export declare function pyFloat(text: string): number;
/** Python's `str.strip()`. */
export declare function pyStrip(text: string): string;
export declare function registerContentRegex(regex: Regex): void;
export declare function runParseResponse(
  makeParser: (prefix: string, tools: Tool[] | null | undefined) => StreamParser,
  text: string | string[],
  prefix: string | string[] | null | undefined,
  tools: Tool[] | null | undefined,
  whole?: ((text: string, prefix: string, tools: Tool[] | null | undefined) => Message) | null,
): Message | Message[];
/** One whole output into its message, searched once as the end of the stream (whole.mjs). */
export declare function parseWhole(spec: unknown, text: string, prefix: string, tools: Tool[] | null | undefined): Message;
export declare function parseContent(text: string, name: string, args: { [key: string]: Value }): Value;
export declare function isDict(value: unknown): boolean;
export declare function truthy(value: unknown): boolean;
export declare function typeName(value: unknown): string;
export declare function applyTransform(node: unknown, scope: Map<string, Value>): Value;
export declare function schemaTypes(schema: unknown): string[];
export declare function castArgument(raw: string, types: string[]): Value;
export declare function toolParameters(tools: unknown): Map<string, { [key: string]: unknown }>;
export declare function typeToolCalls(value: Value, params: Map<string, { [key: string]: unknown }>): Value;
