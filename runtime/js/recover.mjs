// Recovery mode (`recover: true`): the streaming machine of vLLM 0.33's
// vendored interpreter (vllm/parser/chat_parsing/), on a generated module's
// tables, as runtime/recover.py does for Python (docs/recovery.md). A region
// whose value fails to parse (a KeyError, TypeError or ValueError in
// Python) ends with `region_malformed` carrying the exception (`error`, a
// PythonError), and parsing goes on; open, close and malformed events carry
// `start`/`end` (the delimiter's span in `inputText`, in code points, as
// Python indexes a string), an explicit open its named `captures`; prefix
// text held back as a possible delimiter is not repeated in a chunk; a
// malformed required field is not reported missing. The buffer is kept
// whole and every step searches: the default driver's fast paths are
// untouched. Part of the runtime (index.mjs re-exports it).

import { nextIndex } from "./regex.mjs";
import { AttributeError, KeyError, RuntimeError, TypeError_, ValueError, pyStrip, setKey } from "./pyjson.mjs";
import { deepCopy, has, isDict, pyLess, truthy, typeName } from "./content.mjs";
import { toolParameters, typeToolCalls } from "./typing.mjs";
import { Literals, MISSING_PREFIX, OPEN, lastAnchorEnd } from "./driver.mjs";

/** What a malformed region leaves in the message: nothing, or its raw text in `content`. */
export const MALFORMED_MODES = ["drop", "content"];

/** `new ResponseParser(prefix, { tools, recover: true, malformed })`: the default parser's API plus `inputText`. */
export class RecoveringParser {
  constructor(spec, prefix, { tools = null, malformed = "drop" } = {}) {
    if (!MALFORMED_MODES.includes(malformed)) {
      throw new ValueError(`malformed must be one of ['drop', 'content'], got '${malformed}'`);
    }
    if (prefix === null || prefix === undefined) throw new ValueError(MISSING_PREFIX);
    if (typeof prefix !== "string") throw new TypeError_(`prefix must be a str, got ${typeName(prefix)}`);
    this._spec = spec;
    this._content = null; // the field malformed: "content" stores into
    if (malformed === "content") {
      const index = spec.fields.findIndex((field) => field.name === "content");
      this._content = index >= 0 ? index : spec.implicit;
      if (this._content === null) throw new ValueError('malformed="content" needs a field named "content" or an implicit field');
    }
    this._toolParams = toolParameters(tools);
    this._buf = "";
    this._pos = 0;
    this._cpAt = [0, 0]; // a UTF-16 index and its code point offset (offsets only grow)
    this._output = deepCopy(spec.defaults);
    this._current = spec.implicit;
    this._state = -1;
    this._captures = {};
    this._body = [];
    this._opened = false;
    this._openStart = 0; // UTF-16 index of the current region's open delimiter
    this._finalized = false;
    this._prefixLen = 0;
    this._malformed = new Set();
    this.initialEvents = [];
    if (prefix) {
      const end = lastAnchorEnd(spec.startAnchor, prefix);
      const text = end < 0 ? prefix : prefix.slice(end);
      if (text) {
        this._buf = text;
        this._process(this.initialEvents, false);
        this._prefixLen = text.length;
      }
    }
  }

  /** The input after start-anchor truncation, which the events' offsets index (in code points). */
  get inputText() {
    return this._buf;
  }

  get captures() {
    return { ...this._captures };
  }

  feed(text) {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    if (typeof text !== "string") throw new TypeError_(`can only concatenate str (not "${typeName(text)}") to str`);
    this._buf += text;
    const events = [];
    this._process(events, false);
    return events;
  }

  finalize() {
    if (this._finalized) throw new RuntimeError("ResponseParser already finalized");
    const events = [];
    this._process(events, true);
    const output = this._output;
    const missing = this._spec.fields.filter(
      (field) => !field.optional && !has(output, field.name) && !this._malformed.has(field.name),
    );
    if (missing.length > 0) {
      throw new ValueError(
        `Required response_template fields missing from parsed output: [${missing.map((f) => `'${f.name}'`).join(", ")}]`,
      );
    }
    const defaults = this._spec.defaults;
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
    this._output = message;
    this._finalized = true;
    return [message, events];
  }

  /** The code point offset of UTF-16 index `i` of the buffer. */
  _cp(i) {
    let [at, count] = this._cpAt;
    if (i < at) [at, count] = [0, 0];
    for (; at < i; at = nextIndex(this._buf, at)) count++;
    this._cpAt = [at, count];
    return count;
  }

