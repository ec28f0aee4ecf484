// The runtime's JavaScript-only choices and API misuse errors (checks.mjs).

import assert from "node:assert/strict";
import { test } from "node:test";

import * as runtime from "response-template-runtime";
import * as module from "../../generated/js/qwen3.mjs";
import { CHECKS } from "./checks.mjs";

for (const [name, check] of CHECKS) {
  test(name, () => assert.equal(check({ runtime, module }), null));
}
