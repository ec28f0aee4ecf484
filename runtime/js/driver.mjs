// The streaming driver: delimiters (literal lists; regexes are regex.mjs),
// hold-back, the state machine over a template's tables, finalize and
// parse_response. Part of the runtime (index.mjs re-exports it). Comments
// in [brackets] name entries of compiler/conformance/inventory.json (see index.mjs).

import { Regex, codePointBefore, inRanges, nextIndex } from "./regex.mjs";
import { AttributeError, RuntimeError, TypeError_, ValueError, setKey } from "./pyjson.mjs";
import { deepCopy, has, isDict, pyLess, typeName } from "./content.mjs";
import { toolParameters, typeToolCalls } from "./typing.mjs";

// ---------------------------------------------------------------------------
// Delimiters
// ---------------------------------------------------------------------------

/**
 * A delimiter given as one literal or a list of literals: the same answers as
 * the reference's regex partial search on `lit1|lit2|...` (longest first)
 * [delim.open.literal, delim.open.list, delim.close.literal, delim.close.list,
 * start_anchor.literal, start_anchor.list]. Regex delimiters are regex.mjs's
 * Regex [delim.open.pattern, delim.close.pattern, start_anchor.pattern].
 * `growsAtEdge` (the compiler's answer): another literal of the list extends
 * a complete match, so one at the buffer end waits [hold.literal-can-extend,
 * commit.literal-at-edge].
 */
export class Literals {
  constructor(literals, { growsAtEdge = false } = {}) {
    this.literals = [...literals].sort((a, b) => Array.from(b).length - Array.from(a).length);
    this.growsAtEdge = growsAtEdge;
    this.longest = Math.max(...this.literals.map((literal) => literal.length));
    this.prefixes = new Set();
    this.firsts = new Set(this.literals.map((literal) => literal.charCodeAt(0)));
    for (const literal of this.literals) {
      const chars = Array.from(literal);
      for (let i = 1; i < chars.length; i++) this.prefixes.add(chars.slice(0, i).join(""));
    }
  }

  /** Leftmost complete match at or after `pos` (longest on ties): [start, end] or null. */
  find(buf, pos) {
    let bestStart = -1;
    let bestEnd = -1;
    for (const literal of this.literals) {
      let found = buf.indexOf(literal, pos);
      // A literal with a lone surrogate never matches half of a pair (Python
      // sees one character there).
      while (found >= 0 && (isLowSurrogateOfPair(buf, found) || isLowSurrogateOfPair(buf, found + literal.length))) {
        found = buf.indexOf(literal, found + 1);
      }
      if (found >= 0 && (bestStart < 0 || found < bestStart)) {
        bestStart = found;
        bestEnd = found + literal.length;
      }
    }
    return bestStart < 0 ? null : [bestStart, bestEnd];
  }

  /** Leftmost start of a proper prefix of a literal running to the end of `buf`, or -1 [hold.partial-literal]. */
  partialStart(buf, pos) {
    const size = buf.length;
    let start = Math.max(pos, size - this.longest + 1);
    if (start > pos && isLowSurrogateOfPair(buf, start)) start += 1;
    for (; start < size; start = nextIndex(buf, start)) {
      if (this.firsts.has(buf.charCodeAt(start)) && this.prefixes.has(buf.slice(start))) return start;
    }
    return -1;
  }
}

/** Whether index `i` falls inside a surrogate pair (charCodeAt is NaN outside the string). */
function isLowSurrogateOfPair(text, i) {
  const c = text.charCodeAt(i);
  if (!(c >= 0xdc00 && c <= 0xdfff)) return false;
  const b = text.charCodeAt(i - 1);
  return b >= 0xd800 && b <= 0xdbff;
}

/** The end of the last non-overlapping match of the start anchor in `text`, or -1 [prefix.last-anchor]. */
export function lastAnchorEnd(anchor, text) {
  let last = -1;
  if (anchor instanceof Regex) {
    for (const match of anchor.finditer(text)) last = match.end;
    return last;
  }
  let pos = 0;
  for (;;) {
    const found = anchor.find(text, pos);
    if (found === null) return last;
    last = found[1];
    pos = found[1];
  }
}

