// Times the generated JavaScript parsers on the speed suite's streams
// (written by benchmarks/node.py): streaming token by token and whole text,
// best of N, in ns per token. Input: a JSON file path; output: JSON on stdout.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [input, generated] = process.argv.slice(2);
const { cases, repeat } = JSON.parse(readFileSync(input, "utf8"));

function best(run, times) {
  let bestNs = Infinity;
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    run();
    bestNs = Math.min(bestNs, Number(process.hrtime.bigint() - start));
  }
  return bestNs;
}

const rows = [];
for (const item of cases) {
  const module = await import(pathToFileURL(join(generated, `${item.template}.mjs`)).href);
  const { tokens, prefix } = item;
  const text = tokens.join("");
  const stream = () => {
    const parser = new module.ResponseParser(prefix);
    for (const token of tokens) parser.feed(token);
    return parser.finalize()[0];
  };
  const whole = () => module.parseResponse(text, { prefix });
  for (let i = 0; i < 5; i++) {
    stream(); // warm up: the JIT needs a few runs before timings settle
    whole();
  }
  const times = item.tokens.length > 50000 ? Math.max(2, Math.floor(repeat / 2)) : repeat;
  rows.push({
    template: item.template,
    shape: item.shape,
    length: item.length,
    tokens: tokens.length,
    js_stream_ns_per_token: best(stream, times) / tokens.length,
    js_whole_ns_per_token: best(whole, times) / tokens.length,
    message: stream(),
  });
}
process.stdout.write(JSON.stringify(rows));
