"""Run emitted patterns in Node.js and Go, many cases per process.

Each runner takes [(source, [(text, pos), ...]), ...] and returns, per case,
either {"error": message} (the engine rejected the pattern) or one span per
text, in code points: [start, end] or None. JavaScript searches from `pos`
with lastIndex (context before it is visible, as in Python); Go's regexp has
no such call, so Go cases must use pos 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

NODE_DRIVER = r"""
const fs = require("fs");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const cp = (s) => Array.from(s).length;
const out = cases.map(([source, texts]) => {
  let re;
  try { re = new RegExp(source, "gsu"); } catch (e) { return { error: String(e) }; }
  return texts.map(([text, pos]) => {
    re.lastIndex = Array.from(text).slice(0, pos).join("").length;
    const m = re.exec(text);
    if (m === null) return null;
    return [cp(text.slice(0, m.index)), cp(text.slice(0, m.index + m[0].length))];
  });
});
process.stdout.write(JSON.stringify(out));
"""

NODE_CLASS_DRIVER = r"""
// For each class source, the code point ranges it matches (every code point tried).
const fs = require("fs");
const sources = JSON.parse(fs.readFileSync(0, "utf8"));
const out = sources.map((source) => {
  const re = new RegExp("^(?:" + source + ")$", "su");
  const ranges = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (re.test(String.fromCodePoint(code))) {
      const last = ranges[ranges.length - 1];
      if (last && last[1] === code - 1) last[1] = code; else ranges.push([code, code]);
    }
  }
  return ranges;
});
process.stdout.write(JSON.stringify(out));
"""

GO_DRIVER = r"""
package main

import (
	"encoding/json"
	"os"
	"regexp"
	"unicode/utf8"
)

type testCase struct {
	Source string   `json:"source"`
	Texts  []string `json:"texts"`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([]interface{}, len(cases))
	for i, c := range cases {
		re, err := regexp.Compile(c.Source)
		if err != nil {
			out[i] = map[string]string{"error": err.Error()}
			continue
		}
		spans := make([]interface{}, len(c.Texts))
		for j, text := range c.Texts {
			loc := re.FindStringIndex(text)
			if loc == nil {
				spans[j] = nil
				continue
			}
			spans[j] = []int{utf8.RuneCountInString(text[:loc[0]]), utf8.RuneCountInString(text[:loc[1]])}
		}
		out[i] = spans
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""

GO_CLASS_DRIVER = r"""
package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// For each class source, the code point ranges it matches (surrogates excluded:
// Go strings cannot hold them).
func main() {
	var sources []string
	if err := json.NewDecoder(os.Stdin).Decode(&sources); err != nil {
		panic(err)
	}
	var all strings.Builder
	for code := rune(0); code <= 0x10ffff; code++ {
		if code >= 0xd800 && code <= 0xdfff {
			continue
		}
		all.WriteRune(code)
	}
	text := all.String()
	out := make([][][2]rune, len(sources))
	for i, source := range sources {
		re := regexp.MustCompile("(?:" + source + ")+")
		ranges := [][2]rune{}
		for _, loc := range re.FindAllStringIndex(text, -1) {
			first, _ := utf8.DecodeRuneInString(text[loc[0]:])
			last, _ := utf8.DecodeLastRuneInString(text[:loc[1]])
			ranges = append(ranges, [2]rune{first, last})
		}
		out[i] = ranges
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def have_node() -> bool:
    return shutil.which("node") is not None


def have_go() -> bool:
    return shutil.which("go") is not None


def _run(command: list[str], payload, cwd: Path, env=None):
    result = subprocess.run(
        command, input=json.dumps(payload), capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout)


def run_node(cases, tmp: Path):
    script = tmp / "driver.js"
    script.write_text(NODE_DRIVER, encoding="utf-8")
    return _run(["node", str(script)], [[source, texts] for source, texts in cases], tmp)


def node_class_ranges(sources: list[str], tmp: Path):
    script = tmp / "classes.js"
    script.write_text(NODE_CLASS_DRIVER, encoding="utf-8")
    return _run(["node", str(script)], sources, tmp)


def _go_env():
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-buildvcs=false")
    env["GOTOOLCHAIN"] = "local"  # never download a toolchain
    env["GOPROXY"] = "off"  # standard library only: no network
    return env


def run_go(cases, tmp: Path):
    for _, texts in cases:
        assert all(pos == 0 for _, pos in texts), "Go cases search from 0"
    directory = tmp / "gomatch"
    directory.mkdir(exist_ok=True)
    (directory / "main.go").write_text(GO_DRIVER, encoding="utf-8")
    payload = [{"source": source, "texts": [text for text, _ in texts]} for source, texts in cases]
    return _run(["go", "run", "main.go"], payload, directory, _go_env())


def go_class_ranges(sources: list[str], tmp: Path):
    directory = tmp / "goclasses"
    directory.mkdir(exist_ok=True)
    (directory / "main.go").write_text(GO_CLASS_DRIVER, encoding="utf-8")
    return _run(["go", "run", "main.go"], sources, directory, _go_env())
