"""Mutation run of the Go runtime with gremlins (not part of the test suite:
it takes long). `nice -n 10 python tools/mutation/go_gremlins.py --workers 2 [--keep DIR]`

Builds a throwaway module whose root package is runtime/go (same module
path, so the generated packages import it unchanged), with every template
the vectors use compiled under gen/, and Go tests that run what the Python
suite checks: every vector (RunVectors) and tables of Python's json.loads,
int(), float(), str.strip and the `regex` module's partial search on the
templates' own delimiters, computed here with Python. Then runs
`gremlins unleash` there and prints its report (killed, lived, not covered,
timed out; efficacy = killed / (killed + lived)).

Needs gremlins on PATH: `go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.5.0`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "support"))

import regex  # noqa: E402

from compiler.frontend import source as sources  # noqa: E402
from compiler.backends.go import RUNTIME_DIR, RUNTIME_MODULE, package_name, render  # noqa: E402
from compiler.conformance.go import go_env  # noqa: E402
from compiler.errors import TemplateError  # noqa: E402
from compiler.pipeline import to_program  # noqa: E402

VECTORS = ROOT / "compiler" / "conformance" / "vectors"


def template_source(name: str):
    for path in (ROOT / "templates_src" / f"{name}.json", VECTORS.parent / "templates" / f"{name}.json"):
        if path.is_file():
            return sources.read(str(path))
    raise FileNotFoundError(name)


def search_table(rng: random.Random, names: list[str]) -> list[dict]:
    """The regex module's partial search on the bundled delimiters, on texts built from their pieces."""
    rows = []
    for name in names:
        program = to_program(template_source(name))
        for field in program.fields:
            for delim in (field.open, field.close):
                if delim is None or not hasattr(delim, "pattern"):
                    continue
                compiled = regex.compile(delim.pattern, regex.DOTALL)
                pieces = [delim.pattern.replace("\\", "")[i : i + 4] for i in range(0, len(delim.pattern), 3)]
                pieces += [" ", "\n", "<", "}", "]", "x", "{", '"', "</tool_call>", "<tool_call>", "é"]
                for _ in range(40):
                    text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
                    for partial in (False, True):
                        found = compiled.search(text, 0, partial=partial)
                        row = {
                            "pattern": delim.pattern,
                            "template": name,
                            "field": field.index,
                            "kind": "open" if delim is field.open else "close",
                            "text": text,
                            "partial": partial,
                        }
                        if found is None or (found.partial and found.start() == len(text)):
                            row["want"] = None
                        else:
                            row["want"] = [
                                len(text[: found.start()].encode()),
                                len(text[: found.end()].encode()),
                                found.partial,
                            ]
                        rows.append(row)
    return rows


def semantics_table() -> list[list]:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_go_backend import JSON_TEXTS, NUMBER_TEXTS, STRIP_TEXTS, python_result

    rows = []
    for op, texts in (
        ("loads", JSON_TEXTS),
        ("int", NUMBER_TEXTS),
        ("float", NUMBER_TEXTS),
        ("strip", STRIP_TEXTS + NUMBER_TEXTS),
    ):
        for text in texts:
            status, value = python_result(op, text)
            rows.append([op, text, status, json.dumps(value) if status == "ok" else value])
    return rows


