// A backtracking matcher for delimiter regexes with the semantics of
// Python's `regex` module (DOTALL, no MULTILINE), partial matching included.
//
// JavaScript's RegExp has no partial matching, so the compiler emits each
// pattern as a tree (see compiler/backends/js/__init__.py) whose character classes are
// explicit code point ranges read off the `regex` module: `\w`, `\s`, `\d`,
// case folding and `.` mean exactly what they mean in Python, on code points
// (a surrogate pair is one character); `.` matches a newline (DOTALL)
// [regex.unicode-word, regex.dotall].
// Comments in [brackets] name entries of compiler/conformance/inventory.json (see
// index.mjs).
//
// Tree nodes (arrays, the opcode first):
//   [0, ranges]                  one character in the sorted [lo, hi, lo, hi, ...] ranges
//   [1, items]                   concatenation
//   [2, branches]                alternation, in priority order
//   [3, index, name, body]       capturing group
//   [4, min, max, lazy, body, literal?]
//                                repeat (max -1: unbounded); `literal`: on a greedy repeat inside
//                                a look-behind, the string the `regex` module searches for when it
//                                gives back (compiler/regex/lookbehind_partial.py); on a lazy
//                                one-character repeat, the literal its tail's test reads
//                                (compiler/regex/lazy_partial.py), or when that test ignores
//                                case an array of ranges, one per character (its cases)
//   [5, kind]                    assertion: 0 start, 1 end (\Z), 2 end or before a final "\n" ($),
//                                3 word boundary, 4 not a word boundary, 5 start or after a "\n"
//                                ((?m)^), 6 end or before a "\n" ((?m)$)
//   [6, behind, negative, body]  lookaround
//   [7, string]                  a run of single characters, made by the matcher itself
//                                (regex_parts.mjs literalRuns), never by the compiler
//
// Partial matching (the `regex` module's `partial=True`): a complete match
// anywhere wins (the leftmost); otherwise the leftmost start from which some
// path runs into the end of the text while it still wants a character.
// Paths inside lookaheads count too (a negative lookahead that runs into
// the end makes a partial match where it starts), except inside a
// look-behind, where the module reports none; there, a one-character repeat
// that gives back before a literal string makes one when the string is not
// found (see compiler/regex/lookbehind_partial.py). A lazy one-character
// repeat before a literal reports the module's own partial matches when it
// backtracks (compiler/regex/lazy_partial.py, _lazyTail).

import {
  chain,
  codePointBefore,
  hasGroup,
  holds,
  inRanges,
  isLowSurrogateOfPair,
  literalRuns,
  nextIndex,
  prevIndex,
  restore,
  singleUnit,
  tailAt,
  tailFrom,
  tailSize,
} from "./regex_parts.mjs";
import { afterFailure, searchRequired } from "./regex_search.mjs";

export { codePointBefore, inRanges, nextIndex } from "./regex_parts.mjs";

