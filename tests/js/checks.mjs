// Checks of the JavaScript runtime that neither the vectors nor the value
// fixtures can make: its JavaScript-only choices (README.md of the runtime)
// and the API's misuse errors, whose Python classes are those the generated
// Python parsers raise (tests/runtime/test_generated_api.py). Run by checks.test.mjs
// and by the mutation runner (stryker-runner.mjs); no runtime import here.

function raises(pythonType, action) {
  try {
    action();
  } catch (error) {
    return error?.pythonType === pythonType ? null : `raised ${error?.pythonType ?? error}, not ${pythonType}`;
  }
  return `raised nothing, not ${pythonType}`;
}

function equals(actual, expected) {
  return actual === expected ? null : `${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`;
}

/** Runs `body` with the runtime's searches counted: characters handed to delimiter searches, matcher attempts. */
export function countSearches(runtime, body) {
  const counts = { examined: 0, attempts: 0 };
  const { Regex, Literals } = runtime;
  const search = Regex.prototype.search;
  const attempt = Regex.prototype._attempt;
  const find = Literals.prototype.find;
  Regex.prototype.search = function (s, pos, partial) {
    counts.examined += s.length - pos;
    return search.call(this, s, pos, partial);
  };
  Regex.prototype._attempt = function (s, p, partial) {
    counts.attempts += 1;
    return attempt.call(this, s, p, partial);
  };
  Literals.prototype.find = function (buf, pos) {
    counts.examined += buf.length - pos;
    return find.call(this, buf, pos);
  };
  try {
    body();
  } finally {
    Regex.prototype.search = search;
    Regex.prototype._attempt = attempt;
    Literals.prototype.find = find;
  }
  return counts;
}

/**
 * A run of `count` newline tokens after `prompt` and `lead`, then "Done.":
 * what the run and its release cost in searches, or what went wrong.
 * Before the hold-lead path every newline searched the whole held run
 * (quadratic); a search over the run tried each of its positions.
 */
export function heldRunProblem(runtime, module, prompt, lead, count = 2000) {
  const parser = new module.ResponseParser(prompt);
  const events = lead ? [...parser.feed(lead)] : [];
  const run = countSearches(runtime, () => {
    for (let i = 0; i < count; i++) events.push(...parser.feed("\n"));
  });
  if (run.examined > 20 * count) return `${run.examined} characters searched while ${count} newlines were held`;
  const release = countSearches(runtime, () => {
    events.push(...parser.feed("Done."));
    events.push(...parser.finalize()[1]);
  });
  if (release.attempts > 100) return `${release.attempts} match attempts over the run and its end`;
  const whole = new module.ResponseParser(prompt);
  const expected = [...whole.feed(`${lead}${"\n".repeat(count)}Done.`), ...whole.finalize()[1]];
  return equals(JSON.stringify(mergeChunks(events)), JSON.stringify(mergeChunks(expected)));
}

/** Events with consecutive chunks of one region merged (feeds split them differently). */
function mergeChunks(events) {
  const out = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === "region_chunk" && last?.type === "region_chunk" && last.field === event.field) {
      out[out.length - 1] = { ...last, text: last.text + event.text };
    } else {
      out.push({ ...event });
    }
  }
  return out;
}