TEST_GO = """package rt_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "%(module)s"
	"%(module)s/conformance"
%(imports)s)

var parsers = map[string]conformance.NewFunc{
%(entries)s}

var programs = map[string]*rt.Program{
%(programs)s}

func TestSearchTable(t *testing.T) {
	data, _ := os.ReadFile("search.json")
	var rows []struct {
		Template string
		Field    int
		Kind     string
		Text     string
		Partial  bool
		Want     []any
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		f := programs[row.Template].Fields[row.Field]
		d := f.Open
		if row.Kind == "close" {
			d = f.Close
		}
		for _, hinted := range []bool{false, true} {
			var m *rt.Match
			if hinted && d.Hint != nil {
				m = d.Regex.SearchHinted(d.Hint, row.Text, 0, row.Partial)
			} else {
				m = d.Regex.Search(row.Text, 0, row.Partial)
			}
			if m != nil && m.Partial && m.Start == len(row.Text) {
				m = nil
			}
			switch {
			case row.Want == nil && m != nil:
				t.Errorf("%%q on %%q: want no match, got %%v", d.Regex.Source, row.Text, *m)
			case row.Want != nil && (m == nil || float64(m.Start) != row.Want[0].(float64) || float64(m.End) != row.Want[1].(float64) || m.Partial != row.Want[2].(bool)):
				t.Errorf("%%q on %%q partial=%%v hinted=%%v: want %%v, got %%v", d.Regex.Source, row.Text, row.Partial, hinted, row.Want, m)
			}
		}
	}
}

func TestSemanticsTable(t *testing.T) {
	data, _ := os.ReadFile("semantics.json")
	var rows [][]string
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		op, text, status, want := row[0], row[1], row[2], row[3]
		var got any
		var err error
		switch op {
		case "loads":
			got, err = rt.Loads(text)
		case "int":
			got, err = rt.PyInt(text)
		case "float":
			var f float64
			f, err = rt.PyFloat(text)
			got = rt.Float(f)
		case "strip":
			got = rt.Strip(text)
		}
		if status != "ok" {
			if err == nil || rt.PythonType(err) != want {
				t.Errorf("%%s(%%q): want %%s, got %%v %%v", op, text, want, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%%s(%%q): %%v", op, text, err)
			continue
		}
		expected, _ := rt.Loads(want)
		if op == "float" {
			f, _ := expected.(rt.Float)
			if n, ok := expected.(int64); ok {
				f = rt.Float(n)
			}
			g := got.(rt.Float)
			if !(g == f || math.IsNaN(float64(g)) && math.IsNaN(float64(f))) {
				t.Errorf("float(%%q): want %%v, got %%v", text, f, g)
			}
			continue
		}
		if rt.Dumps(expected) != rt.Dumps(got) {
			t.Errorf("%%s(%%q): want %%s, got %%s", op, text, rt.Dumps(expected), rt.Dumps(got))
		}
	}
}

// TestVectors is conformance.RunVectors stopping at the first difference
// (one failing case kills a mutant; the rest would only cost time). It runs
// after the tables, which are cheaper.
func TestVectors(t *testing.T) {
	known := map[string]bool{}
	if data, err := os.ReadFile("%(failures)s"); err == nil {
		for _, line := range strings.Split(string(data), "\\n") {
			line, _, _ = strings.Cut(line, "#")
			if line = strings.TrimSpace(line); line != "" {
				known[line] = true
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("%(vectors)s", "*.jsonl"))
	ran := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			value, err := rt.Loads(line)
			if err != nil {
				t.Fatalf("%%s: %%v", path, err)
			}
			c := value.(*rt.Object)
			name, _ := c.Get("template")
			newParser := parsers[name.(string)]
			if newParser == nil {
				continue
			}
			ran++
			id, _ := c.Get("id")
			want := rt.Dumps(conformance.Expected(c))
			got := rt.Dumps(conformance.RunCase(newParser, c))
			if (got == want) == known[id.(string)] {
				t.Fatalf("%%s: want %%s\\n got %%s", id, want, got)
			}
		}
	}
	if ran == 0 {
		t.Fatal("no vector case matched a parser")
	}
}
"""


