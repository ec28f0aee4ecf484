// A long run of whitespace tokens that a delimiter may still start with
// (`\s*<tool_call>`, `(?=\s*<|start|>)`) is held without searching it again
// at every token, and a search over such a run tries only its first
// position. Measured as bookkeeping, not time: the characters handed to
// delimiter searches and the matcher's attempts. Before the hold-lead path,
// each of 2,000 newline tokens searched the whole held run (quadratic), and
// gpt_oss's content open (no trigger hint) swept it from every start (cubic).

import assert from "node:assert/strict";
import { test } from "node:test";

import { Literals, Regex } from "response-template-runtime";

const RUN = 2000;

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

/** Runs `body` with the runtime's searches counted. */
function counted(body) {
  const counts = { examined: 0, attempts: 0 };
  const search = Regex.prototype.search;
  const attempt = Regex.prototype._attempt;
  const find = Literals.prototype.find;
  Regex.prototype.search = function (s, pos, partial) {
    counts.examined += s.length - pos;
    return search.call(this, s, pos, partial);
  };
  Regex.prototype._attempt = function (s, p, partial) {
    counts.attempts += 1;
    return attempt.call(this, s, p, partial);
  };
  Literals.prototype.find = function (buf, pos) {
    counts.examined += buf.length - pos;
    return find.call(this, buf, pos);
  };
  try {
    body();
  } finally {
    Regex.prototype.search = search;
    Regex.prototype._attempt = attempt;
    Literals.prototype.find = find;
  }
  return counts;
}

for (const [name, prompt] of CASES) {
  for (const lead of ["Some text.", ""]) {
    test(`${name} ${JSON.stringify(prompt)} ${JSON.stringify(lead)}: a held newline run is searched a bounded number of times`, async () => {
      const module = await import(`../../generated/js/${name}.mjs`);
      const parser = new module.ResponseParser(prompt);
      const events = [];
      if (lead) events.push(...parser.feed(lead));
      const run = counted(() => {
        for (let i = 0; i < RUN; i++) events.push(...parser.feed("\n"));
      });
      // At most a few searches of short text: a quadratic run hands ~RUN^2/2.
      assert.ok(run.examined <= 20 * RUN, `${run.examined} characters searched while ${RUN} newlines were held`);
      const release = counted(() => {
        events.push(...parser.feed("Done."));
        const [, last] = parser.finalize();
        events.push(...last);
      });
      // A search of the run tries its first position, not each of its RUN.
      assert.ok(release.attempts <= 100, `${release.attempts} match attempts over the run and its end`);
      const text = `${lead}${"\n".repeat(RUN)}Done.`;
      const whole = new module.ResponseParser(prompt);
      const expected = [...whole.feed(text), ...whole.finalize()[1]];
      assert.deepEqual(join(events), join(expected));
    });
  }
}

/** Events with consecutive chunks of one region merged (feeds split them differently). */
function join(events) {
  const out = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === "region_chunk" && last?.type === "region_chunk" && last.field === event.field) {
      out[out.length - 1] = { ...last, text: last.text + event.text };
    } else {
      out.push({ ...event });
    }
  }
  return out;
}
