// Checks of the JavaScript runtime that neither the vectors nor the value
// fixtures can make: its JavaScript-only choices (README.md of the runtime)
// and the API's misuse errors, whose Python classes are those the generated
// Python parsers raise (tests/test_generated_api.py). Run by checks.test.mjs
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

/** [name, ({runtime, module}) -> null | what went wrong]; `module` is the generated qwen3 parser. */
export const CHECKS = [
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
];