/** [name, ({runtime, module}) -> null | what went wrong]; `module` is the generated qwen3 parser. */
export const CHECKS = [
  // A held whitespace run costs a flat amount per token (bookkeeping, not
  // time; tests/js/held-run.test.mjs has deepseek_v31 and gpt_oss too).
  ["a newline run held in content is not searched per token", ({ runtime, module }) =>
    heldRunProblem(runtime, module, "<|im_start|>assistant\n", "Some text.")],
  ["a newline run held in reasoning is not searched per token", ({ runtime, module }) =>
    heldRunProblem(runtime, module, "<|im_start|>assistant\n<think>\n", "")],
  // dumps(value, {ensureAscii: false}) keeps text readable (the web page) and valid
  // UTF-8: unlike Python, it escapes lone surrogates and DEL.
  ["dumps without ensureAscii escapes lone surrogates and DEL", ({ runtime }) =>
    equals(runtime.dumps("a\ud800b\udc00\x7f\u00e9\ud83d\ude00", { ensureAscii: false }), '"a\\ud800b\\udc00\\u007f\u00e9\ud83d\ude00"')],
  ["dumps without ensureAscii: pairs at the ends of the surrogate ranges stay, lone halves are escaped", ({ runtime }) =>
    equals(
      runtime.dumps("\ud800\udc00\udbff\udfffx\udfff\udbff\ue000x\ue000", { ensureAscii: false }),
      '"\ud800\udc00\udbff\udfffx\\udfff\\udbff\ue000x\ue000"',
    )],
  ["dumps without ensureAscii: a low surrogate after a pair is lone", ({ runtime }) =>
    equals(runtime.dumps("\ud83d\ude00\udc00", { ensureAscii: false }), '"\ud83d\ude00\\udc00"')],
  // Regexes in content_args are compiled by the compiler and registered by the
  // generated module; one that was not is refused, not interpreted.
  ["xml-inline refuses a tag_pattern not compiled ahead of time", ({ runtime }) =>
    raises("ValueError", () => runtime.parseContent("<a>1</a>", "xml-inline", { tag_pattern: "<(?P<key>never-registered)>" }))],
  ["feed after finalize", ({ module }) => {
    const parser = new module.ResponseParser("");
    parser.finalize();
    return raises("RuntimeError", () => parser.feed("x"));
  }],
  ["finalize twice", ({ module }) => {
    const parser = new module.ResponseParser("");
    parser.finalize();
    return raises("RuntimeError", () => parser.finalize());
  }],
  ["feed a number", ({ module }) => raises("TypeError", () => new module.ResponseParser("").feed(5))],
  ["a number as prefix", ({ module }) => raises("TypeError", () => new module.ResponseParser(5))],
  ["a missing prefix", ({ module }) => raises("ValueError", () => new module.ResponseParser(null))],
  ["parseResponse without a prefix", ({ module }) => raises("ValueError", () => module.parseResponse("x"))],
  ["parseResponse of a number", ({ module }) => raises("TypeError", () => module.parseResponse(5, { prefix: "" }))],
  ["parseResponse with a number as prefix", ({ module }) => raises("TypeError", () => module.parseResponse("x", { prefix: 5 }))],
  ["no prefix at all", ({ module }) => raises("ValueError", () => new module.ResponseParser())],
  ["parseResponse with a null prefix", ({ module }) => raises("ValueError", () => module.parseResponse("x", { prefix: null }))],
  ["parseResponse with a list of prefixes of another length", ({ module }) =>
    raises("ValueError", () => module.parseResponse(["x", "y"], { prefix: ["", "", " "] }))],
  ["parseResponse with a list holding a number as prefix", ({ module }) => raises("TypeError", () => module.parseResponse("x", { prefix: [5] }))],
  // Expected values: the generated Python parser's parse_response.
  ["parseResponse of one text is one message", ({ module }) =>
    equals(JSON.stringify(module.parseResponse("a</think>b", { prefix: "" })), '{"role":"assistant","content":"a</think>b"}')],
  ["parseResponse of a list, one prefix for all", ({ module }) =>
    equals(
      JSON.stringify(module.parseResponse(["a</think>b", "c"], { prefix: "<think>" })),
      '[{"role":"assistant","reasoning_content":"a","content":"b"},{"role":"assistant","reasoning_content":"c"}]',
    )],
  ["parseResponse of a list, one prefix each", ({ module }) =>
    equals(
      JSON.stringify(module.parseResponse(["a</think>b", "a</think>b"], { prefix: ["<think>", ""] })),
      '[{"role":"assistant","reasoning_content":"a","content":"b"},{"role":"assistant","content":"a</think>b"}]',
    )],
  ["parseResponse of a list, an empty list of prefixes", ({ module }) =>
    equals(JSON.stringify(module.parseResponse(["x", "y"], { prefix: [] })), '[{"role":"assistant","content":"x"},{"role":"assistant","content":"y"}]')],
  ["parseResponse of an empty list", ({ module }) => equals(JSON.stringify(module.parseResponse([], { prefix: [] })), "[]")],
  // ResponseParser.captures: the named groups of the open match, as a copy.
  ["captures of the open region", ({ runtime }) => {
    const { Field, Literals, OPEN, CLOSE, Regex, StreamParser } = runtime;
    const open = new Regex("<(?P<name>[a-z]+)>", [1, [[0, [60, 60]], [3, 1, "name", [4, 1, -1, 0, [0, [97, 122]]]], [0, [62, 62]]]]);
    const close = new Literals(["</c>"]);
    const spec = {
      fields: [new Field("call", { open, close })],
      implicit: null,
      defaults: {},
      startAnchor: new Literals(["<s>"]),
      context: 1,
      watch: new Map([[-1, [[OPEN, 0, open]]], [0, [[CLOSE, 0, close]]]]),
    };
    const parser = new StreamParser(spec, "");
    const before = JSON.stringify(parser.captures);
    parser.feed("<ab>x");
    const copy = parser.captures;
    copy.name = "changed";
    return equals(`${before} ${JSON.stringify(copy)} ${JSON.stringify(parser.captures)}`, '{} {"name":"changed"} {"name":"ab"}');
  }],
  // Literal delimiters holding lone surrogates: Python's code points, where a
  // UTF-16 string holds a pair (expected values: the regex module's search).
  ["a literal's prefix after a lone high surrogate", ({ runtime }) => equals(new runtime.Literals(["<tool>"]).partialStart("x\ud800<tool", 0), 2)],
  ["a literal's prefix after a lone high surrogate, at a character above the surrogates", ({ runtime }) =>
    equals(new runtime.Literals(["\ue000x"]).partialStart("a\ud800\ue000", 0), 2)],
  ["no literal prefix at the low half of a pair", ({ runtime }) =>
    equals(
      ["a\ud800\udc00", "a\udbff\udc00"].map((text) => new runtime.Literals(["\udc00x"]).partialStart(text, 0)).join() +
        new runtime.Literals(["\udfffx"]).partialStart("a\udbff\udfff", 0),
      "-1,-1-1",
    )],
  ["a literal's prefix at a lone low surrogate", ({ runtime }) =>
    equals(["a\udc00", "a\udc00\udc00"].map((text) => new runtime.Literals(["\udc00x"]).partialStart(text, 0)).join(), "1,2")],
  ["no literal match inside a pair", ({ runtime }) =>
    equals(
      JSON.stringify([
        new runtime.Literals(["\udc00x"]).find("\ud800\udc00x\udc00x", 0),
        new runtime.Literals(["a\ud800"]).find("a\ud800\udc00a\ud800", 0),
        new runtime.Literals(["\udc00x"]).find("\ud800\udc00x", 0),
      ]),
      "[[3,5],[3,5],null]",
    )],
];