/** A compiled delimiter regex. */
export class Regex {
  /**
   * @param {string} source the pattern as written (Python syntax)
   * @param {Array} tree the pattern tree (see the top of this file)
   * @param {number[]|null} entry code points any non-empty match or partial match reads first; null: any
   * @param {object|null} hint trigger strings and lead classes (see below)
   * @param {number[]|null} firstLead the class of a greedy unbounded repeat the pattern starts with
   */
  constructor(source, tree, entry = null, hint = null, firstLead = null, lazyLead = null, required = null) {
    this.source = source;
    this.entry = entry;
    // [string, offset, starts, ahead, aheadAt, minWidth] for a pattern whose
    // partial search attempts where the module's does (compiler/regex/
    // required_partial.py): the module's required string (a string or,
    // ignoring case, the ranges of each character's cases), the widest text
    // before it, search_start's test (ranges, null: it stops everywhere),
    // the next node's test it also reads (ranges per character, or null)
    // and where (1: after the position, 0: at it), the minimum width.
    this.required = required;
    // [ranges, max]: a lazy one-character repeat of minimum 0 the pattern
    // opens with, when the module attempts everywhere (compiler/regex/
    // lazy_partial.py lazy_lead): after a failed attempt at p it skips the
    // run of those characters from p, unless the run is `max` long; a run
    // reaching the end of the text makes a partial match at p.
    this.lazyLead = lazyLead;
    // In a run of these characters, an attempt reads a subset of what the
    // attempt one character earlier read (it is that attempt with one
    // repeat less): only the run's first position needs trying. Without
    // this, a held run of 8,000 newlines was swept from every start.
    this.firstLead = firstLead;
    // From the compiler's analysis: every complete match is a run of `leads`
    // characters then one of the `triggers` strings, so complete matches are
    // only tried where a trigger occurs (found with indexOf).
    this.hint = hint;
    // An entry class of one UTF-16 unit: attempts start only where indexOf finds it.
    this._entryUnit = entry !== null && singleUnit([0, entry]) >= 0 ? String.fromCharCode(entry[0]) : null;
    this.groupCount = 0;
    this.groupNames = [];
    this._ctx = { s: "", partial: false, hit: false, caps: [], forbidEmptyAt: -1, start: -1, end: -1 };
    this._scratch = null;
    const ctx = this._ctx;
    // The continuation after the whole pattern: a match, unless an empty one
    // where finditer forbids it.
    this._accept = (j) => {
      if (j === ctx.start && ctx.start === ctx.forbidEmptyAt) return false;
      ctx.end = j;
      return true;
    };
    this._scanGroups(tree);
    this._match = this._compile(tree, 1, false);
  }

  _scanGroups(node) {
    switch (node[0]) {
      case 1:
      case 2:
        for (const item of node[1]) this._scanGroups(item);
        break;
      case 3:
        this.groupCount = Math.max(this.groupCount, node[1]);
        if (node[2] !== null) this.groupNames.push([node[2], node[1]]);
        this._scanGroups(node[3]);
        break;
      case 4:
        this._scanGroups(node[4]);
        break;
      case 6:
        this._scanGroups(node[3]);
        break;
      default:
        break;
    }
  }

