// Whole-text parsing: `parseResponse` on an output it already has whole, as
// runtime/whole.py does for Python. Part of the runtime (index.mjs
// re-exports it).
//
// By the reference's definition `parse_response(text, prefix)` is the
// prefix's tail fed as generated text, the text fed, then finalize. Fed
// whole, every step of the text that commits before the end of the stream
// commits the same at the end of it (a match more text could still change
// starts no earlier than every committable one it could displace), so the
// text is searched once, as the end of the stream: no partial matches, no
// hold-back, no events. Only the prefix's tail (the chat template's
// generation prompt after the last start anchor) is processed as a feed,
// by the streaming driver, and remembered per template when it is short
// and leaves only atoms in the message.
//
// The generated module gives, per state, its watched delimiters in the
// order the reference breaks ties (`spec.whole`, the compiler's
// State.tie_order: opens before closes, then field name): a match is kept
// only where it starts earlier or, at the same start, runs longer. Each
// delimiter remembers where it was found until the read position passes
// it (the buffer does not change, and whether a match starts at a position
// does not depend on where the search started), which keeps the parse
// linear. `spec.anchorFromEnd` (Program.anchor_from_end): the start anchor
// is one literal that cannot overlap itself, found with one lastIndexOf.

import { CLOSE, Literals, StreamParser, finishMessage, lastAnchorEnd, storeValue } from "./driver.mjs";
import { deepCopy } from "./content.mjs";
import { setKey } from "./pyjson.mjs";
import { toolParameters } from "./typing.mjs";

const TAIL_LIMIT = 256; // prefix tails up to this long are remembered (see tailState)
const TAILS_KEPT = 64; // per template

/** The text after the last match of the start anchor in `prefix` (all of it when none) [prefix.last-anchor]. */
function tailOf(spec, prefix) {
  if (!prefix) return "";
  const plan = wholePlan(spec);
  if (plan.anchor !== null) {
    const at = prefix.lastIndexOf(plan.anchor);
    return at < 0 ? prefix : prefix.slice(at + plan.anchor.length);
  }
  const end = lastAnchorEnd(spec.startAnchor, prefix);
  return end < 0 ? prefix : prefix.slice(end);
}

/**
 * Per template, once: the watch lists in tie order with a memo slot per
 * entry, the anchor literal (when found from the end), remembered tails.
 */
function wholePlan(spec) {
  if (spec._whole !== undefined) return spec._whole;
  let slots = 0;
  const states = new Map();
  for (const [key, watch] of spec.whole) {
    states.set(
      key,
      watch.map(([kind, index, delim]) => ({ kind, index, delim, literal: delim instanceof Literals, slot: slots++ })),
    );
  }
  let anchor = null;
  if (spec.anchorFromEnd) {
    const literal = spec.startAnchor.literals[0];
    // A surrogate at either edge could match half of a pair, which
    // Literals.find skips: those anchors take the left-to-right scan.
    if (!/^[\ud800-\udfff]|[\ud800-\udfff]$/.test(literal)) anchor = literal;
  }
  spec._whole = { states, slots, anchor, tails: new Map() };
  return spec._whole;
}

function isAtom(value) {
  return value === null || typeof value !== "object";
}

/**
 * The prefix's tail as the reference feeds it (not at the end of the
 * stream), by the streaming driver: {state, current, pos, body, captures,
 * opened}, its stores made in `output`. Remembered for short tails that
 * leave only atoms (a tail is the same generation prompt on every request;
 * never keyed by the model's output).
 */
function tailState(spec, tail, output, params) {
  const plan = wholePlan(spec);
  const known = plan.tails.get(tail);
  if (known !== undefined) {
    for (const [key, value] of known.stored) setKey(output, key, value);
    return { ...known.state, body: [...known.state.body], captures: { ...known.state.captures } };
  }
  const parser = new StreamParser(spec, "");
  parser._toolParams = params;
  parser._output = output;
  const before = { ...output };
  parser._buf = tail;
  parser._process(parser.initialEvents, false);
  const state = {
    state: parser._state,
    current: parser._current,
    pos: parser._pos,
    body: parser._body,
    captures: parser._captures,
    opened: parser._opened,
  };
  if (
    tail.length <= TAIL_LIMIT &&
    plan.tails.size < TAILS_KEPT &&
    Object.values(output).every(isAtom) &&
    Object.values(state.captures).every(isAtom)
  ) {
    const stored = Object.keys(output)
      .filter((key) => !Object.hasOwn(before, key) || before[key] !== output[key])
      .map((key) => [key, output[key]]);
    plan.tails.set(tail, { state: { ...state, body: [...state.body], captures: { ...state.captures } }, stored });
  }
  return state;
}

/** One whole output into its message (the module's `parseResponse` for one string). */
export function parseWhole(spec, text, prefix, tools) {
  const plan = wholePlan(spec);
  const params = toolParameters(tools);
  const output = deepCopy(spec.defaults);
  const fields = spec.fields;
  const implicit = spec.implicit;
  const tail = tailOf(spec, prefix);
  let state = -1;
  let current = implicit;
  let pos = 0;
  let body = [];
  let captures = {};
  let opened = false;
  let buf = text;
  if (tail) {
    ({ state, current, pos, body, captures, opened } = tailState(spec, tail, output, params));
    buf = tail + text;
  }
  // Where each delimiter was found: -2 before its first search, -1 nowhere.
  const starts = new Array(plan.slots).fill(-2);
  const ends = new Array(plan.slots).fill(-1);
  const matches = new Array(plan.slots).fill(null);
  for (;;) {
    let start = -1;
    let end = -1;
    let best = null;
    for (const entry of plan.states.get(state)) {
      const slot = entry.slot;
      let at = starts[slot];
      if (at < pos && at !== -1) {
        if (entry.literal) {
          const found = entry.delim.find(buf, pos);
          at = found === null ? -1 : found[0];
          ends[slot] = found === null ? -1 : found[1];
        } else {
          const match = entry.delim.search(buf, pos, false);
          at = match === null ? -1 : match.start;
          ends[slot] = match === null ? -1 : match.end;
          matches[slot] = match;
        }
        starts[slot] = at;
      }
      // The leftmost match; at the same start the longest; then the tie
      // order [tie.longest, tie.open-before-close, tie.field-name]
      if (at >= 0 && (start < 0 || at < start || (at === start && ends[slot] - at > end - start))) {
        start = at;
        end = ends[slot];
        best = entry;
      }
    }
    if (best === null) {
      // The end of the stream: the rest goes to the current region, which closes
      if (current !== null) {
        if (pos < buf.length) {
          body.push(pos ? buf.slice(pos) : buf);
          opened = true;
        }
        if (opened) storeValue(fields[current], output, body, captures, params);
      }
      break;
    }
    if (start > pos && current !== null) {
      body.push(buf.slice(pos, start));
      opened = true;
    }
    pos = end;
    const hadText = opened;
    if (current !== null && opened) storeValue(fields[current], output, body, captures, params);
    body = [];
    opened = false;
    captures = {};
    if (best.kind === CLOSE) {
      current = implicit;
      state = -1;
      // [close.zero-width-empty-stops]
      if (!hadText && start === end) break;
      continue;
    }
    current = state = best.index;
    opened = true;
    const match = best.literal ? null : matches[best.slot];
    if (match !== null) {
      const groups = match.groupdict();
      for (const key of Object.keys(groups)) if (groups[key] !== null) setKey(captures, key, groups[key]);
    }
  }
  return finishMessage(spec, output);
}
