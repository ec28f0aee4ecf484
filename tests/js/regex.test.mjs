// The matcher against the `regex` module on small patterns (regex-cases.mjs):
// lazy and multi-character repeats, (?m) anchors, \B, captures read forwards
// and backwards, the look-behind give-back rule, finditer's empty matches,
// surrogate pairs at the ends of their ranges.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Regex } from "../../runtime/js/regex.mjs";
import { REGEX_CASES, regexCaseProblems } from "./regex-cases.mjs";

test("the matcher gives the regex module's matches, partial matches, groups and finditer spans", () => {
  assert.deepEqual(regexCaseProblems(Regex).slice(0, 5), []);
  assert.ok(REGEX_CASES.length > 50);
});
