// Package conformance runs conformance cases through generated parsers:
// the JSON-lines protocol of `python -m compiler conformance --lang go`, and
// the shared vectors (compiler/conformance/vectors/*.jsonl) under `go test`.
package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

// NewFunc is a generated package's New.
type NewFunc func(prefix string, opts ...rt.Option) (*rt.Parser, error)

func errorObject(stage string, index int, err error) *rt.Object {
	o := rt.NewObject()
	o.Set("stage", stage)
	o.Set("index", int64(index))
	kind := rt.PythonType(err)
	if kind == "" {
		kind = "Exception"
	}
	o.Set("type", kind)
	return o
}

// Appending makes RunCase feed with AppendFeed, one buffer reused for
// every step, instead of Feed.
var Appending bool

// RunCase runs one case ({"id", "prefix", "chunks", "tools"}, and "recover",
// "malformed" for the recovery mode) and returns
// the protocol's result object: id, initial_events, feeds, final_events,
// message, error.
func RunCase(newParser NewFunc, c *rt.Object) *rt.Object {
	out := rt.NewObject()
	id, _ := c.Get("id")
	out.Set("id", id)
	out.Set("initial_events", nil)
	feeds := []any{}
	out.Set("feeds", feeds)
	out.Set("final_events", nil)
	out.Set("message", nil)
	out.Set("error", nil)
	prefixValue, _ := c.Get("prefix")
	prefix, isString := prefixValue.(string)
	if !isString {
		// The Go API takes the prefix as a string; a missing (null) prefix is
		// the ValueError the reference raises for prefix=None.
		out.Set("error", errorObject("init", 0, rt.Errorf("ValueError", "prefix is required")))
		return out
	}
	var opts []rt.Option
	if tools, ok := c.Get("tools"); ok && tools != nil {
		list, ok := tools.([]any)
		if !ok {
			out.Set("error", errorObject("init", 0, rt.Errorf("TypeError", "tools must be a list")))
			return out
		}
		opts = append(opts, rt.WithTools(list))
	}
	if recover, ok := c.Get("recover"); ok && recover == true { // the recovery-mode vectors
		opts = append(opts, rt.WithRecover())
	}
	if mode, ok := c.Get("malformed"); ok {
		name, _ := mode.(string)
		opts = append(opts, rt.WithMalformed(name))
	}
	parser, err := newParser(prefix, opts...)
	if err != nil {
		out.Set("error", errorObject("init", 0, err))
		return out
	}
	out.Set("initial_events", parser.InitialEvents())
	chunks, _ := c.Get("chunks")
	list, _ := chunks.([]any)
	var buffer []rt.Event
	for index, chunk := range list {
		text, _ := chunk.(string)
		var events []rt.Event
		if Appending {
			buffer, err = parser.AppendFeed(buffer[:0], text)
			events = append([]rt.Event{}, buffer...) // the buffer is reused next step
		} else {
			events, err = parser.Feed(text)
		}
		if err != nil {
			out.Set("feeds", feeds)
			out.Set("error", errorObject("feed", index, err))
			return out
		}
		feeds = append(feeds, events)
	}
	out.Set("feeds", feeds)
	message, events, err := parser.Finalize()
	if err != nil {
		out.Set("error", errorObject("finalize", 0, err))
		return out
	}
	out.Set("final_events", events)
	out.Set("message", message)
	return out
}

// Serve reads cases as JSON lines and writes one result line per case. A
// case's "template" picks the parser; fallback is used when it has none.
func Serve(parsers map[string]NewFunc, fallback string, in io.Reader, out io.Writer) error {
	reader := bufio.NewReader(in)
	writer := bufio.NewWriter(out)
	defer writer.Flush()
	for {
		line, readErr := reader.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			value, err := rt.Loads(line)
			if err != nil {
				return fmt.Errorf("bad case line: %v", err)
			}
			c, ok := value.(*rt.Object)
			if !ok {
				return fmt.Errorf("a case must be a JSON object")
			}
			name := fallback
			if t, ok := c.Get("template"); ok && fallback == "" {
				name, _ = t.(string)
			}
			newParser := parsers[name]
			if newParser == nil {
				return fmt.Errorf("no parser for template %q", name)
			}
			writer.WriteString(rt.Dumps(RunCase(newParser, c)) + "\n")
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

// Expected is a vector case's recorded result, in the protocol's key order.
func Expected(c *rt.Object) *rt.Object {
	out := rt.NewObject()
	for _, key := range []string{"id", "initial_events", "feeds", "final_events", "message", "error"} {
		v, _ := c.Get(key)
		out.Set(key, v)
	}
	return out
}

// RunVectors runs every case of dir/*.jsonl whose template is in parsers
// and fails on any difference. Cases named in failuresFile must fail; a
// listed case that passes fails too. The failure-list format is the same for
// every language (compiler/conformance/README.md): one `<case id>  # reason`
// per line, an id ending in "*" naming every case that starts with the rest.
func RunVectors(t *testing.T, parsers map[string]NewFunc, dir, failuresFile string) {
	t.Helper()
	known := map[string]bool{}
	if failuresFile != "" {
		if data, err := os.ReadFile(failuresFile); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				line, _, _ = strings.Cut(line, "#")
				if line = strings.TrimSpace(line); line != "" {
					known[line] = true
				}
			}
		}
	}
	listed := func(id string) bool {
		if known[id] {
			return true
		}
		for key := range known {
			if strings.HasSuffix(key, "*") && strings.HasPrefix(id, strings.TrimSuffix(key, "*")) {
				return true
			}
		}
		return false
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no vectors in %s", dir)
	}
	ran := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			value, err := rt.Loads(line)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			c := value.(*rt.Object)
			name, _ := c.Get("template")
			newParser := parsers[name.(string)]
			if newParser == nil {
				continue
			}
			ran++
			id, _ := c.Get("id")
			want := rt.Dumps(Expected(c))
			got := rt.Dumps(RunCase(newParser, c))
			switch {
			case got != want && !listed(id.(string)):
				t.Errorf("%s differs\n  want %s\n  got  %s", id, want, got)
			case got == want && listed(id.(string)):
				t.Errorf("%s is listed in %s but passes: remove it", id, failuresFile)
			}
		}
	}
	if ran == 0 {
		t.Fatalf("no vector case matched a parser")
	}
}
