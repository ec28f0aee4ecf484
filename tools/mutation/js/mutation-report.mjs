// Score of a Stryker run of the JavaScript runtime, with every mutant not
// killed either explained or listed (docs/mutation.md, JavaScript runtime).
//
//   node tools/mutation/js/mutation-report.mjs [REPORT.json ...] [--markdown] [--open OUT.json]
//
// REPORT.json: Stryker's json reports (default reports/mutation/mutation.json);
// the reports of runs scoped by file or line range add up, a later run of
// the same mutant winning (readReports). Explanations live in tools/mutation/js/mutation-equivalents.json, keyed by the
// file, the mutated line's text (trimmed), the mutated text and its
// replacement, so they survive line moves but not a change of the code.
// A mutant that only changes an exception's message is equivalent by the
// contract (errors compare by class) and recognised without a listing.
// Exit status 1 when a mutant is neither killed nor explained.
// --open OUT.json: also write the merged reports' mutants not killed, as one
// report of today's source, for mutation-recheck.mjs.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const EQUIVALENTS = join(ROOT, "tools", "mutation", "js", "mutation-equivalents.json");
const KILLED = new Set(["Killed", "Timeout"]);
const MESSAGE_ONLY = "message-only: the mutant changes only an exception's message; errors compare by class";

/** The mutated text of a mutant (its location in the file's source). */
export function originalText(lines, location) {
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  const parts = [lines[start.line - 1].slice(start.column - 1)];
  for (let line = start.line + 1; line < end.line; line++) parts.push(lines[line - 1]);
  parts.push(lines[end.line - 1].slice(0, end.column - 1));
  return parts.join("\n");
}