// ---------------------------------------------------------------------------
// The streaming driver
// ---------------------------------------------------------------------------

const TRIM_AT = 1024;

export const OPEN = 0;
export const CLOSE = 1;

export const MISSING_PREFIX =
  "ResponseParser/parse_response requires `prefix` (the chat prompt sent to the model before generation): " +
  "chat templates often pre-write part of the assistant message (e.g. an opening `<think>`). If the generation " +
  'already holds the whole message, pass prefix="" to opt out.';

/**
 * Streaming response parser over a template's tables (`spec`: fields,
 * implicit, watch, startAnchor, defaults), set by the generated module.
 */
export class StreamParser {
  // prefix None: ValueError; an exception here is one at construction [error.at-init,
  // error.init.prefix-none]
  constructor(spec, prefix, { tools = null } = {}) {
    if (prefix === null || prefix === undefined) throw new ValueError(MISSING_PREFIX);
    if (typeof prefix !== "string") throw new TypeError_(`prefix must be a str, got ${typeName(prefix)}`);
    this._spec = spec;
    this._toolParams = toolParameters(tools);
    this._buf = "";
    this._pos = 0;
    this._memo = new Map(); // delimiter -> its last search (see _scan)
    // [template.defaults]
    this._output = deepCopy(spec.defaults);
    this._enterImplicit();
    this._captures = {};
    this._body = [];
    this._opened = false;
    this._finalized = false;
    /** Events from the part of the turn the prompt prefilled. */
    this.initialEvents = [];
    // "" opts out; else the text after the last start anchor match (all of it
    // when none) is processed like output, its events the initial events, a
    // partial delimiter at its end held for the first feed [prefix.empty,
    // prefix.one-anchor, prefix.last-anchor, prefix.no-anchor,
    // prefix.nothing-after-anchor, prefix.events, prefix.held-back]
    if (prefix) {
      const end = lastAnchorEnd(spec.startAnchor, prefix);
      const text = end < 0 ? prefix : prefix.slice(end);
      if (text) {
        this._buf = text;
        this._process(this.initialEvents, false);
      }
    }
    this._noteHeld();
  }

  /** The named groups of the open match of the region open now (a copy). */
  get captures() {
    return { ...this._captures };
  }

  /**
   * Add generated text; return the events it completes. Without end of
   * stream: partial matching, so the message does not depend on the chunking;
   * "" processes the buffer again; an exception of a region it closes comes
   * from here [process.stream, chunking.per-character, feed.empty-chunk,
   * error.at-feed].
   */
  feed(text) {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    if (typeof text !== "string") throw new TypeError_(`can only concatenate str (not "${typeName(text)}") to str`);
    const events = [];
    const held = this._heldLead;
    if (held !== null && allLead(held, text, 0)) {
      // The held text and `text` are all of the state's hold lead (8,000
      // newline tokens in reasoning): the pending match stays where it is
      // and nothing can match, so no search runs (see _noteHeld).
      this._buf += text;
      return events;
    }
    const fast = this._spec.fast?.get(this._state);
    if (fast !== undefined && text && this._pos === this._buf.length && this._skippable(fast, text)) {
      // Nothing is held and no delimiter of this state can start in `text`
      // (the compiler's trigger analysis): it goes to the region as it is.
      this._buf += text;
      this._pos = this._buf.length;
      this._route(events, text);
      this._trim();
      this._noteHeld();
      return events;
    }
    this._buf += text;
    this._process(events, false);
    this._trim();
    this._noteHeld();
    return events;
  }

  _skippable(fast, text) {
    for (const trigger of fast.triggers) if (text.includes(trigger)) return false;
    return !inRanges(fast.leads, codePointBefore(text, text.length));
  }

