package rt_test

import (
	"strings"
	"testing"

	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

// The recovery mode's API beyond the recovery vectors: spans index
// InputText in characters, malformed regions keep the rest, options checked.
func TestRecoveryModeSpansAndOptions(t *testing.T) {
	if _, err := rt.NewParser(apiProgram, "", rt.WithMalformed("content")); rt.PythonType(err) != "ValueError" {
		t.Fatalf("malformed without recover: %v", err)
	}
	if _, err := rt.NewParser(apiProgram, "", rt.WithRecover(), rt.WithMalformed("keep")); rt.PythonType(err) != "ValueError" {
		t.Fatalf("unknown malformed mode: %v", err)
	}
	p, err := rt.NewParser(apiProgram, "", rt.WithRecover())
	if err != nil {
		t.Fatal(err)
	}
	events, err := p.Feed("é<think>a</think>b<tool_call>{x}</tool_call>")
	if err != nil {
		t.Fatal(err)
	}
	message, final, err := p.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.Dumps(message); got != `{"role": "assistant", "content": "b", "reasoning_content": "a"}` {
		t.Fatalf("message %s", got)
	}
	chars := []rune(p.InputText())
	var spans []string
	for _, e := range append(events, final...) {
		if start, end, ok := e.Span(); ok {
			spans = append(spans, e.Type().String()+":"+string(chars[start:end]))
		}
	}
	if got := strings.Join(spans, " "); !strings.Contains(got, "region_open:<think> region_close:</think>") {
		t.Fatalf("spans %q", got)
	}
	malformed := 0
	for _, e := range events {
		if e.Type() == rt.RegionMalformed && rt.PythonType(e.Err()) == "ValueError" {
			malformed++
		}
	}
	if malformed != 1 || !strings.Contains(strings.Join(spans, " "), "region_malformed:</tool_call>") {
		t.Fatalf("malformed %d, spans %q", malformed, spans)
	}
	if _, _, ok := events[1].Span(); ok {
		t.Fatalf("a chunk has no span")
	}
}
