// Score of a Stryker run of the JavaScript runtime, with every mutant not
// killed either explained or listed (docs/mutation.md, JavaScript runtime).
//
//   node tests/js/mutation-report.mjs [REPORT.json ...] [--markdown]
//
// REPORT.json: Stryker's json reports (default reports/mutation/mutation.json);
// the reports of runs scoped by file or line range add up, a later run of
// the same mutant winning (readReports). Explanations live in tests/js/mutation-equivalents.json, keyed by the
// file, the mutated line's text (trimmed), the mutated text and its
// replacement, so they survive line moves but not a change of the code.
// A mutant that only changes an exception's message is equivalent by the
// contract (errors compare by class) and recognised without a listing.
// Exit status 1 when a mutant is neither killed nor explained.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EQUIVALENTS = join(ROOT, "tests", "js", "mutation-equivalents.json");
const KILLED = new Set(["Killed", "Timeout"]);
const MESSAGE_ONLY = "message-only: the mutant changes only an exception's message; errors compare by class";

/** The mutated text of a mutant (its location in the file's source). */
function originalText(lines, location) {
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  const parts = [lines[start.line - 1].slice(start.column - 1)];
  for (let line = start.line + 1; line < end.line; line++) parts.push(lines[line - 1]);
  parts.push(lines[end.line - 1].slice(0, end.column - 1));
  return parts.join("\n");
}

/** A string mutant inside the message argument of a thrown error. */
function messageOnly(mutant, line) {
  if (!["StringLiteral", "ArrayDeclaration"].includes(mutant.mutatorName) && mutant.mutatorName !== "TemplateLiteral") return false;
  return /\bnew (?:\w*Error_?|JSONDecodeError)\(/.test(line) && !/super\(/.test(line);
}

export function explainedKey(file, line, original, replacement) {
  return JSON.stringify([file, line.trim(), original, replacement]);
}

/** A mutant's identity that survives line moves: the mutated line's text, the mutated text, the replacement. */
function mutantKey(lines, mutant) {
  return JSON.stringify([lines[mutant.location.start.line - 1].trim(), originalText(lines, mutant.location), mutant.replacement, mutant.mutatorName]);
}

/**
 * The mutants of several reports, merged per file: runs scoped by line
 * ranges add up, and a later run of the same mutant wins. A mutant of an
 * earlier report whose line no longer occurs in the latest source is dropped
 * (the code changed there). The latest report's source is the file's source;
 * the mutants of earlier reports are moved to where their line is now.
 */
function readReports(paths) {
  const files = {};
  for (const path of paths) {
    for (const [file, report] of Object.entries(JSON.parse(readFileSync(path, "utf8")).files)) {
      const lines = report.source.split("\n");
      const entry = (files[file] ??= { source: report.source, byKey: new Map() });
      for (const mutant of report.mutants) {
        const key = mutantKey(lines, mutant);
        // the same text on several lines: keep each occurrence apart
        let n = 0;
        while (entry.byKey.has(`${key}#${n}`) && entry.byKey.get(`${key}#${n}`).path === path) n++;
        entry.byKey.set(`${key}#${n}`, { path, mutant, lines });
      }
      entry.source = report.source;
    }
  }
  const out = {};
  for (const [file, { source, byKey }] of Object.entries(files)) {
    const lines = source.split("\n");
    const where = new Map();
    lines.forEach((line, index) => {
      const text = line.trim();
      if (!where.has(text)) where.set(text, []);
      where.get(text).push(index + 1);
    });
    const mutants = [];
    for (const { mutant, lines: old } of byKey.values()) {
      if (old === lines || old.join("\n") === source) {
        mutants.push(mutant);
        continue;
      }
      const text = old[mutant.location.start.line - 1].trim();
      const now = where.get(text);
      if (now === undefined || mutant.location.end.line !== mutant.location.start.line) continue;
      // the nearest line with the same text
      const line = now.reduce((best, candidate) => (Math.abs(candidate - mutant.location.start.line) < Math.abs(best - mutant.location.start.line) ? candidate : best));
      const shift = lines[line - 1].indexOf(text) - old[mutant.location.start.line - 1].indexOf(text);
      mutants.push({
        ...mutant,
        location: {
          start: { line, column: mutant.location.start.column + shift },
          end: { line, column: mutant.location.end.column + shift },
        },
      });
    }
    out[file] = { source, mutants };
  }
  return out;
}

function main(argv) {
  const markdown = argv.includes("--markdown");
  const paths = argv.filter((arg) => !arg.startsWith("--"));
  const files = readReports(paths.length ? paths : [join(ROOT, "reports", "mutation", "mutation.json")]);
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
