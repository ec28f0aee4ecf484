package rt

import (
	"strings"
	"testing"
)

// Strings taken from an appendOnly store stay as they were through later
// writes, growth and Reset (event texts and values are cut from the body).
func TestAppendOnlyKeepsWrittenText(t *testing.T) {
	var a appendOnly
	var kept []string
	var want strings.Builder
	for i := 0; i < 200; i++ {
		piece := strings.Repeat(string(rune('a'+i%26)), 1+i%7)
		a.WriteString(piece)
		want.WriteString(piece)
		if a.String() != want.String() || a.Len() != want.Len() || a.Cap() < a.Len() {
			t.Fatalf("after %d writes: %q, want %q", i+1, a.String(), want.String())
		}
		kept = append(kept, a.String())
		if i == 100 {
			a.Reset()
			want.Reset()
			if a.String() != "" || a.Len() != 0 {
				t.Fatalf("after Reset: %q", a.String())
			}
		}
	}
	// Every kept string is a prefix of what was written since its Reset.
	first, second := kept[100], kept[199]
	for i, s := range kept {
		whole := second
		if i <= 100 {
			whole = first
		}
		if !strings.HasPrefix(whole, s) {
			t.Fatalf("kept string %d changed: %q", i, s)
		}
	}
	a.Grow(1000)
	if a.Cap()-a.Len() < 1000 || a.String() != second {
		t.Fatalf("Grow: cap %d len %d", a.Cap(), a.Len())
	}
}

func TestScratchTextReuse(t *testing.T) {
	var s scratchText
	s.WriteString("  \n")
	s.WriteString("\t")
	if s.String() != "  \n\t" || s.Len() != 4 {
		t.Fatalf("%q", s.String())
	}
	s.Reset()
	if s.String() != "" || s.Len() != 0 {
		t.Fatalf("after Reset: %q", s.String())
	}
	s.WriteString(strings.Repeat("x", 100))
	s.WriteString("y")
	if s.String() != strings.Repeat("x", 100)+"y" {
		t.Fatalf("%q", s.String())
	}
}
