// Re-check the mutants a Stryker run did not kill against today's tests,
// one mutant at a time (docs/mutation.md, JavaScript runtime): after a
// survivor gets a new vector or check, this confirms the kill without a new
// Stryker run of the whole file.
//
//   node tools/mutation/js/mutation-recheck.mjs REPORT.json... [--vectors NAME,NAME|all] [--out OUT.json] [--modules DIR] [--shard I/N] [--lines A-B,...] [--no-values]
//
// Each mutant neither killed, timed out nor explained (static mutants a run
// with --ignoreStatic left out included) is found in today's source (by its
// line's text, nearest to its old line; a mutant whose text is gone is
// skipped), applied to a copy of runtime/js, and run by
// mutation-recheck-child.mjs on the checks, the value fixtures and the named
// vector files (default: all). OUT (default reports/mutation/recheck.json) is
// a Stryker-shaped report of today's source holding the re-checked mutants:
// give it to mutation-report.mjs after the runs' reports. DIR: the feature
// templates' modules built without --vendor (default: built afresh).
// --no-values: leave out the value fixtures (a matcher's mutants, where they
// cost more than they check).

import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { explainedKey, messageOnly, originalText, relocate } from "./mutation-report.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const KILLED = new Set(["Killed", "Timeout"]);

function main(argv) {
  const outIndex = argv.indexOf("--out");
  const out = outIndex >= 0 ? argv[outIndex + 1] : join(ROOT, "reports", "mutation", "recheck.json");
  const vectorsIndex = argv.indexOf("--vectors");
  const names = vectorsIndex >= 0 ? argv[vectorsIndex + 1].split(",") : ["all"];
  const skip = new Set(
    ["--out", "--vectors", "--modules", "--shard", "--lines"].flatMap((flag) => (argv.includes(flag) ? [argv.indexOf(flag), argv.indexOf(flag) + 1] : [])),
  );
  const reports = argv.filter((arg, i) => !skip.has(i) && !arg.startsWith("--"));
  // The feature templates' modules, not vendored: they import the runtime by name.
  // --shard I/N: only every N-th mutant from the I-th (parallel re-checks)
  const [shard, shards] = argv.includes("--shard") ? argv[argv.indexOf("--shard") + 1].split("/").map(Number) : [0, 1];
  // --lines A-B,C-D: only mutants starting on those lines (of the report's source)
  const lineRanges = argv.includes("--lines")
    ? argv[argv.indexOf("--lines") + 1].split(",").map((range) => range.split("-").map(Number))
    : [[1, Infinity]];
  const modulesIndex = argv.indexOf("--modules");
  const given = modulesIndex >= 0 ? argv[modulesIndex + 1] : null;
  const modules = given ?? mkdtempSync(join(tmpdir(), "rtc-recheck-modules-"));
  const templates = join(ROOT, "compiler", "conformance", "templates");
  if (given === null) try {
    execFileSync(process.env.PYTHON ?? "python3", ["-m", "compiler", "build", ...readdirSync(templates).filter((n) => n.endsWith(".json")).map((n) => join(templates, n)), "--lang", "js", "-o", modules], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (error) {
    if (error.status !== 2) throw error;
  }
  const explained = new Set(
    JSON.parse(readFileSync(join(ROOT, "tools", "mutation", "js", "mutation-equivalents.json"), "utf8")).map((e) => explainedKey(e.file, e.line, e.original, e.replacement)),
  );
  const result = { schemaVersion: "1", thresholds: { high: 80, low: 60 }, files: {} };
  for (const path of reports) {
    for (const [file, report] of Object.entries(JSON.parse(readFileSync(path, "utf8")).files)) {
      const now = readFileSync(join(ROOT, file), "utf8");
      const entry = (result.files[file] ??= { language: "javascript", source: now, mutants: [] });
      const oldLines = report.source.split("\n");
      for (const [index, mutant] of report.mutants.entries()) {
        if (index % shards !== shard) continue;
        if (!lineRanges.some(([from, to]) => mutant.location.start.line >= from && mutant.location.start.line <= to)) continue;
        if (KILLED.has(mutant.status)) continue;
        // explained mutants (tools/mutation/js/mutation-equivalents.json, message-only) are not run again
        const line = oldLines[mutant.location.start.line - 1];
        if (explained.has(explainedKey(file, line, originalText(oldLines, mutant.location), mutant.replacement)) || messageOnly(mutant, line)) continue;
        const location = relocate(report.source, now, mutant);
        if (location === null) {
          console.log(`gone: ${file}:${mutant.location.start.line} ${mutant.replacement}`);
          continue;
        }
        const sandbox = mkdtempSync(join(tmpdir(), "rtc-recheck-runtime-"));
        cpSync(join(ROOT, "runtime", "js"), sandbox, { recursive: true });
        const lines = now.split("\n");
        const at = lines.slice(0, location.start.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + location.start.column - 1;
        const until = lines.slice(0, location.end.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + location.end.column - 1;
        const original = now.slice(at, until);
        const mutated = now.slice(0, at) + mutant.replacement + now.slice(until);
        writeFileSync(join(sandbox, file.slice("runtime/js/".length)), mutated);
        const run = spawnSync(process.execPath, [join(ROOT, "tools", "mutation", "js", "mutation-recheck-child.mjs"), modules, ...names, ...(argv.includes("--no-values") ? ["--no-values"] : [])], {
          env: { ...process.env, RTC_RUNTIME: sandbox },
          encoding: "utf8",
          timeout: 120_000,
        });
        rmSync(sandbox, { recursive: true, force: true });
        const status = run.error ? "Timeout" : run.status === 0 ? "Survived" : "Killed";
        entry.mutants.push({ ...mutant, status, statusReason: (run.stdout ?? "").trim().split("\n")[0], location });
        writeFileSync(out, JSON.stringify(result)); // so far, for a run stopped early
        console.log(`${status}: ${file}:${location.start.line} ${JSON.stringify(original)} -> ${JSON.stringify(mutant.replacement)} ${status === "Killed" ? `(${(run.stdout ?? "").trim().split("\n")[0].slice(0, 100)})` : ""}`);
      }
    }
  }
  if (given === null) rmSync(modules, { recursive: true, force: true });
  writeFileSync(out, JSON.stringify(result));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
