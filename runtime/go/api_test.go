package rt_test

import (
	"encoding/json"
	"strings"
	"testing"

	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

// The Go-only API (NewParser / ParseWith options and errors, marshalling of
// events and messages) on a small template, as `build --lang go` emits it
// for this source (the expected texts are the reference interpreter's
// results, json.dumps'd by Python):
//
//	{"defaults": {"role": "assistant"}, "start_anchor": "<|assistant|>",
//	 "fields": {"reasoning_content": {"open": "<think>", "close": "</think>"},
//	            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true,
//	                           "content": "json", "transform": {"type": "function", "function": "{content}"}},
//	            "content": {"close": "<|end|>", "optional": false}}}
var apiProgram = (&rt.Program{
	Name:     "api_probe",
	Defaults: "{\"role\": \"assistant\"}",
	Fields: []*rt.Field{
		{
			Name:        "reasoning_content",
			Content:     "text",
			ContentArgs: "{}",
			Optional:    true,
			Open:        &rt.Delimiter{Literals: []string{"<think>"}},
			Close:       &rt.Delimiter{Literals: []string{"</think>"}},
		},
		{
			Name:        "tool_calls",
			Content:     "json",
			ContentArgs: "{}",
			Repeats:     true,
			Optional:    true,
			Transform:   rt.TDict([]string{"type", "function"}, rt.TValue("\"function\""), rt.TPlaceholder("content")),
			Open:        &rt.Delimiter{Literals: []string{"<tool_call>"}},
			Close:       &rt.Delimiter{Literals: []string{"</tool_call>"}},
		},
		{
			Name:        "content",
			Content:     "text",
			ContentArgs: "{}",
			Close:       &rt.Delimiter{Literals: []string{"<|end|>"}},
		},
	},
	Implicit:    2,
	StartAnchor: &rt.Delimiter{Literals: []string{"<|assistant|>"}},
	States: map[int][]rt.Watch{
		-1: {{Kind: rt.Open, Field: 0}, {Kind: rt.Open, Field: 1}, {Kind: rt.Close, Field: 2}},
		0:  {{Kind: rt.Close, Field: 0}},
		1:  {{Kind: rt.Close, Field: 1}},
	},
	// As the compiler plans them (compiler/passes/state_plan.py).
	Fast: map[int]*rt.FastPath{
		-1: {Triggers: []string{"<"}},
		0:  {Triggers: []string{"<"}},
		1:  {Triggers: []string{"<"}},
	},
	Ahead: map[int]bool{-1: true, 0: true, 1: true},
}).Init()

const apiTools = `[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"b": {"type": "string"}, "n": {"type": "integer"}}}}}]`

func wantType(t *testing.T, what string, err error, pyType string) {
	t.Helper()
	if err == nil || rt.PythonType(err) != pyType {
		t.Fatalf("%s: want %s, got %v", what, pyType, err)
	}
	if !strings.HasPrefix(err.Error(), pyType+": ") {
		t.Errorf("%s: the error text %q does not start with its class", what, err.Error())
	}
}

func TestParseWithGivesTheReferenceMessageInItsKeyOrder(t *testing.T) {
	text := `<think>hmm</think>Hi <tool_call>{"name": "f", "arguments": {"b": 1, "a": [1.0, 2e16, "\u00e9\n"], "n": "7"}}</tool_call><|end|>`
	message, err := rt.ParseWith(apiProgram, text, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role": "assistant", "reasoning_content": "hmm", "content": "Hi", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"b": 1, "a": [1.0, 2e+16, "é\n"], "n": "7"}}}]}`
	if got := rt.Dumps(message); got != want {
		t.Errorf("message %s\nwant    %s", got, want)
	}
	// json.dumps(message, separators=(",", ":"), ensure_ascii=False)
	compact := `{"role":"assistant","reasoning_content":"hmm","content":"Hi","tool_calls":[{"type":"function","function":{"name":"f","arguments":{"b":1,"a":[1.0,2e+16,"é\n"],"n":"7"}}}]}`
	if got, err := json.Marshal(message); err != nil || string(got) != compact {
		t.Errorf("json.Marshal %s %v", got, err)
	}
}

func TestEventTypesNameTheReferenceEvents(t *testing.T) {
	names := map[rt.EventType]string{
		rt.RegionOpen: "region_open", rt.RegionChunk: "region_chunk", rt.RegionClose: "region_close",
		rt.RegionMalformed: "region_malformed", 0: "EventType(0)", 5: "EventType(5)",
	}
	for kind, name := range names {
		if got := kind.String(); got != name {
			t.Errorf("%d: %q, want %q", kind, got, name)
		}
	}
	p, err := rt.NewParser(apiProgram, "")
	if err != nil {
		t.Fatal(err)
	}
	events, err := p.Feed("<think>a</think>")
	if err != nil || len(events) != 3 {
		t.Fatalf("%v %v", events, err)
	}
	for i, kind := range []rt.EventType{rt.RegionOpen, rt.RegionChunk, rt.RegionClose} {
		if events[i].Type() != kind {
			t.Errorf("event %d: %v, want %v", i, events[i].Type(), kind)
		}
	}
}

// The accessors read what the marshalled events show; NewEvent builds the
// same events; the zero Event reads as empty.
func TestEventAccessors(t *testing.T) {
	p, err := rt.NewParser(apiProgram, "")
	if err != nil {
		t.Fatal(err)
	}
	events, err := p.Feed(`<tool_call>{"name": "g"}</tool_call>ok`)
	if err != nil || len(events) != 5 {
		t.Fatalf("%v %v", events, err)
	}
	want := []struct {
		kind  rt.EventType
		field string
		text  string
		dirty bool
		value string
	}{
		{rt.RegionOpen, "tool_calls", "", false, "null"},
		{rt.RegionChunk, "tool_calls", `{"name": "g"}`, true, "null"},
		{rt.RegionClose, "tool_calls", "", false, `{"type": "function", "function": {"name": "g"}}`},
		{rt.RegionOpen, "content", "", false, "null"},
		{rt.RegionChunk, "content", "ok", false, "null"},
	}
	for i, w := range want {
		e := events[i]
		if e.Type() != w.kind || e.Field() != w.field || e.Text() != w.text || e.Dirty() != w.dirty || rt.Dumps(e.Value()) != w.value {
			t.Errorf("event %d: %v %q %q %v %s", i, e.Type(), e.Field(), e.Text(), e.Dirty(), rt.Dumps(e.Value()))
		}
		var value any
		if w.kind == rt.RegionClose {
			value = e.Value()
		}
		if built := rt.NewEvent(w.kind, w.field, w.text, w.dirty, value); rt.Dumps(built) != rt.Dumps(e) {
			t.Errorf("NewEvent %d: %s, want %s", i, rt.Dumps(built), rt.Dumps(e))
		}
	}
	var zero rt.Event
	if zero.Type() != 0 || zero.Field() != "" || zero.Text() != "" || zero.Dirty() || zero.Value() != nil {
		t.Errorf("zero event: %v %q %q %v %v", zero.Type(), zero.Field(), zero.Text(), zero.Dirty(), zero.Value())
	}
}

func TestAppendFeedAppendsWhatFeedReturns(t *testing.T) {
	text := "<think>a  b\n</think>ok  <tool_call>{\"name\": \"g\"}</tool_call>  \n<|end|>"
	for _, size := range []int{1, 2, 3, 7, len(text)} {
		fed, err := rt.NewParser(apiProgram, "")
		if err != nil {
			t.Fatal(err)
		}
		appended, _ := rt.NewParser(apiProgram, "")
		var want, got []rt.Event
		buffer := []rt.Event{rt.NewEvent(rt.RegionChunk, "kept", "", false, nil)}
		for at := 0; at < len(text); at += size {
			chunk := text[at:min(at+size, len(text))]
			events, err := fed.Feed(chunk)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, events...)
			out, err := appended.AppendFeed(buffer[:1], chunk)
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Field() != "kept" {
				t.Fatalf("size %d: dst's events were overwritten", size)
			}
			got = append(got, out[1:]...)
			buffer = out // the storage is reused by the next step
		}
		if rt.Dumps(got) != rt.Dumps(want) {
			t.Errorf("size %d:\n%s\nwant %s", size, rt.Dumps(got), rt.Dumps(want))
		}
		appended.Finalize()
		if out, err := appended.AppendFeed(buffer[:1], "x"); err == nil || len(out) != 1 {
			t.Errorf("after Finalize: %v %v", out, err)
		}
	}
}

func TestEventsMarshalAsThePythonDicts(t *testing.T) {
	p, err := rt.NewParser(apiProgram, "system<|assistant|><think>a")
	if err != nil {
		t.Fatal(err)
	}
	initial := `[{"type": "region_open", "field": "reasoning_content"}, {"type": "region_chunk", "field": "reasoning_content", "text": "a", "dirty": false}]`
	if got := rt.Dumps(p.InitialEvents()); got != initial {
		t.Errorf("initial events %s", got)
	}
	events, err := p.Feed(`b</think>ok<tool_call>{"name": "g"}</tool_call><|end|>`)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type": "region_chunk", "field": "reasoning_content", "text": "b", "dirty": false}, ` +
		`{"type": "region_close", "field": "reasoning_content", "value": "ab"}, {"type": "region_open", "field": "content"}, ` +
		`{"type": "region_chunk", "field": "content", "text": "ok", "dirty": false}, {"type": "region_close", "field": "content", "value": "ok"}, ` +
		`{"type": "region_open", "field": "tool_calls"}, {"type": "region_chunk", "field": "tool_calls", "text": "{\"name\": \"g\"}", "dirty": true}, ` +
		`{"type": "region_close", "field": "tool_calls", "value": {"type": "function", "function": {"name": "g"}}}]`
	if got := rt.Dumps(events); got != want {
		t.Errorf("events %s\nwant   %s", got, want)
	}
	one := `{"type": "region_close", "field": "tool_calls", "value": {"type": "function", "function": {"name": "g"}}}`
	if got := rt.Dumps(events[len(events)-1]); got != one {
		t.Errorf("one event %s", got)
	}
	// encoding/json: the same dicts, compact (json.dumps with separators=(",", ":")).
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(events); err != nil {
		t.Fatal(err)
	}
	compact := `[{"type":"region_chunk","field":"reasoning_content","text":"b","dirty":false},` +
		`{"type":"region_close","field":"reasoning_content","value":"ab"},{"type":"region_open","field":"content"},` +
		`{"type":"region_chunk","field":"content","text":"ok","dirty":false},{"type":"region_close","field":"content","value":"ok"},` +
		`{"type":"region_open","field":"tool_calls"},{"type":"region_chunk","field":"tool_calls","text":"{\"name\": \"g\"}","dirty":true},` +
		`{"type":"region_close","field":"tool_calls","value":{"type":"function","function":{"name":"g"}}}]` + "\n"
	if out.String() != compact {
		t.Errorf("encoding/json %s\nwant          %s", out.String(), compact)
	}
	message, final, err := p.Finalize()
	if err != nil || rt.Dumps(final) != "[]" {
		t.Fatalf("finalize: %v %v", final, err)
	}
	if got := rt.Dumps(message); got != `{"role": "assistant", "reasoning_content": "ab", "content": "ok", "tool_calls": [{"type": "function", "function": {"name": "g"}}]}` {
		t.Errorf("message %s", got)
	}
	_, err = p.Feed("more")
	wantType(t, "Feed after Finalize", err, "RuntimeError")
	_, _, err = p.Finalize()
	wantType(t, "Finalize twice", err, "RuntimeError")
}

func TestToolsOptionsCastArgumentsAsTheReference(t *testing.T) {
	text := `<tool_call>{"name": "f", "arguments": {"b": 1, "a": [1.0, 2e16], "n": "7"}}</tool_call>ok<|end|>`
	want := `{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"b": 1, "a": [1.0, 2e+16], "n": 7}}}], "content": "ok"}`
	untyped := strings.Replace(want, `"n": 7`, `"n": "7"`, 1)
	tools, err := rt.Loads(apiTools)
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]rt.Option{
		"WithTools":          {rt.WithTools(tools.([]any))},
		"WithToolsJSON":      {rt.WithToolsJSON(apiTools)},
		"WithToolsJSON last": {rt.WithToolsJSON("null"), rt.WithToolsJSON(apiTools)},
	} {
		message, err := rt.ParseWith(apiProgram, text, "", opts...)
		if err != nil || rt.Dumps(message) != want {
			t.Errorf("%s: %s %v", name, rt.Dumps(message), err)
		}
	}
	for name, opts := range map[string][]rt.Option{
		"no tools":         nil,
		"null tools":       {rt.WithToolsJSON("null")},
		"empty tools":      {rt.WithToolsJSON("[]")},
		"tools then null":  {rt.WithToolsJSON(apiTools), rt.WithToolsJSON("null")},
		"nil WithTools":    {rt.WithTools(nil)},
		"tools then empty": {rt.WithTools(tools.([]any)), rt.WithTools([]any{})},
	} {
		message, err := rt.ParseWith(apiProgram, text, "", opts...)
		if err != nil || rt.Dumps(message) != untyped {
			t.Errorf("%s: %s %v", name, rt.Dumps(message), err)
		}
	}
	_, err = rt.NewParser(apiProgram, "", rt.WithToolsJSON(`[{"type": "function",`))
	wantType(t, "tools that are not JSON", err, "ValueError")
	_, err = rt.ParseWith(apiProgram, text, "", rt.WithToolsJSON(`{"type": "function"}`))
	wantType(t, "tools that are not a list", err, "TypeError")
}

