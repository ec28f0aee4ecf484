// The `regex` module's search loop for a pattern with a required string that
// a bounded lazy repeat or a look-around may come before (compiler/regex/
// required_partial.py explains it): which positions the module attempts
// decides the partial match such a pattern reports, so the partial pass
// repeats the module's. The Regex (regex.mjs) carries the data as
// `required`: [string, offset, starts, ahead, aheadAt, minWidth].

import { inRanges, nextIndex, prevIndex, tailFrom, tailSize } from "./regex_parts.mjs";

/**
 * The `regex` module's partial pass for a pattern with a required string
 * (no complete match exists). Before each attempt it locates the string
 * (locate_required_string): at or after the position, once that passes
 * where the string was last found, and failing a complete occurrence a
 * start of it that runs into the end (or the end); the attempt starts no
 * earlier than that less the offset. The complete pass before it leaves
 * where it last found the string (afterCompletePass).
 */
export function searchRequired(re, s, pos) {
  const [string, offset] = re.required;
  const n = s.length;
  let found = afterCompletePass(re, s, pos);
  for (let p = pos; p <= n; ) {
    if (p >= found) {
      let at = found;
      if (at < 0 || p > at) {
        at = tailFrom(s, p, string);
        if (at >= 0) found = at;
        else at = requiredRunsOut(s, p, string);
      }
      p = Math.max(p, stepBack(s, at, offset));
    }
    p = nextStart(re, s, p, true);
    if (p < -1) return re._partialMatch(s, -2 - p);
    if (p < 0) break;
    re._attempt(s, p, true);
    if (re._ctx.hit) return re._partialMatch(s, p);
    if (p >= n) break;
    const next = afterFailure(re, s, p);
    if (next > n) return re._partialMatch(s, p);
    p = next;
  }
  return null;
}

/**
 * Where the module's complete pass last found the required string (-1:
 * nowhere; it does not start when less than the minimum width is left);
 * its attempts all fail.
 */
function afterCompletePass(re, s, pos) {
  const [string, offset, , , , minWidth] = re.required;
  const n = s.length;
  let found = -1;
  if (!hasChars(s, pos, minWidth)) return found;
  for (let p = pos; p < n; ) {
    if (p >= found) {
      if (found < 0 || p > found) {
        const at = tailFrom(s, p, string);
        if (at < 0) break;
        found = at;
      }
      p = Math.max(p, stepBack(s, found, offset));
    }
    p = nextStart(re, s, p, false);
    if (p < 0 || p >= n) break;
    p = afterFailure(re, s, p);
  }
  return found;
}

/**
 * The first position at or after `p` the module's search_start stops at,
 * or -1; in the partial pass, -2 - q when its look at the next node runs
 * into the end from q (a partial match at q).
 */
function nextStart(re, s, p, partial) {
  const [, , starts, ahead, aheadAt] = re.required;
  if (starts === null) return p;
  for (;;) {
    while (p < s.length && !inRanges(starts, s.codePointAt(p))) p = nextIndex(s, p);
    if (p >= s.length) return -1;
    if (ahead === null) return p;
    let j = aheadAt === 1 ? nextIndex(s, p) : p;
    let k = 0;
    while (k < ahead.length && j < s.length && inRanges(ahead[k], s.codePointAt(j))) {
      j = nextIndex(s, j);
      k++;
    }
    if (k === ahead.length) return p;
    if (j >= s.length && partial) return -2 - p;
    p = nextIndex(s, p);
  }
}

/**
 * Where the module attempts next after a failed attempt at `p` (< length):
 * past a run of lazyLead characters (see the constructor), or one on; past
 * the end (length + 1) when that run reaches the end of the text.
 */
export function afterFailure(re, s, p) {
  const n = s.length;
  if (re.lazyLead !== null) {
    const [ranges, max] = re.lazyLead;
    let end = p;
    let count = 0;
    while (end < n && (max < 0 || count < max) && inRanges(ranges, s.codePointAt(end))) {
      end = nextIndex(s, end);
      count++;
    }
    if (max < 0 || count < max) {
      if (end >= n) return n + 1;
      p = end;
    }
  }
  return nextIndex(s, p);
}

// Whether at least `count` code points follow i.
function hasChars(s, i, count) {
  for (; count > 0; count--) {
    if (i >= s.length) return false;
    i = nextIndex(s, i);
  }
  return true;
}

// The position `count` code points before i (not before 0).
function stepBack(s, i, count) {
  for (; count > 0 && i > 0; count--) i = prevIndex(s, i);
  return i;
}

// Where the `regex` module's partial search for a required string (a
// string or, ignoring case, ranges per character) that has no complete
// occurrence at or after `from` stops: the first start of it that runs into
// the end of the text, else the end. A string of five or more characters is
// looked for from its length less one before the end (the module's fast
// search), which may be before `from`.
function requiredRunsOut(s, from, string) {
  const size = tailSize(string);
  const points = typeof string === "string" ? Array.from(string, (c) => c.codePointAt(0)) : null;
  for (let q = size >= 5 ? stepBack(s, s.length, size - 1) : from; q < s.length; q = nextIndex(s, q)) {
    let j = q;
    let k = 0;
    for (; k < size && j < s.length; k++) {
      const cp = s.codePointAt(j);
      if (points !== null ? cp !== points[k] : !inRanges(string[k], cp)) break;
      j = nextIndex(s, j);
    }
    if (j >= s.length && k < size) return q;
  }
  return s.length;
}
