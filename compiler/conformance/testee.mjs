// Conformance runner for generated JavaScript parsers (see compiler/conformance/__init__.py).
//
//   node conformance_js.mjs MODULE.mjs < cases.jsonl > results.jsonl
//
// Each input line is a case {"id", "prefix", "chunks", "tools"} (and
// "recover", "malformed" for the recovery mode); each output
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

/** Events as vectors hold them: a region_malformed event's error as its Python class name. */
function plainEvents(events) {
  return events.map((event) => ("error" in event ? { ...event, error: errorType(event.error) } : event));
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
  result.initial_events = plainEvents(parser.initialEvents);
  for (let index = 0; index < chunks.length; index++) {
    try {
      result.feeds.push(plainEvents(parser.feed(chunks[index])));
    } catch (error) {
      result.error = { stage: "feed", index, type: errorType(error) };
      return result;
    }
  }
  try {
    let events;
    [result.message, events] = parser.finalize();
    result.final_events = plainEvents(events);
  } catch (error) {
    result.error = { stage: "finalize", index: 0, type: errorType(error) };
  }
  return result;
}

/** One case through a generated module: the protocol's output object. */
export function runCase(module, testCase) {
  const options = { tools: testCase.tools ?? null };
  if (testCase.recover !== undefined) options.recover = testCase.recover; // the recovery-mode vectors
  if (testCase.malformed !== undefined) options.malformed = testCase.malformed;
  const out = trace(() => new module.ResponseParser(testCase.prefix, options), testCase.chunks);
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