  /**
   * After a search: the state's hold lead while the held text is all of it
   * (the compiler's analysis: then a delimiter that starts with an unbounded
   * repeat of it has its partial match at the read position, and text of
   * that class holding none of the trigger characters can complete no
   * match), else null.
   */
  _noteHeld() {
    const held = this._spec.holdLead?.get(this._state);
    this._heldLead = held !== undefined && allLead(held, this._buf, this._pos) ? held : null;
  }

  /**
   * Drop consumed text, keeping the `context` code points regex delimiters
   * may read behind the read position (-1: keep all). Amortised: only once
   * a kilobyte is droppable, so a feed costs no copy of the whole buffer
   * (a JavaScript string grown by `+=` is flattened when read by index).
   */
  _trim() {
    const context = this._spec.context;
    if (context < 0) return;
    // 2 * context UTF-16 units hold the last `context` code points whole:
    // a cut inside a surrogate pair only leaves half of a character no
    // delimiter reads (vectors: feat_context/long_text_of_pairs_trimmed).
    const cut = this._pos - 2 * context;
    if (cut < TRIM_AT) return;
    this._buf = this._buf.slice(cut);
    this._pos -= cut;
    this._memo.clear();
  }

  /**
   * End of generation: [message, final events]. With end of stream: plain
   * search, every complete match commits, held text is routed, the open
   * region closed [process.eos, commit.at-eos, finalize.flush-held,
   * finalize.closes-open-region, error.at-finalize].
   */
  finalize() {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    const events = [];
    this._process(events, true);
    const message = finishMessage(this._spec, this._output);
    this._output = message;
    this._finalized = true;
    return [message, events];
  }

  // -- the state machine ---------------------------------------------------

  _scan(watch, eos) {
    const buf = this._buf;
    const pos = this._pos;
    const size = buf.length;
    const fields = this._spec.fields;
    let hold = size;
    let best = null;
    for (const [kind, index, delim] of watch) {
      let start;
      let end;
      let match = null;
      if (delim instanceof Literals) {
        // Memoised while the buffer is unchanged (whole-text parsing searches
        // again after every region): a match at or after `pos`, or none from
        // an earlier position, is still the answer from `pos`.
        let found;
        const cached = this._memo.get(delim);
        if (cached !== undefined && cached.size === size && pos >= cached.pos && (cached.found === null || cached.found[0] >= pos)) {
          found = cached.found;
        } else {
          found = delim.find(buf, pos);
          this._memo.set(delim, { size, pos, found });
        }
        // A literal running into the buffer end is pending: text from there on is held
        // [hold.partial-literal, hold.text-held]
        if (found === null) {
          if (!eos) {
            const partial = delim.partialStart(buf, pos);
            if (partial >= 0 && partial < hold) hold = partial;
          }
          continue;
        }
        [start, end] = found;
        // [hold.literal-can-extend, commit.literal-at-edge]
        if (!eos && end === size && delim.growsAtEdge) {
          if (start < hold) hold = start;
          continue;
        }
      } else {
        const cached = this._memo.get(delim);
        if (
          cached !== undefined &&
          cached.size === size &&
          cached.eos === eos &&
          pos >= cached.pos &&
          (cached.match === null || cached.match.start >= pos)
        ) {
          match = cached.match;
        } else {
          match = delim.search(buf, pos, !eos);
          this._memo.set(delim, { size, eos, pos, match });
        }
        if (match === null) continue;
        start = match.start;
        end = match.end;
        // A partial match, or a complete one at the buffer end (it could still grow; a
        // zero-width one too), is pending [hold.partial-pattern, hold.pattern-at-edge,
        // hold.zero-width-at-edge]
        if (!eos && (match.partial || end === size)) {
          if (start < hold) hold = start;
          continue;
        }
      }
      if (best !== null) {
        // The leftmost match; at the same start the longest, then an open before a
        // close, then the smaller field name (Python str order) [tie.longest,
        // tie.open-before-close, tie.field-name]
        if (start > best.start) continue;
        if (start === best.start) {
          const length = cpLength(buf, start, end);
          const bestLength = cpLength(buf, best.start, best.end);
          if (length < bestLength) continue;
          if (length === bestLength) {
            if (kind > best.kind) continue;
            if (kind === best.kind && !pyLess(fields[index].name, fields[best.index].name)) continue;
          }
        }
      }
      best = { kind, index, start, end, match };
    }
    // A match at or after the earliest pending start waits [hold.blocks-commit]
    if (best !== null && best.start >= hold) best = null;
    return [best, hold];
  }

