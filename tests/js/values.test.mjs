// The runtime's Python semantics value by value (json.loads, json.dumps and its
// dialects, int / float / bool, xml-inline, kv-lines, tool typing, strip),
// against the Python runtime's results in fixtures/values.mjs.

import assert from "node:assert/strict";
import { test } from "node:test";

import * as runtime from "response-template-runtime";
import { CASES } from "./fixtures/values.mjs";
import { runValueCase, same } from "./helpers.mjs";

test("content parsers, casts, typing, dumps and strip give Python's values and errors", () => {
  const mismatches = [];
  for (const testCase of CASES) {
    const expected = testCase[4];
    const actual = runValueCase(runtime, testCase);
    if (!same(actual, expected)) mismatches.push({ case: testCase.slice(0, 4), expected, actual });
  }
  assert.deepEqual(mismatches.slice(0, 5), []);
  assert.ok(CASES.length > 1000);
});
