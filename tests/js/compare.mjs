// Comparison rules shared by the Node tests and the mutation runner
// (stryker-runner.mjs): the failure list and value equality as the project's
// Python tests define it. No runtime import here: the mutation runner must not
// load the runtime under test before it chooses the mutant.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * compiler/conformance/failures/js.txt: case id -> reason, in the failure-list
 * format every language shares (compiler/conformance/README.md): "<id>  # <reason>"
 * lines, "#" lines are comments. An id ending in "*" lists every case whose id
 * starts with the rest (a whole template: "feature_x/*").
 */
export function knownFailures() {
  const path = join(ROOT, "compiler", "conformance", "failures", "js.txt");
  const out = new Map();
  for (const raw of readFileSync(path, "utf8").split("\n")) {
    const hash = raw.indexOf("#");
    const id = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (!id) continue;
    out.set(id, hash < 0 ? "" : raw.slice(hash + 1).trim());
  }
  return out;
}

/** The reason a case is listed in the failure list, or undefined. */
export function listedReason(failures, id) {
  if (failures.has(id)) return failures.get(id);
  for (const [key, reason] of failures) if (key.endsWith("*") && id.startsWith(key.slice(0, -1))) return reason;
  return undefined;
}

function isDict(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Equality as Python values, as far as JavaScript can tell them apart:
 * numbers by value (a BigInt equals the Number of the same value; int and
 * float are one type here), NaN equals NaN, booleans are not numbers, dict
 * key order is not compared (JavaScript puts integer-like keys first).
 */
export function same(a, b) {
  if (typeof a === "number" || typeof a === "bigint") {
    if (typeof b !== "number" && typeof b !== "bigint") return false;
    if (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b)) return true;
    // eslint-disable-next-line eqeqeq
    return a == b;
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isDict(a)) {
    if (!isDict(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

export const OBSERVED = ["initial_events", "feeds", "final_events", "message", "error"];

/**
 * One case of fixtures/values.mjs ([kind, a, b, c, expected]) through the
 * runtime's exports (`runtime`): {value} or {error: Python class name}.
 */
export function runValueCase(runtime, [kind, a, b, c]) {
  try {
    if (kind === "content") return { value: runtime.parseContent(a, b, c) };
    if (kind === "cast") return { value: runtime.castArgument(a, b) };
    if (kind === "dumps") return { value: b ? runtime.dumps(a) : runtime.dumps(a, { ensureAscii: false }) };
    if (kind === "schema") return { value: runtime.schemaTypes(a) };
    if (kind === "typing") return { value: runtime.typeToolCalls(structuredClone(a), runtime.toolParameters(b)) };
    if (kind === "strip") return { value: runtime.pyStrip(a) };
    throw new Error(`unknown value case kind ${kind}`);
  } catch (error) {
    return { error: error?.pythonType ?? `JavaScript:${error?.name}` };
  }
}