  _process(events, eos) {
    // Fields with no close have none in their watch sets (the compiler's): an
    // explicit one runs to the end, the implicit one until an open [delim.no-close]
    const watchSets = this._spec.watch;
    for (;;) {
      const [best, hold] = this._scan(watchSets.get(this._state), eos);
      if (best !== null) {
        if (best.start > this._pos) this._route(events, this._buf.slice(this._pos, best.start));
        // A match commits, a zero-width one too [delim.zero-width-match]
        this._pos = best.end;
        // An open closes the region before it (the implicit one, if it had text)
        // [implicit.closed-by-open]
        if (best.kind === OPEN) {
          this._close(events);
          this._open(events, best.index, best.match);
        } else {
          // A close's named groups never reach the scope [capture.close-groups-not-in-scope]
          const hadText = this._opened;
          this._close(events);
          // [close.zero-width-empty-stops]
          if (!hadText && best.start === best.end) break; // a zero-width close of an empty region would fire forever
        }
        continue;
      }
      if (eos) {
        if (this._pos < this._buf.length) {
          this._route(events, this._buf.slice(this._pos));
          this._pos = this._buf.length;
        }
        this._close(events);
        break;
      }
      // Text before the earliest pending start is routed; the rest waits [hold.text-held]
      if (hold > this._pos) {
        this._route(events, this._buf.slice(this._pos, hold));
        this._pos = hold;
      }
      break;
    }
  }

  _route(events, text) {
    const current = this._current;
    // No region (no implicit field): the null sink [null-sink.discard, field.no-implicit]
    if (current === null || !text) return;
    const field = this._spec.fields[current];
    // The implicit region opens with its first text [implicit.lazy-open]
    if (!this._opened) {
      events.push({ type: "region_open", field: field.name });
      this._opened = true;
    }
    this._body.push(text);
    events.push({ type: "region_chunk", field: field.name, text, dirty: field.dirty });
  }

  _enterImplicit() {
    this._current = this._spec.implicit;
    this._state = -1;
  }

  _open(events, index, match) {
    const field = this._spec.fields[index];
    this._current = index;
    this._state = index;
    this._captures = {};
    // Named groups of the open match that took part [capture.named-groups,
    // capture.unmatched-group-dropped]
    if (match !== null) {
      const groups = match.groupdict();
      for (const key of Object.keys(groups)) if (groups[key] !== null) setKey(this._captures, key, groups[key]);
    }
    this._body = [];
    this._opened = true;
    events.push({ type: "region_open", field: field.name });
  }

  _close(events) {
    const current = this._current;
    // A region that never opened emits nothing and stores nothing; the implicit
    // region is stored like any other [close.never-opened-skipped, implicit.closed]
    if (current !== null && this._opened) {
      const field = this._spec.fields[current];
      const value = storeValue(field, this._output, this._body, this._captures, this._toolParams);
      // [value.empty]
      events.push({ type: "region_close", field: field.name, value });
    }
    this._enterImplicit();
    this._captures = {};
    this._body = [];
    this._opened = false;
  }
}

/**
 * Close `field`'s region with its body pieces: parse, transform, type the
 * tool arguments, store; returns the value of this match (SPEC: closing a region).
 */
