// A Stryker test-runner plugin ("vectors") for the mutation run of the
// JavaScript runtime (stryker.config.json, `npm run mutate`).
//
// Stryker's command runner starts `node --test` once per mutant: about a
// minute each (every feature template rebuilt by Python, every vector file
// read again), so 2,000-odd mutants never fit. This runner loads everything
// once per worker process and runs the same checks as tests/js/ in process:
//
// - every case of compiler/conformance/vectors/*.jsonl (one test per case; the cases listed
//   in compiler/conformance/failures/js.txt are left out) through the generated modules;
// - every value case of tests/js/fixtures/values.mjs (one test per case);
// - every check of tests/js/checks.mjs (JavaScript-only choices, API errors).
//
// It records per-test coverage, so Stryker runs only the cases that reach a
// mutant, and stops at the first failing case. Mutants run while the modules
// load ("static" mutants) need a fresh process: the runner says it cannot
// reload, so Stryker restarts the worker and the runner activates the mutant
// before it imports anything.
//
// What is mutated is the sandbox's runtime/js (Stryker's instrumented copy):
// the generated modules import `response-template-runtime`, which a resolve
// hook sends to the sandbox's runtime. The expected values are read with this
// file's own (unmutated) copy of the runtime's json reader.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, mkdtempSync } from "node:fs";
import { register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { deserialize, serialize } from "node:v8";

import { PluginKind, declareClassPlugin, commonTokens, tokens } from "@stryker-mutator/api/plugin";
import { DryRunStatus, MutantRunStatus, TestStatus } from "@stryker-mutator/api/test-runner";

import { runCase } from "../../../compiler/conformance/testee.mjs";
import { loads } from "../../../runtime/js/pyjson.mjs";
import { CHECKS } from "../../../tests/js/checks.mjs";
import { REGEX_CASES, regexCaseProblems } from "../../../tests/js/regex-cases.mjs";
import { OBSERVED, knownFailures, listedReason, runValueCase, same } from "../../../tests/js/compare.mjs";

const NAMESPACE = "__stryker__";

function namespace() {
  globalThis[NAMESPACE] ??= {};
  return globalThis[NAMESPACE];
}

function sha256(...parts) {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

function filesUnder(dir, suffixes) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") out.push(...filesUnder(path, suffixes));
    } else if (suffixes.some((suffix) => entry.name.endsWith(suffix))) out.push(path);
  }
  return out.sort();
}

/**
 * Every vector file's cases, read once with Python's json semantics and cached
 * (v8-serialised, keyed by the files' contents) for the next worker process.
 */
function readVectors(root) {
  const dir = join(root, "compiler", "conformance", "vectors");
  // RTC_STRYKER_VECTORS (comma-separated file name prefixes, e.g. "feat_,shape_edge"):
  // only those vector files, for a scoped run whose survivors must stay cheap.
  const only = (process.env.RTC_STRYKER_VECTORS ?? "").split(",").filter(Boolean);
  const names = readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl") && (only.length === 0 || only.some((prefix) => name.startsWith(prefix))))
    .sort();
  const texts = names.map((name) => readFileSync(join(dir, name)));
  const cache = join(tmpdir(), `rtc-stryker-vectors-${sha256(...names, ...texts).slice(0, 16)}.bin`);
  if (existsSync(cache)) return deserialize(readFileSync(cache));
  const cases = [];
  for (const text of texts) {
    for (const line of text.toString("utf8").split("\n")) if (line.trim()) cases.push(loads(line));
  }
  const temporary = `${cache}.${process.pid}`;
  writeFileSync(temporary, serialize(cases));
  renameSync(temporary, cache);
  return cases;
}

/**
 * The generated modules of the templates outside templates_src/ (feature and
 * shape templates), built once into a folder keyed by the templates and the
 * compiler's source. Not vendored: they import `response-template-runtime`,
 * which the resolve hook sends to the sandbox's (mutated) runtime.
 */
