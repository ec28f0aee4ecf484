// Conformance runner for generated JavaScript parsers (see compiler/conformance/__init__.py).
//
//   node conformance_js.mjs MODULE.mjs < cases.jsonl > results.jsonl
//
// Each input line is a case {"id", "prefix", "chunks", "tools"}; each output
// line is {"id", "initial_events", "feeds", "final_events", "message", "error"},
// with `error` null or {"stage", "index", "type"} (the Python class name).
// Lines are read and written with Python's json semantics (NaN, big ints).

import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Python class name of an error thrown by a parser; a JS-only error is marked as such. */
export function errorType(error) {
  if (error && typeof error.pythonType === "string") return error.pythonType;
  return `JavaScript:${error && error.name ? error.name : typeof error}`;
}

/** Everything observable of one run, up to the first exception (as compiler/conformance/vectors.py's trace). */
export function trace(makeParser, chunks) {
  const result = { initial_events: null, feeds: [], final_events: null, message: null, error: null };
  let parser;
  try {
    parser = makeParser();
  } catch (error) {
    result.error = { stage: "init", index: 0, type: errorType(error) };
    return result;
  }
  result.initial_events = parser.initialEvents;
  for (let index = 0; index < chunks.length; index++) {
    try {
      result.feeds.push(parser.feed(chunks[index]));
    } catch (error) {
      result.error = { stage: "feed", index, type: errorType(error) };
      return result;
    }
  }
  try {
    [result.message, result.final_events] = parser.finalize();
  } catch (error) {
    result.error = { stage: "finalize", index: 0, type: errorType(error) };
  }
  return result;
}

/** One case through a generated module: the protocol's output object. */
export function runCase(module, testCase) {
  const out = trace(() => new module.ResponseParser(testCase.prefix, { tools: testCase.tools ?? null }), testCase.chunks);
  return { id: testCase.id, ...out };
}

async function main() {
  const modulePath = process.argv[2];
  const runtimePath = process.argv[3] ?? join(dirname(modulePath), "response-template-runtime", "index.mjs");
  const module = await import(pathToFileURL(modulePath).href);
  const { loads, dumps } = await import(pathToFileURL(runtimePath).href);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    process.stdout.write(`${dumps(runCase(module, loads(line)))}\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