export function storeValue(field, output, body, captures, toolParams) {
  let value = field.valueOf_(body.length === 1 ? body[0] : body.join(""), captures);
  if (toolParams.size > 0) value = typeToolCalls(value, toolParams);
  // The first match as is, later ones after the separator, empty ones too
  // [join.first, join.append, join.empty-match, error.join.non-string]
  if (field.join !== null) {
    if (typeof value !== "string") {
      throw new ValueError(`Field '${field.name}': 'join' requires each match to parse to a string, got ${typeName(value)}.`);
    }
    const previous = has(output, field.name) ? output[field.name] : null;
    if (previous === null) output[field.name] = value;
    else if (typeof previous === "string") output[field.name] = previous + field.join + value;
    else throw new TypeError_(`unsupported operand type(s) for +: '${typeName(previous)}' and 'str'`);
  } else if (field.repeats) {
    // [repeats.append]
    if (!has(output, field.name)) setKey(output, field.name, []);
    const list = output[field.name];
    if (!Array.isArray(list)) throw new AttributeError(`'${typeName(list)}' object has no attribute 'append'`);
    list.push(value);
  } else {
    // [store.set, store.overwrite, store.replaces-default]
    setKey(output, field.name, value);
  }
  return value;
}

/** The message at finalize: required fields checked, empty values dropped but for defaults. */
export function finishMessage(spec, output) {
  const missing = spec.fields.filter((field) => !field.optional && !has(output, field.name));
  // [field.optional-false, field.optional-false.present, error.finalize.required-missing]
  if (missing.length > 0) {
    throw new ValueError(
      `Required response_template fields missing from parsed output: [${missing.map((f) => `'${f.name}'`).join(", ")}]`,
    );
  }
  // Keys in the order first stored (defaults first); defaults kept when empty,
  // other empty values dropped [finalize.key-order, finalize.defaults-kept-when-empty]
  const defaults = spec.defaults;
  const message = {};
  for (const key of Object.keys(output)) {
    const value = output[key];
    const empty =
      value === null ||
      value === undefined ||
      value === "" ||
      (Array.isArray(value) && value.length === 0) ||
      (isDict(value) && Object.keys(value).length === 0);
    if (has(defaults, key) || !empty) setKey(message, key, value);
  }
  return message;
}

/** Whether `text` from `from` on is all of a hold lead's class and holds none of its trigger characters. */
function allLead(held, text, from) {
  const lead = held.lead;
  for (let i = from; i < text.length; ) {
    const cp = text.codePointAt(i);
    if (!inRanges(lead, cp)) return false;
    i += cp > 0xffff ? 2 : 1;
  }
  for (const trigger of held.triggers) if (text.includes(trigger, from)) return false;
  return true;
}

function cpLength(text, start, end) {
  let count = 0;
  for (let i = start; i < end; i = nextIndex(text, i)) count++;
  return count;
}

/**
 * `parse_response` for one text or a batch (one prefix for all, or one per
 * text): each text through `whole(text, prefix, tools)` when the module
 * gives one (whole.mjs), else a parser fed once and finalized.
 */
export function runParseResponse(makeParser, text, prefix, tools, whole = null) {
  if (prefix === null || prefix === undefined) throw new ValueError(MISSING_PREFIX);
  let texts;
  let batched;
  if (typeof text === "string") {
    texts = [text];
    batched = false;
  } else if (Array.isArray(text)) {
    texts = text;
    batched = true;
  } else {
    throw new TypeError_(`parse_response expects a str or a list of str, got ${typeName(text)}`);
  }
  let prefixes;
  if (typeof prefix === "string") prefixes = texts.map(() => prefix);
  else if (Array.isArray(prefix)) {
    if (prefix.length === 0) prefixes = texts.map(() => "");
    else if (prefix.length !== texts.length) {
      throw new ValueError(
        `Got ${texts.length} response(s) but ${prefix.length} prefix(es); \`prefix\` must be one string (used for every response) or one per response.`,
      );
    } else prefixes = prefix;
  } else throw new TypeError_(`prefix must be a str or a list of str, got ${typeName(prefix)}`);
  const messages = texts.map((one, i) => {
    if (whole !== null && typeof one === "string" && typeof prefixes[i] === "string") return whole(one, prefixes[i], tools);
    const parser = makeParser(prefixes[i], tools);
    parser.feed(one);
    return parser.finalize()[0];
  });
  return batched ? messages : messages[0];
}