def build_module(folder: Path) -> None:
    (folder / "go.mod").write_text(f"module {RUNTIME_MODULE}\n\ngo 1.22\n", encoding="utf-8")
    for path in RUNTIME_DIR.glob("*.go"):
        shutil.copy(path, folder / path.name)
    shutil.copytree(RUNTIME_DIR / "conformance", folder / "conformance", dirs_exist_ok=True)
    names = sorted({json.loads(l)["template"] for p in VECTORS.glob("*.jsonl") for l in p.open()})
    imports, entries, programs, accepted = [], [], [], []
    for name in names:
        pkg = package_name(name)
        try:
            files = render(to_program(template_source(name)))
        except TemplateError as error:  # refused for Go: its vectors are listed in compiler/conformance/failures/go.txt
            print(f"skipped {name}: {error}", file=sys.stderr)
            continue
        for rel, text in files.items():
            target = folder / "gen" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        accepted.append(name)
        imports.append(f'\t"{RUNTIME_MODULE}/gen/{pkg}"\n')
        entries.append(f"\t{json.dumps(name)}: {pkg}.New,\n")
        programs.append(f"\t{json.dumps(name)}: {pkg}.Compiled(),\n")
    (folder / "python_test.go").write_text(
        TEST_GO
        % {
            "module": RUNTIME_MODULE,
            "imports": "".join(imports),
            "entries": "".join(entries),
            "programs": "".join(programs),
            "vectors": VECTORS.as_posix(),
            "failures": (ROOT / "compiler" / "conformance" / "failures" / "go.txt").as_posix(),
        },
        encoding="utf-8",
    )
    (folder / "search.json").write_text(json.dumps(search_table(random.Random(13), accepted)), encoding="utf-8")
    (folder / "semantics.json").write_text(json.dumps(semantics_table()), encoding="utf-8")


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--keep", type=Path, help="build the module in this folder and keep it")
    args.add_argument("--only-test", action="store_true", help="run go test there, no mutation")
    args.add_argument("--workers", default="1")
    args.add_argument("--timeout-coefficient", default="10", help="gremlins' timeout: this times the coverage run")
    args.add_argument("--dry-run", action="store_true", help="list the mutants and their coverage, run none")
    args.add_argument(
        "--report",
        nargs="+",
        type=Path,
        metavar="LOG",
        help="merge the output of runs (gremlins' lines and --apply's) into the score per file, "
        "with tools/mutation/go_equivalents.json left out; no run",
    )
    args.add_argument(
        "--apply",
        action="append",
        default=[],
        metavar="FILE:LINE:COL:MUTATOR",
        help="apply one mutant gremlins listed (e.g. one it could not map coverage to) "
        "to the kept module, run go test, restore the file; repeatable",
    )
    args.add_argument(
        "--files",
        help="comma-separated runtime files to mutate, each whole or a line range "
        "(value.go,match.go:100-300); default: all",
    )
    options = args.parse_args()
    if options.report:
        return report(options.report)
    folder = options.keep or Path(tempfile.mkdtemp(prefix="rtc-gremlins-"))
    folder.mkdir(parents=True, exist_ok=True)
    build_module(folder)
    env = go_env()
    test = subprocess.run(["go", "test", "./..."], cwd=folder, env=env, capture_output=True, text=True)
    print(test.stdout[-3000:], test.stderr[-3000:])
    if test.returncode != 0 or options.only_test:
        return test.returncode
    if options.apply:
        for mutant in options.apply:
            print(mutant, run_mutant(folder, mutant, env), flush=True)
        return 0
    command = [
        "gremlins",
        "unleash",
        "--workers",
        options.workers,
        "--test-cpu",
        "1",
        "--timeout-coefficient",
        options.timeout_coefficient,
    ]
    if options.dry_run:
        command.append("--dry-run")
    output = folder / "gremlins.json"
    if options.files:
        command += ["--diff", "HEAD"]
        output = folder / f"gremlins-{hashlib.sha1(options.files.encode()).hexdigest()[:10]}.json"  # names can be long
        only_files(folder, options.files.split(","))
    done = subprocess.run(command + ["--output", str(output), "."], cwd=folder, env=env)
    return done.returncode


EQUIVALENTS = Path(__file__).with_name("go_equivalents.json")
LINE = re.compile(r"(KILLED|LIVED|TIMED OUT|NOT COVERED|NOT VIABLE) (\w+) at ([\w/]+\.go):(\d+):(\d+)")
APPLIED = re.compile(r"^([\w/]+\.go):(\d+):(\d+):(\w+) (KILLED|LIVED|NOT VIABLE)$")


