// One re-check of one mutant (mutation-recheck.mjs): the runtime package
// `response-template-runtime` resolves to the mutated copy in RTC_RUNTIME;
// runs the checks, the value fixtures and the cases of the named vector
// files, and exits 1 at the first failure (0: the mutant survives them).
//
//   node tools/mutation/js/mutation-recheck-child.mjs MODULES_DIR VECTOR_NAME... [--no-values]

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { register } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { runCase } from "../../../compiler/conformance/testee.mjs";
import { loads } from "../../../runtime/js/pyjson.mjs"; // the unmutated reader, for the expected values
import { CHECKS } from "../../../tests/js/checks.mjs";
import { regexCaseProblems } from "../../../tests/js/regex-cases.mjs";
import { OBSERVED, knownFailures, listedReason, runValueCase, same } from "../../../tests/js/compare.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const runtimeUrl = pathToFileURL(join(process.env.RTC_RUNTIME, "index.mjs")).href;
register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "response-template-runtime") return { url: ${JSON.stringify(runtimeUrl)}, shortCircuit: true };
  return next(specifier, context);
}`)}`,
);

function fail(message) {
  console.log(message);
  process.exit(1);
}

const args = process.argv.slice(2).filter((arg) => arg !== "--no-values");
const withValues = !process.argv.includes("--no-values");
const [modulesDir, ...names] = args;
try {
  const runtime = await import("response-template-runtime");
  const qwen3 = await import(pathToFileURL(join(ROOT, "generated", "js", "qwen3.mjs")).href);
  for (const [name, check] of CHECKS) {
    let problem;
    try {
      problem = check({ runtime, module: qwen3 });
    } catch (error) {
      problem = String(error);
    }
    if (problem !== null) fail(`checks/${name}: ${problem}`);
  }
  const regexProblems = regexCaseProblems(runtime.Regex, { first: true });
  if (regexProblems.length) fail(`regex: ${JSON.stringify(regexProblems[0])}`);
  const { CASES } = withValues ? await import(pathToFileURL(join(ROOT, "tests", "js", "fixtures", "values.mjs")).href) : { CASES: [] };
  CASES.forEach((valueCase, index) => {
    let ok;
    try {
      ok = same(runValueCase(runtime, valueCase), valueCase[4]);
    } catch (error) {
      ok = false;
    }
    if (!ok) fail(`values/${index}`);
  });
  const failures = knownFailures();
  const dir = join(ROOT, "compiler", "conformance", "vectors");
  const wanted = names.includes("all") ? readdirSync(dir).filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -6)) : names.filter(Boolean);
  for (const name of wanted) {
    for (const line of readFileSync(join(dir, `${name}.jsonl`), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const testCase = loads(line);
      if (listedReason(failures, testCase.id) !== undefined) continue;
      const bundled = existsSync(join(ROOT, "templates_src", `${testCase.template}.json`));
      const path = bundled ? join(ROOT, "generated", "js", `${testCase.template}.mjs`) : join(modulesDir, `${testCase.template}.mjs`);
      let actual;
      try {
        actual = runCase(await import(pathToFileURL(path).href), testCase);
      } catch (error) {
        fail(`${testCase.id}: ${error}`);
      }
      const differs = OBSERVED.filter((key) => !same(actual[key], testCase[key]));
      if (differs.length) fail(`${testCase.id}: ${differs.join(", ")}`);
    }
  }
} catch (error) {
  fail(`load: ${error?.stack ?? error}`);
}
process.exit(0);
