// A long run of whitespace tokens that a delimiter may still start with
// (`\s*<tool_call>`, `(?=\s*<|start|>)`) is held without searching it again
// at every token, and a search over such a run tries only its first
// position. Measured as bookkeeping, not time (checks.mjs, heldRunProblem):
// the characters handed to delimiter searches and the matcher's attempts.
// Before the hold-lead path, each of 2,000 newline tokens searched the whole
// held run (quadratic), and gpt_oss's content open (then without a trigger
// hint) swept it from every start (cubic).

import assert from "node:assert/strict";
import { test } from "node:test";

import * as runtime from "response-template-runtime";
import { heldRunProblem } from "./checks.mjs";

// (template, prompt): a content region, a reasoning region, gpt_oss's null sink.
const CASES = [
  ["qwen3", "<|im_start|>assistant\n"],
  ["qwen3", "<|im_start|>assistant\n<think>\n"],
  ["deepseek_v31", "<｜Assistant｜><think>"],
  ["deepseek_v31", "<｜Assistant｜></think>"],
  ["gpt_oss", "<|start|>assistant"],
  ["gpt_oss", "<|start|>assistant<|channel|>analysis<|message|>"],
  ["gpt_oss", "<|start|>assistant<|channel|>final<|message|>"],
];

for (const [name, prompt] of CASES) {
  for (const lead of ["Some text.", ""]) {
    test(`${name} ${JSON.stringify(prompt)} ${JSON.stringify(lead)}: a held newline run is searched a bounded number of times`, async () => {
      const module = await import(`../../generated/js/${name}.mjs`);
      assert.equal(heldRunProblem(runtime, module, prompt, lead), null);
    });
  }
}
