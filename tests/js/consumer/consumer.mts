// A small TypeScript consumer of a generated module and of the runtime:
// `tsc -p tests/js/consumer` type-checks it (tests/test_js.py).

import { ResponseParser, TEMPLATE, parseResponse } from "../../../generated/js/qwen3.mjs";
import { PythonError, ValueError, loads, type Message, type ParserEvent } from "response-template-runtime";

const parser = new ResponseParser("<|im_start|>assistant\n", { tools: null });
const events: ParserEvent[] = [...parser.initialEvents];
for (const chunk of ["<think>r</think>", "c<|im_end|>"]) events.push(...parser.feed(chunk));
const [message, finalEvents]: [Message, ParserEvent[]] = parser.finalize();
for (const event of [...events, ...finalEvents]) {
  if (event.type === "region_chunk") {
    const text: string = event.text;
    const dirty: boolean = event.dirty;
    void text, dirty;
  } else if (event.type === "region_close") {
    void event.value;
  }
}
const one: Message = parseResponse("<think>r</think>c", { prefix: "" });
const many: Message[] = parseResponse(["a", "b"], { prefix: ["", ""] });
const template: Record<string, unknown> = TEMPLATE;
try {
  parseResponse("x", { prefix: "" });
} catch (error) {
  if (error instanceof PythonError) {
    const name: string = error.pythonType;
    void name;
  }
  if (error instanceof ValueError) void error.message;
}
const value = loads('{"a": NaN}');
void message, one, many, template, value;

// The recovery mode (docs/recovery.md): the options, the spans, the malformed event.
const recovering = new ResponseParser("", { recover: true, malformed: "content" });
for (const event of recovering.feed("<tool_call>{bad}</tool_call>")) {
  if (event.type === "region_malformed") {
    const span: [number, number] = [event.start, event.end];
    const cause: string = event.error.pythonType;
    void span, cause;
  } else if (event.type === "region_open") {
    void event.captures;
  }
}
const recovered: Message = parseResponse("x", { prefix: "", recover: true, malformed: "drop" });
void recovered;
