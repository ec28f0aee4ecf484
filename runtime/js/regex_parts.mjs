// Code points and pattern trees for the delimiter regex matcher
// (regex.mjs, which re-exports the code point helpers the rest of the
// runtime uses): UTF-16 indices read as Python reads characters (a
// surrogate pair is one), the rewrites of a tree the matcher compiles, and
// the assertions, capture restores and lazy-repeat tail tests it runs.

import { WORD } from "./unicode.mjs";

/** Whether code point `cp` is in the sorted flat range list. */
export function inRanges(ranges, cp) {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[2 * mid]) hi = mid - 1;
    else if (cp > ranges[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The code point that ends at UTF-16 index `i`. */
export function codePointBefore(s, i) {
  const low = s.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = s.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/** UTF-16 index of the code point after the one at `i`. */
export function nextIndex(s, i) {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return i + 2;
  }
  return i + 1;
}

/** Whether index `i` falls inside a surrogate pair. */
export function isLowSurrogateOfPair(s, i) {
  const c = s.charCodeAt(i);
  if (!(c >= 0xdc00 && c <= 0xdfff)) return false;
  const b = s.charCodeAt(i - 1);
  return b >= 0xd800 && b <= 0xdbff;
}

export function prevIndex(s, i) {
  return codePointBefore(s, i) > 0xffff ? i - 2 : i - 1;
}

/** A one-character class of one code point outside the surrogates: `[0, [c, c]]`. */
export function singleUnit(node) {
  if (node[0] !== 0 || node[1].length !== 2 || node[1][0] !== node[1][1]) return -1;
  const c = node[1][0];
  return c < 0xd800 || (c > 0xdfff && c <= 0xffff) ? c : -1;
}

/**
 * Items of a concatenation with each run of two or more single characters
 * (one UTF-16 unit each) merged into one string node, `[7, string]`: it
 * reads the same characters, so it matches, fails and runs into the end
 * of the text where they would.
 */
export function literalRuns(items) {
  const out = [];
  for (let i = 0; i < items.length; ) {
    let j = i;
    while (j < items.length && singleUnit(items[j]) >= 0) j++;
    if (j - i >= 2) {
      out.push([7, String.fromCharCode(...items.slice(i, j).map(singleUnit))]);
      i = j;
    } else {
      out.push(items[i]);
      i += 1;
    }
  }
  return out;
}

/** Two direct matchers one after the other. */
export function chain(first, second) {
  return (i) => {
    const j = first(i);
    return j < 0 ? -1 : second(j);
  };
}

/** Whether a pattern tree holds a capturing group. */
export function hasGroup(node) {
  switch (node[0]) {
    case 1:
    case 2:
      return node[1].some(hasGroup);
    case 3:
      return true;
    case 4:
      return hasGroup(node[4]);
    case 6:
      return hasGroup(node[3]);
    default:
      return false;
  }
}

// Assertions, capture restores and lazy-repeat tail tests.

function isWordAt(s, i) {
  if (i >= s.length) return false;
  return inRanges(WORD, s.codePointAt(i));
}

function isWordBefore(s, i) {
  if (i <= 0) return false;
  return inRanges(WORD, codePointBefore(s, i));
}

export function restore(caps, saved) {
  for (let i = 0; i < saved.length; i++) caps[i] = saved[i];
}

export function holds(kind, s, i) {
  const n = s.length;
  switch (kind) {
    // `^`: the start of the (prefix-truncated) buffer only [regex.caret-buffer-start]
    case 0:
      return i === 0;
    case 1:
      return i === n;
    // `$`: the end, or before a final newline (no MULTILINE) [regex.dollar-before-final-newline]
    case 2:
      return i === n || (i === n - 1 && s.charCodeAt(i) === 10);
    // `\b` on the Unicode `\w` [regex.unicode-word]
    case 3:
      return isWordBefore(s, i) !== isWordAt(s, i);
    case 5:
      return i === 0 || s.charCodeAt(i - 1) === 10;
    case 6:
      return i === n || s.charCodeAt(i) === 10;
    default:
      return isWordBefore(s, i) === isWordAt(s, i);
  }
}

// A lazy repeat's tail test: a string, or (ignoring case) the ranges of
// each of its characters' cases. tailAt: where it ends when read at j, or -1;
// tailFrom: its first start at or after `from`, or -1; tailSize: its code points.
export function tailAt(s, j, tail) {
  if (typeof tail === "string") return s.startsWith(tail, j) ? j + tail.length : -1;
  for (const ranges of tail) {
    if (j >= s.length || !inRanges(ranges, s.codePointAt(j))) return -1;
    j = nextIndex(s, j);
  }
  return j;
}

export function tailFrom(s, from, tail) {
  if (typeof tail === "string") return s.indexOf(tail, from);
  for (let p = from; p < s.length; p = nextIndex(s, p)) if (tailAt(s, p, tail) >= 0) return p;
  return -1;
}

export function tailSize(tail) {
  if (typeof tail !== "string") return tail.length;
  let size = 0;
  for (let i = 0; i < tail.length; i = nextIndex(tail, i)) size++;
  return size;
}
