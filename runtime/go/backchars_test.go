package rt

import (
	"math/rand"
	"testing"
	"unicode/utf8"
)

// TestBackCharsCountsCharactersAsTheByteLoopDoes: the word-at-a-time count
// of backChars (and trim, which uses it) against the plain loop, on texts
// mixing one- to four-byte characters.
func TestBackCharsCountsCharactersAsTheByteLoopDoes(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	pieces := []string{"a", " ", "\n", "é", "ü", "東", "京", "🙂", "<", "x"}
	for trial := 0; trial < 2000; trial++ {
		text := ""
		for k := rng.Intn(120); k > 0; k-- {
			text += pieces[rng.Intn(len(pieces))]
		}
		pos := len(text)
		for pos > 0 && rng.Intn(4) == 0 {
			_, size := utf8.DecodeLastRuneInString(text[:pos])
			pos -= size
		}
		n := rng.Intn(70)
		want := pos
		for counted := 0; counted < n && want > 0; {
			want--
			if utf8.RuneStart(text[want]) {
				counted++
			}
		}
		if got := backChars(text, pos, n); got != want {
			t.Fatalf("backChars(%q, %d, %d) = %d, want %d", text, pos, n, got, want)
		}
	}
}
