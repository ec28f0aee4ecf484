// Times the generated JavaScript parsers on the realistic benchmark's
// variants (written by benchmarks/realistic_ports.py): per template, the
// first sets warm up, then each round's whole set is parsed whole and its
// stream set streamed in its chunks, in CPU time (process.cpuUsage). Output: JSON on stdout,
// {template: {whole, stream: median ns per sample, outcomes: the messages
// (or {error}) of the first timed round}}.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [input, generated] = process.argv.slice(2);
const { templates } = JSON.parse(readFileSync(input, "utf8"));

function cpuNs(run) {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return Math.max(1, (used.user + used.system) * 1000);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const out = {};
for (const [name, sets] of Object.entries(templates)) {
  const module = await import(pathToFileURL(join(generated, `${name}.mjs`)).href);
  const whole = (items) => () => {
    for (const item of items) {
      try {
        module.parseResponse(item.text, { prefix: item.prefix, tools: item.tools });
      } catch {}
    }
  };
  const stream = (items) => () => {
    for (const item of items) {
      try {
        const parser = new module.ResponseParser(item.prefix, { tools: item.tools });
        for (const chunk of item.chunks) parser.feed(chunk);
        parser.finalize();
      } catch {}
    }
  };
  const [warm, ...rounds] = sets;
  for (let i = 0; i < 20; i++) {
    whole(warm.whole)();
    stream(warm.stream)();
  }
  const times = { whole: [], stream: [] };
  rounds.forEach((sets, number) => {
    const order = number % 2 ? ["stream", "whole"] : ["whole", "stream"];
    for (const mode of order) {
      const items = sets[mode];
      const run = mode === "whole" ? whole(items) : stream(items);
      times[mode].push(cpuNs(run) / items.length);
    }
  });
  const outcomes = rounds[0].whole.map((item) => {
    try {
      return { ok: module.parseResponse(item.text, { prefix: item.prefix, tools: item.tools }) };
    } catch (error) {
      return { error: error.pythonType ?? error.name };
    }
  });
  out[name] = { whole: median(times.whole), stream: median(times.stream), outcomes };
}
process.stdout.write(JSON.stringify(out));