func TestErrorsCarryThePythonClassFromEachStage(t *testing.T) {
	// The reference: ValueError at init (the prefix's tool call), at feed
	// (a tool call that is not JSON), at finalize (content is required).
	_, err := rt.NewParser(apiProgram, "sys<|assistant|><tool_call>{bad</tool_call>")
	wantType(t, "NewParser", err, "ValueError")
	_, err = rt.ParseWith(apiProgram, "x<|end|>", "sys<|assistant|><tool_call>{bad</tool_call>")
	wantType(t, "ParseWith, prefix", err, "ValueError")
	_, err = rt.ParseWith(apiProgram, "<tool_call>{bad</tool_call><|end|>", "")
	wantType(t, "ParseWith, feed", err, "ValueError")
	message, err := rt.ParseWith(apiProgram, "<think>x</think>", "")
	wantType(t, "ParseWith, finalize", err, "ValueError")
	if message != nil {
		t.Errorf("a failed parse returned a message: %s", rt.Dumps(message))
	}
	if !strings.Contains(err.Error(), "['content']") {
		t.Errorf("the missing field is not named: %s", err.Error())
	}
	p, _ := rt.NewParser(apiProgram, "")
	_, events, err := p.Finalize()
	wantType(t, "Finalize of nothing", err, "ValueError")
	if rt.Dumps(events) != "[]" {
		t.Errorf("events %s", rt.Dumps(events))
	}
	if rt.PythonType(json.Unmarshal([]byte("{"), new(any))) != "" {
		t.Errorf("an error that is not the runtime's has no Python class")
	}
	e := rt.Errorf("KeyError", "'%s'", "x")
	if e.Error() != "KeyError: 'x'" {
		t.Errorf("Error() = %q", e.Error())
	}
}
