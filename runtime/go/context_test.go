package rt_test

import (
	"strings"
	"testing"

	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

// A look-behind that reads across a close delimiter into the closed
// region's text: `(?<!b x</think>)<call>` opens a call unless the reasoning
// ended in "b x". The reasoning state watches a literal only, so after
// common-path tokens its general step leaves the context in the region's
// body; the implicit state's open reads it, so it must be joined back.
var behindProgram = (&rt.Program{
	Name:     "behind_probe",
	Defaults: "{}",
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
			Name:        "call",
			Content:     "text",
			ContentArgs: "{}",
			Optional:    true,
			Open: &rt.Delimiter{Regex: &rt.Regex{Source: "(?<!b x</think>)<call>", Root: &rt.Node{Op: rt.OpConcat, Subs: []*rt.Node{
				{Op: rt.OpLook, Behind: true, Negative: true, Subs: []*rt.Node{{Op: rt.OpLit, Lit: "b x</think>"}}},
				{Op: rt.OpLit, Lit: "<call>"},
			}}, Names: []string{""}}},
			Close: &rt.Delimiter{Literals: []string{"</call>"}},
		},
		{
			Name:        "content",
			Content:     "text",
			ContentArgs: "{}",
			Optional:    true,
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
	Context: 100, // more than the look-behind needs: the parser keeps it all
	// As the compiler plans them (compiler/passes/state_plan.py): the
	// reasoning and call states read nothing behind, the implicit one does.
	Fast: map[int]*rt.FastPath{
		-1: {Triggers: []string{"<"}},
		0:  {Triggers: []string{"<"}},
		1:  {Triggers: []string{"<"}},
	},
	Ahead: map[int]bool{0: true, 1: true},
}).Init()

func TestLookBehindReadsTheClosedRegionAfterCommonPathTokens(t *testing.T) {
	for _, c := range []struct {
		body, last string
		opens      bool
	}{
		{strings.Repeat("word ", 120) + "b ", "x", false},
		{strings.Repeat("word ", 120) + "b ", "y", true},
		// `<` sends a token to the general step: the look-behind reads
		// across many short texts, more than the parser notes one by one.
		{strings.Repeat("a<b ", 150), "x", false},
		{strings.Repeat("a<b ", 150), "y", true},
		{strings.Repeat("a<b ", 150) + "<", "x", true},
	} {
		last := c.last
		text := "<think>" + c.body + last + "</think><call>hi</call> ok<|end|>"
		whole, err := rt.ParseWith(behindProgram, text, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, opened := whole.Get("call"); opened != c.opens {
			t.Fatalf("%q: the reference reading: call opened %v: %s", text, opened, rt.Dumps(whole))
		}
		// Word by word, then character by character: "x" reaches the body by
		// the common path before the close's first token.
		var words []string
		for _, w := range strings.SplitAfter(text, " ") {
			if i := strings.Index(w, "</think>"); i > 0 {
				words = append(words, w[:i], w[i:])
			} else {
				words = append(words, w)
			}
		}
		for _, tokens := range [][]string{words, strings.Split(text, "")} {
			p, err := rt.NewParser(behindProgram, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, token := range tokens {
				if _, err := p.Feed(token); err != nil {
					t.Fatal(err)
				}
			}
			message, _, err := p.Finalize()
			if err != nil {
				t.Fatal(err)
			}
			if rt.Dumps(message) != rt.Dumps(whole) {
				t.Errorf("%q, %d tokens: %s\nwant %s", text[len(text)-40:], len(tokens), rt.Dumps(message), rt.Dumps(whole))
			}
		}
	}
}