def report(logs: list[Path]) -> int:
    """Killed / non-equivalent per runtime file over the runs' logs; a later
    log's status for a mutant wins (a hand run of a not-covered mutant)."""
    status: dict[tuple, str] = {}
    for log in logs:
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if found := LINE.search(line):
                state, mutator, file, row, col = found.groups()
            elif found := APPLIED.match(line.strip()):
                file, row, col, mutator, state = found.groups()
            else:
                continue
            if file.startswith(("gen/", "conformance/")):
                continue  # generated packages and the test harness, not the runtime
            status[(file, int(row), int(col), mutator)] = state
    equivalent = json.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    files = sorted({key[0] for key in status})
    rows, total = [], {"killed": 0, "scored": 0}
    print("| file | killed | timed out | lived | not covered | equivalent | killed / non-equivalent |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for file in files:
        counts = {"KILLED": 0, "TIMED OUT": 0, "LIVED": 0, "NOT COVERED": 0, "NOT VIABLE": 0, "equivalent": 0}
        for key, state in status.items():
            if key[0] != file:
                continue
            name = "{}:{}:{}:{}".format(*key)
            if name in equivalent:
                counts["equivalent"] += 1
            else:
                counts[state] += 1
                if state in ("LIVED", "NOT COVERED"):
                    rows.append(f"{name} {state}")
        killed = counts["KILLED"] + counts["TIMED OUT"]
        scored = killed + counts["LIVED"] + counts["NOT COVERED"]
        total["killed"] += killed
        total["scored"] += scored
        print(
            f"| `{file}` | {counts['KILLED']} | {counts['TIMED OUT']} | {counts['LIVED']} | {counts['NOT COVERED']} "
            f"| {counts['equivalent']} | {killed} / {scored} = {100 * killed / max(scored, 1):.1f}% |"
        )
    print(
        f"| all | | | | | | {total['killed']} / {total['scored']} = {100 * total['killed'] / max(total['scored'], 1):.1f}% |"
    )
    for row in rows:
        print("not killed:", row)
    seen = {"{}:{}:{}:{}".format(*key) for key in status}
    for name in sorted(set(equivalent) - seen):
        print("equivalent entry not in these runs:", name)
    return 0


REPLACEMENTS = {
    "CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"},
    "CONDITIONALS_BOUNDARY": {"<": "<=", "<=": "<", ">": ">=", ">=": ">"},
    "ARITHMETIC_BASE": {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
    "INCREMENT_DECREMENT": {"++": "--", "--": "++"},
    "INVERT_NEGATIVES": {"-": "+"},
}


def run_mutant(folder: Path, mutant: str, env: dict) -> str:
    """Apply gremlins' mutant FILE:LINE:COL:MUTATOR by hand and run go test: KILLED, LIVED or NOT VIABLE."""
    file, line, col, mutator = mutant.split(":")
    path = folder / file
    original = path.read_text(encoding="utf-8")
    lines = original.split("\n")
    text, at = lines[int(line) - 1], int(col) - 1
    table = REPLACEMENTS[mutator]
    op = next(o for o in sorted(table, key=len, reverse=True) if text.startswith(o, at))
    lines[int(line) - 1] = text[:at] + table[op] + text[at + len(op) :]
    try:
        path.write_text("\n".join(lines), encoding="utf-8")
        done = subprocess.run(
            ["go", "test", "-count=1", "-failfast", "-timeout", "300s", "."],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        if "[build failed]" in done.stdout + done.stderr or "[setup failed]" in done.stdout + done.stderr:
            return "NOT VIABLE"
        return "KILLED" if done.returncode != 0 else "LIVED"
    finally:
        path.write_text(original, encoding="utf-8")


def only_files(folder: Path, names: list[str]) -> None:
    """Scope gremlins to whole files or line ranges: commit the module with
    those lines blank, so `--diff HEAD` sees them as changed and no line
    elsewhere."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)

    shutil.rmtree(folder / ".git", ignore_errors=True)
    ranges: dict[str, list[tuple[int, int]]] = {}
    for name in names:
        file, _, lines = name.partition(":")
        first, _, last = lines.partition("-")
        ranges.setdefault(file, []).append((int(first or 1), int(last or 10**9)))
    saved = {file: (folder / file).read_text(encoding="utf-8") for file in ranges}
    git("init", "-q")
    for file, spans in ranges.items():
        lines = saved[file].split("\n")
        blank = [("" if any(a <= n <= b for a, b in spans) else line) for n, line in enumerate(lines, 1)]
        (folder / file).write_text("\n".join(blank), encoding="utf-8")
    git("add", "-A")
    git("-c", "user.name=gremlins", "-c", "user.email=gremlins@localhost", "commit", "-q", "-m", "blank")
    for file, text in saved.items():
        (folder / file).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