  _process(events, eos) {
    for (;;) {
      const best = this._scan(this._spec.watch.get(this._state), eos);
      if (best.match !== null) {
        const { kind, index, start, end, captures } = best.match;
        if (start > this._pos) this._route(events, this._buf.slice(this._pos, start));
        this._pos = end;
        if (kind === OPEN) {
          this._close(events, start, start);
          this._open(events, index, start, end, captures);
        } else {
          const hadText = this._opened;
          this._close(events, start, end);
          if (!hadText && start === end) break; // a zero-width close of an empty region would fire forever
        }
        continue;
      }
      if (eos) {
        if (this._pos < this._buf.length) {
          this._route(events, this._buf.slice(this._pos));
          this._pos = this._buf.length;
        }
        this._close(events, this._pos, this._pos);
        break;
      }
      if (best.hold > this._pos) {
        this._route(events, this._buf.slice(this._pos, best.hold));
        this._pos = best.hold;
      }
      break;
    }
  }

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
      const captures = {};
      if (delim instanceof Literals) {
        const found = delim.find(buf, pos);
        if (found === null) {
          if (!eos) {
            const partial = delim.partialStart(buf, pos);
            if (partial >= 0 && partial < hold) hold = partial;
          }
          continue;
        }
        [start, end] = found;
        if (!eos && end === size && delim.growsAtEdge) {
          if (start < hold) hold = start;
          continue;
        }
      } else {
        const match = delim.search(buf, pos, !eos);
        if (match === null) continue;
        ({ start, end } = match);
        if (!eos && (match.partial || end === size)) {
          if (start < hold) hold = start;
          continue;
        }
        const groups = match.groupdict();
        for (const key of Object.keys(groups)) if (groups[key] !== null) setKey(captures, key, groups[key]);
      }
      if (best !== null) {
        if (start > best.start) continue;
        if (start === best.start) {
          const length = cpCount(buf, start, end);
          const bestLength = cpCount(buf, best.start, best.end);
          if (length < bestLength) continue;
          if (length === bestLength) {
            if (kind > best.kind) continue;
            if (kind === best.kind && !pyLess(fields[index].name, fields[best.index].name)) continue;
          }
        }
      }
      best = { kind, index, start, end, captures };
    }
    if (best !== null && best.start >= hold) best = null;
    return { match: best, hold };
  }

  _route(events, text) {
    const current = this._current;
    if (current === null || !text) return;
    const field = this._spec.fields[current];
    if (!this._opened) {
      const at = this._cp(this._pos);
      events.push({ type: "region_open", field: field.name, start: at, end: at });
      this._opened = true;
      this._openStart = this._pos;
    }
    this._body.push(text);
    // Prefix text held back as a possible delimiter belongs to the prompt, not the chunk.
    const chunk = text.slice(Math.max(0, this._prefixLen - this._pos));
    if (chunk) events.push({ type: "region_chunk", field: field.name, text: chunk, dirty: field.dirty });
  }

  _open(events, index, start, end, captures) {
    const field = this._spec.fields[index];
    this._current = index;
    this._state = index;
    this._captures = captures;
    this._body = [];
    this._opened = true;
    this._openStart = start;
    events.push({ type: "region_open", field: field.name, start: this._cp(start), end: this._cp(end), captures });
  }

  _close(events, start, end) {
    const current = this._current;
    if (current !== null && this._opened) {
      const field = this._spec.fields[current];
      let value;
      let error = null;
      try {
        value = field.valueOf_(this._body.join(""), this._captures);
        if (this._toolParams.size > 0) value = typeToolCalls(value, this._toolParams);
        if (field.join !== null && typeof value !== "string") {
          throw new ValueError(`Field '${field.name}': 'join' requires each match to parse to a string, got ${typeName(value)}.`);
        }
      } catch (thrown) {
        if (!(thrown instanceof ValueError || thrown instanceof KeyError || thrown instanceof TypeError_)) throw thrown;
        error = thrown;
      }
      const span = { start: this._cp(start), end: this._cp(end) };
      if (error !== null) {
        this._malformed.add(field.name);
        events.push({ type: "region_malformed", field: field.name, ...span, error });
        if (this._content !== null) this._storeRaw(this._buf.slice(this._openStart, end));
      } else {
        this._store(field, value);
        events.push({ type: "region_close", field: field.name, ...span, value });
      }
    }
    this._current = this._spec.implicit;
    this._state = -1;
    this._captures = {};
    this._body = [];
    this._opened = false;
  }

  _store(field, value) {
    const output = this._output;
    if (field.join !== null) {
      const previous = has(output, field.name) ? output[field.name] : null;
      if (previous === null) setKey(output, field.name, value);
      else if (typeof previous === "string") output[field.name] = previous + field.join + value;
      else throw new TypeError_(`unsupported operand type(s) for +: '${typeName(previous)}' and 'str'`);
    } else if (field.repeats) {
      if (!has(output, field.name)) setKey(output, field.name, []);
      const list = output[field.name];
      if (!Array.isArray(list)) throw new AttributeError(`'${typeName(list)}' object has no attribute 'append'`);
      list.push(value);
    } else {
      setKey(output, field.name, value);
    }
  }

  /** malformed: "content": the raw text as one more match of the content field. */
  _storeRaw(raw) {
    const field = this._spec.fields[this._content];
    const strips = field.content === "text" && truthy(field.contentArgs.strip ?? true);
    const text = strips ? pyStrip(raw) : raw;
    if (text) this._store(field, text);
  }
}

function cpCount(text, start, end) {
  let count = 0;
  for (let i = start; i < end; i = nextIndex(text, i)) count++;
  return count;
}
