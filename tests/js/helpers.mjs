// Shared by the Node tests: vectors, templates, the failure list, and value
// equality as the project's Python tests define it.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { loads } from "response-template-runtime";

export { OBSERVED, knownFailures, listedReason, runValueCase, same } from "./compare.mjs";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const VECTORS = join(ROOT, "compiler", "conformance", "vectors");
export const RECOVERY = join(ROOT, "compiler", "conformance", "recovery"); // the recovery-mode vectors
export const GENERATED = join(ROOT, "generated", "js");

/** Every vector file of `dir`: [name, cases], cases read with Python's json semantics. */
export function vectorFiles(dir = VECTORS) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => [
      name.slice(0, -".jsonl".length),
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((line) => line.trim())
        .map((line) => loads(line)),
    ]);
}

/** A template's JSON file: templates_src/ first, then compiler/conformance/templates/. */
export function templatePath(name) {
  const bundled = join(ROOT, "templates_src", `${name}.json`);
  return existsSync(bundled) ? bundled : join(ROOT, "compiler", "conformance", "templates", `${name}.json`);
}

let built = null;

/** The generated module of a template: committed in generated/js/, or built (vendored) for the others. */
export async function moduleFor(name) {
  const bundled = join(ROOT, "templates_src", `${name}.json`);
  if (existsSync(bundled)) return import(pathToFileURL(join(GENERATED, `${name}.mjs`)).href);
  if (built === null) built = mkdtempSync(join(tmpdir(), "rtc-js-"));
  const target = join(built, `${name}.mjs`);
  if (!existsSync(target)) {
    // A template the JavaScript backend refuses fails here, with its JSON path.
    execFileSync(
      process.env.PYTHON ?? "python3",
      ["-m", "compiler", "build", templatePath(name), "--lang", "js", "--vendor", "-o", built],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
  }
  return import(pathToFileURL(target).href);
}