  // Each node compiles to m(i, k): try to match at i, calling k(j) with the
  // position after it; true as soon as a continuation succeeds.
  // `behind`: inside a look-behind, where reading the end of the text
  // makes no partial match.
  _compile(node, dir, behind) {
    const ctx = this._ctx;
    switch (node[0]) {
      case 0: {
        const ranges = node[1];
        if (dir > 0) {
          return (i, k) => {
            const s = ctx.s;
            if (i >= s.length) {
              if (ctx.partial && !behind) ctx.hit = true;
              return false;
            }
            const cp = s.codePointAt(i);
            if (!inRanges(ranges, cp)) return false;
            return k(cp > 0xffff ? i + 2 : i + 1);
          };
        }
        return (i, k) => {
          if (i <= 0) return false;
          const cp = codePointBefore(ctx.s, i);
          if (!inRanges(ranges, cp)) return false;
          return k(cp > 0xffff ? i - 2 : i - 1);
        };
      }
      case 1: {
        // Runs of items with one way to match (_direct) are read in one
        // step, without a continuation per item.
        const items = literalRuns(node[1]);
        if (dir < 0) items.reverse();
        const pieces = [];
        for (const item of items) {
          const direct = this._direct(item, dir, behind);
          const last = pieces[pieces.length - 1];
          if (direct === null) pieces.push({ cps: this._compile(item, dir, behind) });
          else if (last !== undefined && last.direct !== undefined) last.direct = chain(last.direct, direct);
          else pieces.push({ direct });
        }
        let rest = null;
        for (let at = pieces.length - 1; at >= 0; at--) {
          const next = rest;
          const { direct, cps } = pieces[at];
          if (direct !== undefined) {
            rest =
              next === null
                ? (i, k) => {
                    const j = direct(i);
                    return j >= 0 && k(j);
                  }
                : (i, k) => {
                    const j = direct(i);
                    return j >= 0 && next(j, k);
                  };
          } else rest = next === null ? cps : (i, k) => cps(i, (j) => next(j, k));
        }
        return rest ?? ((i, k) => k(i));
      }
      case 2: {
        const branches = node[1].map((item) => this._compile(item, dir, behind));
        return (i, k) => {
          for (const branch of branches) if (branch(i, k)) return true;
          return false;
        };
      }
      case 3: {
        const body = this._compile(node[3], dir, behind);
        const at = 2 * node[1];
        return (i, k) => {
          const caps = ctx.caps;
          const oldStart = caps[at];
          const oldEnd = caps[at + 1];
          const ok = body(i, (j) => {
            const innerStart = caps[at];
            const innerEnd = caps[at + 1];
            if (dir > 0) {
              caps[at] = i;
              caps[at + 1] = j;
            } else {
              caps[at] = j;
              caps[at + 1] = i;
            }
            if (k(j)) return true;
            caps[at] = innerStart;
            caps[at + 1] = innerEnd;
            return false;
          });
          if (!ok) {
            caps[at] = oldStart;
            caps[at + 1] = oldEnd;
          }
          return ok;
        };
      }
      case 4:
        return this._repeat(node, dir, behind);
      // A run of single characters (literalRuns): one comparison of the
      // string, with the partial match a character-by-character read makes
      // when the text ends inside it.
      case 7: {
        const literal = node[1];
        const size = literal.length;
        if (dir > 0) {
          return (i, k) => {
            const s = ctx.s;
            if (i + size <= s.length) return s.startsWith(literal, i) && k(i + size);
            for (let j = i; j < s.length; j++) if (s.charCodeAt(j) !== literal.charCodeAt(j - i)) return false;
            if (ctx.partial && !behind) ctx.hit = true;
            return false;
          };
        }
        return (i, k) => i >= size && ctx.s.startsWith(literal, i - size) && k(i - size);
      }
      case 5: {
        const kind = node[1];
        return (i, k) => holds(kind, ctx.s, i) && k(i);
      }
      // Lookahead and lookbehind [regex.lookaround]
      case 6: {
        const behind = node[1];
        const negative = node[2];
        const body = this._compile(node[3], node[1] ? -1 : 1, behind || node[1] === 1);
        const done = () => true;
        if (!hasGroup(node[3])) {
          // Nothing to save: the body sets no capture.
          return negative ? (i, k) => !body(i, done) && k(i) : (i, k) => body(i, done) && k(i);
        }
        if (negative) {
          // A path that runs into the end inside it still makes a partial
          // match at this start, as in the `regex` module.
          return (i, k) => {
            const saved = ctx.caps.slice();
            const found = body(i, done);
            restore(ctx.caps, saved);
            return !found && k(i);
          };
        }
        return (i, k) => {
          const saved = ctx.caps.slice();
          if (!body(i, done)) {
            restore(ctx.caps, saved);
            return false;
          }
          if (k(i)) return true;
          restore(ctx.caps, saved);
          return false;
        };
      }
      default:
        throw new Error(`bad regex node ${node[0]}`);
    }
  }

