// Every conformance vector in compiler/conformance/vectors through the generated JavaScript
// parsers (node --test). A case listed in compiler/conformance/failures/js.txt must fail;
// the run fails when a listed case passes. Then `parseResponse` on every one-chunk
// case: the reference defines it as that one feed and finalize, so its message, or
// its error's Python class, is the case's; it runs the runtime's whole-text path
// (whole.mjs), not the streaming driver. Listed cases are skipped there.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { runCase } from "../../compiler/conformance/testee.mjs";
import { OBSERVED, RECOVERY, knownFailures, listedReason, moduleFor, same, vectorFiles } from "./helpers.mjs";

const failures = knownFailures();

// The vectors, then the recovery-mode ones (cases with `recover: true`).
for (const [name, cases] of [...vectorFiles(), ...vectorFiles(RECOVERY).map(([n, c]) => [`recovery/${n}`, c])]) {
  describe(`vectors ${name}`, () => {
    for (const testCase of cases) {
      test(testCase.id, async () => {
        let mismatched;
        let actual = null;
        try {
          actual = runCase(await moduleFor(testCase.template), testCase);
          mismatched = OBSERVED.filter((key) => !same(actual[key], testCase[key]));
        } catch (error) {
          mismatched = [`the template does not build for JavaScript: ${error.stderr ?? error.message}`];
        }
        if (listedReason(failures, testCase.id) !== undefined) {
          assert.notDeepEqual(mismatched, [], `listed in compiler/conformance/failures/js.txt but passes: ${testCase.id}`);
          return;
        }
        assert.ok(actual !== null, mismatched[0]);
        for (const key of mismatched) {
          assert.deepEqual(actual[key], testCase[key], `${testCase.id}: ${key} differs from the reference`);
        }
      });
    }
  });
}

test("every entry in compiler/conformance/failures/js.txt names existing cases", () => {
  const ids = [...vectorFiles(), ...vectorFiles(RECOVERY)].flatMap(([, cases]) => cases.map((c) => c.id));
  const unknown = [...failures.keys()].filter((key) =>
    key.endsWith("*") ? !ids.some((id) => id.startsWith(key.slice(0, -1))) : !ids.includes(key),
  );
  assert.deepEqual(unknown, []);
});

function wholeOutcome(module, testCase) {
  try {
    return { message: module.parseResponse(testCase.chunks[0], { prefix: testCase.prefix, tools: testCase.tools ?? null }) };
  } catch (error) {
    return { error: error?.pythonType ?? `JavaScript:${error?.name}` };
  }
}

for (const [name, cases] of vectorFiles()) {
  const oneChunk = cases.filter((c) => c.chunks.length === 1 && listedReason(failures, c.id) === undefined);
  if (oneChunk.length === 0) continue;
  describe(`parseResponse ${name}`, () => {
    for (const testCase of oneChunk) {
      test(testCase.id, async () => {
        const actual = wholeOutcome(await moduleFor(testCase.template), testCase);
        const expected = testCase.error === null ? { message: testCase.message } : { error: testCase.error.type };
        if (!same(actual, expected)) assert.deepEqual(actual, expected, `${testCase.id}: parseResponse differs from the reference`);
      });
    }
  });
}
