// The matcher (runtime/js/regex.mjs) against the `regex` module on small
// patterns: fixtures/regex_cases.json, written by fixtures/make_regex_cases.py
// (the backend's trees, the module's results). Used by regex.test.mjs and by
// the mutation re-check (mutation-recheck-child.mjs).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

export const REGEX_CASES = JSON.parse(readFileSync(join(HERE, "fixtures", "regex_cases.json"), "utf8"));

function shown(match) {
  if (match === null) return null;
  const groups = [];
  for (let g = 1; g <= match.regex.groupCount; g++) {
    const a = match.caps[2 * g];
    groups.push(a < 0 ? null : [a, match.caps[2 * g + 1]]);
  }
  return { span: [match.start, match.end], partial: match.partial, groups, named: match.groupdict() };
}

function shownPartial(match) {
  // a partial match's groups are never read (the driver holds back from its start)
  if (match === null || !match.partial) return shown(match);
  return { span: [match.start, match.end], partial: true };
}

/** Every difference between `Regex` (a runtime's class) and the fixtures. */
export function regexCaseProblems(Regex, { first = false, cases = REGEX_CASES } = {}) {
  const problems = [];
  const report = (problem) => {
    problems.push(problem);
    return first;
  };
  for (const { pattern, tree, entry, hint, runs } of cases) {
    // as the backend emits it: with the trigger hint when it has one, and without
    for (const withHint of hint === null ? [false] : [false, true]) {
    let regex;
    try {
      regex = withHint ? new Regex(pattern, tree, entry, hint) : new Regex(pattern, tree, entry);
    } catch (error) {
      if (report({ pattern, error: String(error) })) return problems;
      continue;
    }
    for (const run of runs) {
      const where = { pattern, withHint, text: run.text };
      try {
        for (const [pos, expected] of run.search) {
          const actual = shown(regex.search(run.text, pos, false));
          if (JSON.stringify(actual) !== JSON.stringify(expected) && report({ ...where, pos, expected, actual })) return problems;
        }
        if ("partial" in run) {
          // An empty partial match at the end of the text holds nothing back
          // (the driver holds back from a partial match's start): it counts as none.
          const quiet = (m) => (m !== null && m.partial && m.span[0] === run.text.length ? null : m);
          const expected = quiet(run.partial !== null && run.partial.partial ? { span: run.partial.span, partial: true } : run.partial);
          const actual = quiet(shownPartial(regex.search(run.text, 0, true)));
          if (JSON.stringify(actual) !== JSON.stringify(expected) && report({ ...where, partial: true, expected, actual })) return problems;
        }
        const spans = [];
        for (const match of regex.finditer(run.text)) {
          spans.push([match.start, match.end]);
          if (spans.length > run.finditer.length) break;
        }
        if (JSON.stringify(spans) !== JSON.stringify(run.finditer) && report({ ...where, finditer: true, expected: run.finditer, actual: spans })) return problems;
      } catch (error) {
        if (report({ ...where, error: String(error) })) return problems;
      }
    }
    }
  }
  return problems;
}