  /**
   * A node with at most one way to match, as (i) => the position after it,
   * or -1: one character, a string, an assertion, a look-around without
   * groups, a concatenation of such, a fixed count of one; null for others.
   * It reads what its matcher would, partial matches included.
   */
  _direct(node, dir, behind) {
    const ctx = this._ctx;
    switch (node[0]) {
      case 0: {
        const ranges = node[1];
        if (dir > 0) {
          return (i) => {
            const s = ctx.s;
            if (i >= s.length) {
              if (ctx.partial && !behind) ctx.hit = true;
              return -1;
            }
            const cp = s.codePointAt(i);
            if (!inRanges(ranges, cp)) return -1;
            return cp > 0xffff ? i + 2 : i + 1;
          };
        }
        return (i) => {
          if (i <= 0) return -1;
          const cp = codePointBefore(ctx.s, i);
          if (!inRanges(ranges, cp)) return -1;
          return cp > 0xffff ? i - 2 : i - 1;
        };
      }
      case 7: {
        const literal = node[1];
        const size = literal.length;
        if (dir > 0) {
          return (i) => {
            const s = ctx.s;
            if (i + size <= s.length) return s.startsWith(literal, i) ? i + size : -1;
            for (let j = i; j < s.length; j++) if (s.charCodeAt(j) !== literal.charCodeAt(j - i)) return -1;
            if (ctx.partial && !behind) ctx.hit = true;
            return -1;
          };
        }
        return (i) => (i >= size && ctx.s.startsWith(literal, i - size) ? i - size : -1);
      }
      case 5: {
        const kind = node[1];
        return (i) => (holds(kind, ctx.s, i) ? i : -1);
      }
      case 6: {
        if (hasGroup(node[3])) return null;
        const negative = node[2];
        // As in _compile: the body of a look-behind reads no partial match, a look-ahead's does.
        const body = this._compile(node[3], node[1] ? -1 : 1, Boolean(node[1]));
        const done = () => true;
        return negative ? (i) => (body(i, done) ? -1 : i) : (i) => (body(i, done) ? i : -1);
      }
      case 1: {
        const items = literalRuns(node[1]);
        if (dir < 0) items.reverse();
        let out = (i) => i;
        for (const item of items) {
          const direct = this._direct(item, dir, behind);
          if (direct === null) return null;
          out = chain(out, direct);
        }
        return out;
      }
      case 4: {
        if (node[1] !== node[2] || node[1] > 16) return null;
        const body = this._direct(node[4], dir, behind);
        if (body === null) return null;
        let out = (i) => i;
        for (let n = 0; n < node[1]; n++) out = chain(out, body);
        return out;
      }
      default:
        return null;
    }
  }

  _repeat(node, dir, behind) {
    const ctx = this._ctx;
    const min = node[1];
    const max = node[2];
    const lazy = node[3];
    const bodyNode = node[4];
    const literal = node.length > 5 ? node[5] : null;
    if (bodyNode[0] === 0) {
      // One character per iteration: no recursion.
      const ranges = bodyNode[1];
      const step = dir > 0 ? nextIndex : prevIndex;
      const readable = dir > 0
        ? (s, i) => {
            if (i >= s.length) {
              if (ctx.partial && !behind) ctx.hit = true;
              return false;
            }
            return inRanges(ranges, s.codePointAt(i));
          }
        : (s, i) => i > 0 && inRanges(ranges, codePointBefore(s, i));
      if (lazy) {
        const tail = dir > 0 && !behind ? literal : null;
        return (i, k) => {
          const s = ctx.s;
          let count = 0;
          let j = i;
          while (count < min) {
            if (!readable(s, j)) return false;
            j = step(s, j);
            count++;
          }
          if (tail !== null) return this._lazyTail(ranges, min, max, tail, i, j, count, k);
          for (;;) {
            if (k(j)) return true;
            if (max >= 0 && count >= max) return false;
            if (!readable(s, j)) return false;
            j = step(s, j);
            count++;
          }
        };
      }
      if (literal === null) {
        // While every character it took is one UTF-16 unit, the positions
        // to give back to are i + c (forward) or i - c, without a list.
        const unit = dir > 0 ? 1 : -1;
        return (i, k) => {
          const s = ctx.s;
          let j = i;
          let count = 0;
          let wide = false;
          while ((max < 0 || count < max) && readable(s, j)) {
            const next = step(s, j);
            if (next - j !== unit) wide = true;
            j = next;
            count++;
          }
          if (!wide) {
            for (let c = count; c >= min; c--) if (k(i + unit * c)) return true;
            return false;
          }
          const positions = [i];
          for (let c = 0, at = i; c < count; c++) positions.push((at = step(s, at)));
          for (let c = count; c >= min; c--) if (k(positions[c])) return true;
          return false;
        };
      }
      return (i, k) => {
        const s = ctx.s;
        const positions = [i];
        let j = i;
        let count = 0;
        while (max < 0 || count < max) {
          if (!readable(s, j)) break;
          j = step(s, j);
          count++;
          positions.push(j);
        }
        if (literal !== null) return this._giveBack(positions, count, min, literal, k);
        for (let c = count; c >= min; c--) if (k(positions[c])) return true;
        return false;
      };
    }
    const body = this._compile(bodyNode, dir, behind);
    if (min === 0 && max === 1) {
      // `(?:...)?`: one iteration or none, and an empty one ends the repeat
      // just the same (as `run` below), without a continuation of its own.
      return lazy ? (i, k) => k(i) || body(i, k) : (i, k) => body(i, k) || k(i);
    }
    const more = (count) => max < 0 || count < max;
    const run = (count, i, k) => {
      if (count < min) return body(i, (j) => run(count + 1, j, k));
      // Past the minimum, an iteration that matched nothing ends the repeat
      // (the `regex` module's rule; JavaScript would reject the iteration).
      if (lazy) {
        if (k(i)) return true;
        return more(count) && body(i, (j) => (j === i ? k(j) : run(count + 1, j, k)));
      }
      if (more(count) && body(i, (j) => (j === i ? k(j) : run(count + 1, j, k)))) return true;
      return k(i);
    };
    return (i, k) => run(0, i, k);
  }