/** A string mutant inside the message argument of a thrown error. */
export function messageOnly(mutant, line) {
  if (!["StringLiteral", "ArrayDeclaration"].includes(mutant.mutatorName) && mutant.mutatorName !== "TemplateLiteral") return false;
  return /\bnew (?:\w*Error_?|JSONDecodeError)\(/.test(line) && !/super\(/.test(line);
}

export function explainedKey(file, line, original, replacement) {
  return JSON.stringify([file, line.trim(), original, replacement]);
}

function offsetOf(lines, line, column) {
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += lines[i].length + 1;
  return offset + column - 1;
}

function positionOf(source, offset) {
  const before = source.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * Where a mutant of `oldSource` is in `source`: the line with the same text
 * nearest to its old line, where the mutated text is found at the same place
 * in the line; null when the code changed there.
 */
export function relocate(oldSource, source, mutant) {
  if (oldSource === source) return mutant.location;
  const old = oldSource.split("\n");
  const { start, end } = mutant.location;
  const original = oldSource.slice(offsetOf(old, start.line, start.column), offsetOf(old, end.line, end.column));
  const text = old[start.line - 1];
  const lines = source.split("\n");
  let best = null;
  lines.forEach((line, index) => {
    if (line.trim() !== text.trim()) return;
    const at = offsetOf(lines, index + 1, 1) + (start.column - 1) + (line.indexOf(line.trim()) - text.indexOf(text.trim()));
    if (source.slice(at, at + original.length) !== original) return;
    if (best === null || Math.abs(index + 1 - start.line) < Math.abs(best.line - start.line)) best = { line: index + 1, at };
  });
  return best === null ? null : { start: positionOf(source, best.at), end: positionOf(source, best.at + original.length) };
}

/**
 * The mutants of several reports, merged per file on the latest report's
 * source: runs scoped by line ranges add up, and a later run of the same
 * mutant wins. Mutants of earlier reports are moved to where their line is
 * now; one whose code changed is dropped.
 */
export function readReports(paths) {
  const runs = {};
  for (const path of paths) {
    for (const [file, report] of Object.entries(JSON.parse(readFileSync(path, "utf8")).files)) (runs[file] ??= []).push(report);
  }
  const out = {};
  for (const [file, reports] of Object.entries(runs)) {
    const source = reports[reports.length - 1].source;
    const byPlace = new Map();
    for (const report of reports) {
      for (const mutant of report.mutants) {
        const location = relocate(report.source, source, mutant);
        if (location === null) continue;
        const { start, end } = location;
        byPlace.set(JSON.stringify([start.line, start.column, end.line, end.column, mutant.mutatorName, mutant.replacement]), { ...mutant, location });
      }
    }
    out[file] = { source, mutants: [...byPlace.values()] };
  }
  return out;
}

function main(argv) {
  const markdown = argv.includes("--markdown");
  const openOut = argv.includes("--open") ? argv[argv.indexOf("--open") + 1] : null;
  const paths = argv.filter((arg, i) => !arg.startsWith("--") && !(openOut !== null && i === argv.indexOf("--open") + 1));
  const files = readReports(paths.length ? paths : [join(ROOT, "reports", "mutation", "mutation.json")]);
  if (openOut !== null) {
    const open = { schemaVersion: "1", thresholds: { high: 80, low: 60 }, files: {} };
    for (const [file, { source, mutants }] of Object.entries(files)) {
      open.files[file] = { language: "javascript", source, mutants: mutants.filter((m) => !KILLED.has(m.status) && m.status !== "Ignored") };
    }
    writeFileSync(openOut, JSON.stringify(open));
  }
  const listed = existsSync(EQUIVALENTS) ? JSON.parse(readFileSync(EQUIVALENTS, "utf8")) : [];
  const reasons = new Map(listed.map((entry) => [explainedKey(entry.file, entry.line, entry.original, entry.replacement), entry.reason]));
  const used = new Set();
  const rows = [];
  const unexplained = [];
  const equivalentReasons = new Map();
  for (const file of Object.keys(files).sort()) {
    const lines = files[file].source.split("\n");
    const row = { file, mutants: 0, killed: 0, equivalent: 0, survived: 0 };
    for (const mutant of files[file].mutants) {
      if (mutant.status === "Ignored") continue;
      row.mutants++;
      if (KILLED.has(mutant.status)) {
        row.killed++;
        continue;
      }
      const line = lines[mutant.location.start.line - 1];
      const original = originalText(lines, mutant.location);
      const key = explainedKey(file, line, original, mutant.replacement);
      let reason = reasons.get(key);
      if (reason !== undefined) used.add(key);
      else if (messageOnly(mutant, line)) reason = MESSAGE_ONLY;
      if (reason !== undefined) {
        row.equivalent++;
        equivalentReasons.set(reason, (equivalentReasons.get(reason) ?? 0) + 1);
      } else {
        row.survived++;
        unexplained.push({ file, line: mutant.location.start.line, status: mutant.status, text: line.trim(), original, replacement: mutant.replacement, mutator: mutant.mutatorName });
      }
    }
    rows.push(row);
  }
  const total = rows.reduce(
    (sum, row) => ({ file: "all", mutants: sum.mutants + row.mutants, killed: sum.killed + row.killed, equivalent: sum.equivalent + row.equivalent, survived: sum.survived + row.survived }),
    { mutants: 0, killed: 0, equivalent: 0, survived: 0 },
  );
  const score = (row) => `${((100 * row.killed) / Math.max(1, row.mutants - row.equivalent)).toFixed(1)}%`;
  const stale = listed.filter((entry) => !used.has(explainedKey(entry.file, entry.line, entry.original, entry.replacement)) && Object.hasOwn(files, entry.file));
  if (markdown) {
    console.log("| file | mutants | killed | equivalent | not killed | score |\n|---|---:|---:|---:|---:|---:|");
    for (const row of [...rows, total]) console.log(`| ${row.file} | ${row.mutants} | ${row.killed} | ${row.equivalent} | ${row.survived} | ${score(row)} |`);
    console.log("\n| equivalence | mutants |\n|---|---:|");
    for (const [reason, count] of [...equivalentReasons].sort((a, b) => b[1] - a[1])) console.log(`| ${reason.replaceAll("|", "\\|")} | ${count} |`);
    if (unexplained.length) {
      console.log("\n| file:line | status | mutated | replacement |\n|---|---|---|---|");
      const cell = (text) => `\`${text.replaceAll("|", "\\|").replaceAll("\n", " ")}\``;
      for (const m of unexplained) console.log(`| ${m.file}:${m.line} | ${m.status} | ${cell(m.original)} | ${cell(m.replacement)} |`);
    }
  } else {
    for (const row of [...rows, total]) {
      console.log(`${row.file}: ${row.mutants} mutants, ${row.killed} killed, ${row.equivalent} equivalent, ${row.survived} not killed: ${score(row)}`);
    }
    for (const m of unexplained) console.log(`not killed (${m.status}) ${m.file}:${m.line} [${m.mutator}] ${JSON.stringify(m.original)} -> ${JSON.stringify(m.replacement)}\n    ${m.text}`);
    for (const entry of stale) console.log(`stale explanation (no such mutant): ${entry.file}: ${entry.line}`);
  }
  return unexplained.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
