// The runtime's Python semantics value by value (json.loads, json.dumps and its
// dialects, int / float / bool, xml-inline, kv-lines, tool typing, strip),
// against the Python runtime's results in fixtures/values.mjs.

import assert from "node:assert/strict";
import { test } from "node:test";

import { castArgument, dumps, parseContent, pyStrip } from "response-template-runtime";
import { CASES } from "./fixtures/values.mjs";
import { same } from "./helpers.mjs";

function run([kind, a, b, c]) {
  try {
    if (kind === "content") return { value: parseContent(a, b, c) };
    if (kind === "cast") return { value: castArgument(a, b) };
    if (kind === "dumps") return { value: dumps(a, { ensureAscii: b }) };
    return { value: pyStrip(a) };
  } catch (error) {
    return { error: error.pythonType ?? `JavaScript:${error.name}` };
  }
}

test("content parsers, casts and strip give Python's values and errors", () => {
  const mismatches = [];
  for (const testCase of CASES) {
    const expected = testCase[4];
    const actual = run(testCase);
    if (!same(actual, expected)) mismatches.push({ case: testCase.slice(0, 4), expected, actual });
  }
  assert.deepEqual(mismatches.slice(0, 5), []);
  assert.ok(CASES.length > 1000);
});