  // A greedy one-character repeat read backwards with `literal` just left
  // of it, as the `regex` module backtracks it: after the full count, only
  // ends of `literal` are tried (nearest first); when none is left, partial
  // mode makes the attempt a partial match (compiler/regex/lookbehind_partial.py).
  _giveBack(positions, count, min, literal, k) {
    // Fewer characters than the minimum: no match from here at all.
    if (count < min) return false;
    if (k(positions[count])) return true;
    if (count === min) return false;
    const s = this._ctx.s;
    // Nothing is searched when the literal cannot fit before the limit.
    let room = positions[min];
    for (let n = 0; n < literal.length; n += literal.codePointAt(n) > 0xffff ? 2 : 1) {
      if (room === 0) return false;
      room = prevIndex(s, room);
    }
    for (let c = count - 1; c >= min; c--) {
      const end = positions[c];
      if (end < literal.length || !s.startsWith(literal, end - literal.length)) continue;
      if (k(end)) return true;
      if (c === min) return false;
    }
    if (this._ctx.partial) this._ctx.hit = true;
    return false;
  }

  // A lazy one-character repeat whose tail's test is the literal `tail`, as
  // the `regex` module backtracks it (compiler/regex/lazy_partial.py): with
  // one character, backtracking at the text's last character (or its end)
  // makes a partial match whatever the body says; with a string, it is
  // searched for from one character on, and not finding it (ending by
  // `start + max + len`) makes a partial match. `j` is where the minimum
  // count (`count`) ended; the repeat started at `start`.
  _lazyTail(ranges, min, max, tail, start, j, count, k) {
    const ctx = this._ctx;
    const s = ctx.s;
    const n = s.length;
    const bounded = max >= 0;
    if (k(j)) return true;
    if (bounded && count >= max) return false;
    if (tail.length === 0) {
      // Not a literal: one character at a time, but never reading at the
      // end of the text once the repeat got there.
      if (j >= n) {
        if (ctx.partial) ctx.hit = true;
        return false;
      }
      for (;;) {
        if (!inRanges(ranges, s.codePointAt(j))) return false;
        j = nextIndex(s, j);
        count++;
        if (k(j)) return true;
        if (j >= n || (bounded && count >= max)) return false;
      }
    }
    const size = tailSize(tail);
    if (size === 1) {
      for (;;) {
        for (;;) {
          if (j >= n || nextIndex(s, j) >= n) {
            if (ctx.partial) ctx.hit = true;
            return false;
          }
          if (bounded && count >= max) return false;
          if (!inRanges(ranges, s.codePointAt(j))) return false;
          j = nextIndex(s, j);
          count++;
          if (tailAt(s, j, tail) >= 0) break;
        }
        if (k(j)) return true;
        if (bounded && count >= max) return false;
      }
    }
    // E: where an occurrence must end, start + max + len(tail) code points at most.
    let limit = n;
    if (bounded) {
      limit = start;
      let steps = max + size;
      while (steps > 0 && limit < n) {
        limit = nextIndex(s, limit);
        steps--;
      }
    }
    for (;;) {
      if (j >= n) {
        if (ctx.partial) ctx.hit = true;
        return false;
      }
      const found = tailFrom(s, nextIndex(s, j), tail);
      if (found < 0 || tailAt(s, found, tail) > limit) {
        if (ctx.partial) ctx.hit = true;
        return false;
      }
      while (j < found) {
        if (!inRanges(ranges, s.codePointAt(j))) return false;
        j = nextIndex(s, j);
        count++;
      }
      if (k(j)) return true;
      if (bounded && count >= max) return false;
    }
  }

