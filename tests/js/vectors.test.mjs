// Every conformance vector in tests/vectors through the generated JavaScript
// parsers (node --test). A case listed in tests/failures/js.txt must fail;
// the run fails when a listed case passes.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { runCase } from "../../compiler/conformance_js.mjs";
import { OBSERVED, knownFailures, moduleFor, same, vectorFiles } from "./helpers.mjs";

const failures = knownFailures();

for (const [name, cases] of vectorFiles()) {
  describe(`vectors ${name}`, () => {
    for (const testCase of cases) {
      test(testCase.id, async () => {
        const module = await moduleFor(testCase.template);
        const actual = runCase(module, testCase);
        const mismatched = OBSERVED.filter((key) => !same(actual[key], testCase[key]));
        if (failures.has(testCase.id)) {
          assert.notDeepEqual(mismatched, [], `listed in tests/failures/js.txt but passes: ${testCase.id}`);
          return;
        }
        for (const key of mismatched) {
          assert.deepEqual(actual[key], testCase[key], `${testCase.id}: ${key} differs from the reference`);
        }
      });
    }
  });
}

test("every case in tests/failures/js.txt exists", () => {
  const ids = new Set(vectorFiles().flatMap(([, cases]) => cases.map((c) => c.id)));
  assert.deepEqual([...failures.keys()].filter((id) => !ids.has(id)), []);
});