function buildFeatureModules(root) {
  const templates = join(root, "compiler", "conformance", "templates");
  const sources = [...filesUnder(templates, [".json"]), ...filesUnder(join(root, "compiler"), [".py", ".j2", ".jinja", ".mjs"])];
  const key = sha256(...sources.flatMap((path) => [path.slice(root.length), readFileSync(path)])).slice(0, 16);
  const out = join(tmpdir(), `rtc-stryker-modules-${key}`);
  if (existsSync(out)) return out;
  const building = mkdtempSync(`${out}.`);
  try {
    // A template the JavaScript backend refuses is left out (exit status 2);
    // its cases are listed in compiler/conformance/failures/js.txt or fail as unbuildable.
    execFileSync(
      process.env.PYTHON ?? "python3",
      ["-m", "compiler", "build", ...filesUnder(templates, [".json"]), "--lang", "js", "-o", building],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
  } catch (error) {
    if (error.status !== 2) throw error;
  }
  try {
    renameSync(building, out);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another worker got there first
  }
  return out;
}

export class VectorTestRunner {
  static inject = tokens(commonTokens.logger);

  constructor(logger) {
    this.log = logger;
    this.tests = null; // [{id, run(): null | failure message}]
  }

  capabilities() {
    return { reloadEnvironment: false };
  }

  async init() {
    this.root = process.cwd();
    const runtime = pathToFileURL(join(this.root, "runtime", "js", "index.mjs")).href;
    register(
      `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "response-template-runtime") return { url: ${JSON.stringify(runtime)}, shortCircuit: true };
  return next(specifier, context);
}`)}`,
    );
    this.cases = readVectors(this.root);
    this.featureModules = buildFeatureModules(this.root);
  }

  /** Imports the modules under test (the runtime with them) and makes one test per case. */
  async load() {
    if (this.tests !== null) return;
    const tests = [];
    const runtime = await import("response-template-runtime");
    const { CASES } = await import(pathToFileURL(join(this.root, "tests", "js", "fixtures", "values.mjs")).href);
    CASES.forEach((valueCase, index) => {
      tests.push({
        id: `values/${index}`,
        run: () => (same(runValueCase(runtime, valueCase), valueCase[4]) ? null : `values case ${index} ${JSON.stringify(valueCase.slice(0, 4))}`),
      });
    });
    const qwen3 = await import(pathToFileURL(join(this.root, "generated", "js", "qwen3.mjs")).href);
    for (const [name, check] of CHECKS) tests.push({ id: `checks/${name}`, run: () => check({ runtime, module: qwen3 }) });
    // the matcher on small patterns against the regex module (regex-cases.mjs)
    REGEX_CASES.forEach((regexCase, index) => {
      tests.push({
        id: `regex/${index}`,
        run: () => {
          const problems = regexCaseProblems(runtime.Regex, { first: true, cases: [regexCase] });
          return problems.length ? `regex case ${JSON.stringify(problems[0])}` : null;
        },
      });
    });
    const failures = knownFailures();
    const modules = new Map();
    // Cheap cases first: a mutant is usually killed by the first case that
    // reaches it, and a per-character chunking of a long sample costs a
    // hundred short ones.
    const cost = (testCase) => testCase.chunks.length + testCase.chunks.reduce((sum, chunk) => sum + chunk.length, 0) / 16;
    const ordered = this.cases.map((testCase) => [cost(testCase), testCase]).sort((a, b) => a[0] - b[0]);
    for (const [, testCase] of ordered) {
      if (listedReason(failures, testCase.id) !== undefined) continue;
      const name = testCase.template;
      if (!modules.has(name)) {
        const bundled = existsSync(join(this.root, "templates_src", `${name}.json`));
        const path = bundled ? join(this.root, "generated", "js", `${name}.mjs`) : join(this.featureModules, `${name}.mjs`);
        modules.set(name, existsSync(path) ? await import(pathToFileURL(path).href) : null);
      }
      const module = modules.get(name);
      tests.push({
        id: testCase.id,
        run() {
          if (module === null) return `${testCase.id}: the template ${name} does not build for JavaScript`;
          const actual = runCase(module, testCase);
          const differs = OBSERVED.filter((key) => !same(actual[key], testCase[key]));
          return differs.length === 0 ? null : `${testCase.id}: ${differs.join(", ")} differ from the reference`;
        },
      });
    }
    this.tests = tests;
  }

  /** Runs `test`; a JavaScript exception is a failure like a wrong value. */
  runOne(test) {
    try {
      return test.run();
    } catch (error) {
      return `${test.id}: ${error?.stack ?? error}`;
    }
  }

  async dryRun(options) {
    try {
      await this.load();
    } catch (error) {
      return { status: DryRunStatus.Error, errorMessage: String(error?.stack ?? error) };
    }
    const ns = namespace();
    const perTest = options.coverageAnalysis === "perTest";
    const results = [];
    for (const test of this.tests) {
      if (perTest) ns.currentTestId = test.id;
      const started = performance.now();
      const failure = this.runOne(test);
      const timeSpentMs = performance.now() - started;
      results.push(
        failure === null
          ? { id: test.id, name: test.id, timeSpentMs, status: TestStatus.Success }
          : { id: test.id, name: test.id, timeSpentMs, status: TestStatus.Failed, failureMessage: failure },
      );
    }
    ns.currentTestId = undefined;
    return { status: DryRunStatus.Complete, tests: results, mutantCoverage: ns.mutantCoverage };
  }

  async mutantRun(options) {
    const ns = namespace();
    const id = options.activeMutant.id;
    if (options.mutantActivation === "static") ns.activeMutant = id;
    try {
      await this.load();
    } catch (error) {
      ns.activeMutant = undefined;
      // A module that fails to load under the mutant is a kill, as in node --test.
      return { status: MutantRunStatus.Killed, killedBy: [], failureMessage: String(error?.message ?? error), nrOfTests: 0 };
    }
    ns.activeMutant = id;
    ns.hitLimit = options.hitLimit;
    ns.hitCount = options.hitLimit === undefined ? undefined : 0;
    const filter = options.testFilter === undefined ? null : new Set(options.testFilter);
    let ran = 0;
    let failure = null;
    let failed = null;
    for (const test of this.tests) {
      if (filter !== null && !filter.has(test.id)) continue;
      ran++;
      failure = this.runOne(test);
      if (ns.hitLimit !== undefined && ns.hitCount > ns.hitLimit) break;
      if (failure !== null) {
        failed = test.id;
        break;
      }
    }
    const timedOut = ns.hitLimit !== undefined && ns.hitCount > ns.hitLimit;
    ns.activeMutant = undefined;
    ns.hitLimit = undefined;
    ns.hitCount = undefined;
    if (timedOut) return { status: MutantRunStatus.Timeout, reason: `hit limit reached (${options.hitLimit})` };
    if (failed !== null) return { status: MutantRunStatus.Killed, killedBy: [failed], failureMessage: failure, nrOfTests: ran };
    return { status: MutantRunStatus.Survived, nrOfTests: ran };
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, "vectors", VectorTestRunner)];