  _entryOk(s, p) {
    return this.entry === null || inRanges(this.entry, s.codePointAt(p));
  }

  _attempt(s, p, partial) {
    const ctx = this._ctx;
    ctx.s = s;
    ctx.partial = partial;
    ctx.hit = false;
    // The captures array of a failed attempt is reused by the next one.
    let caps = this._scratch;
    if (caps === null) caps = new Array(2 * (this.groupCount + 1));
    caps.fill(-1);
    ctx.caps = caps;
    ctx.start = p;
    ctx.end = -1;
    if (!this._match(p, this._accept)) {
      this._scratch = caps;
      return null;
    }
    this._scratch = null;
    caps = ctx.caps;
    caps[0] = p;
    caps[1] = ctx.end;
    return caps;
  }

  /**
   * `regex.compile(p, DOTALL).search(s, pos, partial=partial)`: null, or
   * {start, end, partial, caps}; positions are UTF-16 indices.
   */
  search(s, pos, partial = false) {
    if (this.hint !== null) return this._searchHinted(s, pos, partial);
    if (partial && this.required !== null) return this.search(s, pos, false) ?? searchRequired(this, s, pos);
    const n = s.length;
    let firstHit = -1;
    const ctx = this._ctx;
    const unit = this._entryUnit;
    for (let p = pos; p <= n; p = p < n ? nextIndex(s, p) : n + 1) {
      if (unit !== null) {
        p = s.indexOf(unit, p);
        if (p < 0) break;
      } else if (p < n ? !this._entryOk(s, p) : this.entry !== null) continue;
      if (this._insideRun(s, pos, p)) continue;
      const caps = this._attempt(s, p, partial);
      if (caps !== null) return new Match(this, s, caps, false);
      if (ctx.hit && firstHit < 0) firstHit = p;
      if (this.lazyLead !== null && p < n) {
        const next = afterFailure(this, s, p);
        if (next > n) {
          if (partial && firstHit < 0) firstHit = p;
          break;
        }
        p = prevIndex(s, next); // the loop steps past the character that ended the run
      }
    }
    return firstHit < 0 ? null : this._partialMatch(s, firstHit);
  }

  _partialMatch(s, start) {
    const caps = new Array(2 * (this.groupCount + 1)).fill(-1);
    caps[0] = start;
    caps[1] = s.length;
    return new Match(this, s, caps, true);
  }

  /** Whether `p` follows a character of the first lead at or after `from` (tried already). */
  _insideRun(s, from, p) {
    return this.firstLead !== null && p > from && inRanges(this.firstLead, codePointBefore(s, p));
  }

  /** The start of the run of lead characters that ends at `end`, not before `floor`. */
  _runStart(s, end, floor) {
    const leads = this.hint.leads;
    let start = end;
    while (start > floor && leads !== null && inRanges(leads, codePointBefore(s, start))) start = prevIndex(s, start);
    return start;
  }

  /**
   * `search` with trigger strings (the compiler's analysis: every match is
   * a run of lead characters then a trigger string; every partial match is
   * lead characters then a trigger string or a proper prefix of one, or
   * lead characters only, running into the end). The pattern is tried only
   * from the lead run before each trigger string; failing a complete match,
   * from the run before a trigger prefix that ends the text, then from the
   * lead run that ends it (the Python runtime's `Pattern.search`). A held
   * run of 8,000 newlines is thus tried from its first position only, not
   * swept from every start.
   */
  _searchHinted(s, pos, partial) {
    const ctx = this._ctx;
    const n = s.length;
    let firstHit = -1;
    let start = pos;
    while (start < n) {
      const at = this._nextTrigger(s, start);
      if (at < 0) break;
      for (let p = this._runStart(s, at, start); p <= at; p = nextIndex(s, p)) {
        if (this._insideRun(s, start, p)) continue;
        const caps = this._attempt(s, p, partial);
        if (caps !== null) return new Match(this, s, caps, false);
        if (ctx.hit && firstHit < 0) {
          // Without one of the literals every match consumes (the compiler's
          // closing_literals) the text holds no complete match: this first
          // partial one is the answer (asked once, at the first partial match).
          const ends = this.hint.ends;
          if (ends !== undefined && ends.every((end) => s.indexOf(end, pos) < 0)) return this._partialMatch(s, p);
          firstHit = p;
        }
      }
      start = nextIndex(s, at);
    }
    if (!partial) return null;
    if (firstHit >= 0) return this._partialMatch(s, firstHit);
    const tailAt = this._tailPrefix(s, start);
    if (tailAt >= 0) {
      const found = this._firstPartial(s, this._runStart(s, tailAt, start), tailAt);
      if (found >= 0) return this._partialMatch(s, found);
      start = nextIndex(s, tailAt);
    }
    if (this.hint.leads !== null && start < n) {
      const runStart = this._runStart(s, n, start);
      if (runStart < n) {
        const found = this._firstPartial(s, runStart, prevIndex(s, n));
        if (found >= 0) return this._partialMatch(s, found);
      }
    }
    return null;
  }

  /** The leftmost start of a trigger string at or after `start`, or -1. */
  _nextTrigger(s, start) {
    let at = -1;
    for (const trigger of this.hint.triggers) {
      const found = s.indexOf(trigger, start);
      if (found >= 0 && (at < 0 || found < at)) at = found;
    }
    return at;
  }

  /** The leftmost position at or after `start` from which the text is a proper prefix of a trigger string, or -1. */
  _tailPrefix(s, start) {
    const hint = this.hint;
    if (hint.prefixes === undefined) {
      hint.prefixes = new Set();
      hint.firsts = new Set(hint.triggers.map((trigger) => trigger.charCodeAt(0)));
      hint.longest = 0;
      for (const trigger of hint.triggers) {
        const chars = Array.from(trigger);
        for (let i = 1; i < chars.length; i++) hint.prefixes.add(chars.slice(0, i).join(""));
        hint.longest = Math.max(hint.longest, trigger.length);
      }
    }
    const n = s.length;
    let at = Math.max(start, n - hint.longest + 1);
    if (at > start && isLowSurrogateOfPair(s, at)) at += 1;
    for (; at < n; at = nextIndex(s, at)) {
      if (hint.firsts.has(s.charCodeAt(at)) && hint.prefixes.has(s.slice(at))) return at;
    }
    return -1;
  }

  /** The first position in [from, to] a partial attempt runs into the end from, or -1. */
  _firstPartial(s, from, to) {
    for (let p = from; p <= to; p = nextIndex(s, p)) {
      if (this._insideRun(s, from, p)) continue;
      this._attempt(s, p, true);
      if (this._ctx.hit) return p;
    }
    return -1;
  }

  /** Non-overlapping complete matches, as the `regex` module's finditer. */
  *finditer(s) {
    let pos = 0;
    let forbid = -1;
    for (;;) {
      this._ctx.forbidEmptyAt = forbid;
      let match;
      try {
        match = this.search(s, pos, false);
      } finally {
        this._ctx.forbidEmptyAt = -1;
      }
      if (match === null) return;
      yield match;
      forbid = match.end === match.start ? match.end : -1;
      pos = match.end;
    }
  }
}

/** One match: UTF-16 span, captures and named groups. */
export class Match {
  constructor(regex, s, caps, partial) {
    this.regex = regex;
    this.s = s;
    this.caps = caps;
    this.partial = partial;
    this.start = caps[0];
    this.end = caps[1];
  }

  group(index) {
    const a = this.caps[2 * index];
    return a < 0 ? null : this.s.slice(a, this.caps[2 * index + 1]);
  }

  /** Named groups -> text, or null for a group that did not take part. */
  groupdict() {
    const out = {};
    for (const [name, index] of this.regex.groupNames) out[name] = this.group(index);
    return out;
  }
}
