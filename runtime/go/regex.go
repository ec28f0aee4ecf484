package rt

import (
	"strings"
	"unicode/utf8"
)

// Op is the kind of a regex node. Patterns are parsed by the compiler
// (compiler/regex) and emitted as node trees; character classes arrive as
// code point ranges read off Python's `regex` module, so classes and case
// folding are the reference's by construction (`.` takes every character:
// DOTALL) [regex.unicode-word, regex.dotall].
type Op uint8

// Regex node kinds.
const (
	OpEmpty  Op = iota
	OpLit       // Lit: a run of literal characters
	OpSet       // Set: one character in the ranges
	OpConcat    // Subs in order
	OpAlt       // Subs in priority order
	OpRepeat    // Subs[0] repeated Min..Max times (Max < 0: unbounded), Lazy
	OpGroup     // Subs[0]; Group > 0 captures
	OpAssert    // Kind: '^' '$' 'A' (\A) 'Z' (\Z) 'b' (\b) 'B' (\B) 'L' ((?m)^) 'E' ((?m)$)
	OpLook      // Subs[0] as lookahead / lookbehind (Behind), maybe Negative
)

// Node is one node of a regex tree.
type Node struct {
	Op       Op
	Lit      string
	Set      []rune // sorted inclusive ranges: lo, hi, lo, hi, ...
	Subs     []*Node
	Min, Max int
	Lazy     bool
	Group    int
	Kind     byte
	Behind   bool
	Negative bool
	// GiveBack, on a greedy one-character repeat inside a look-behind: the
	// literal just left of it, which the `regex` module searches for when
	// the repeat gives characters back (compiler/regex/lookbehind_partial.py).
	GiveBack string
	// LazyTest, on a lazy one-character repeat read forwards: backtrack it
	// as the `regex` module does, by the literal LazyTail its tail's test
	// reads ("": the test is no literal), which decides where it reports
	// partial matches (compiler/regex/lazy_partial.py).
	LazyTest bool
	LazyTail string
	// LazyFold, when the tail's test ignores case: the cases of each of its
	// characters (sorted inclusive ranges), read instead of LazyTail.
	LazyFold [][]rune

	first *firstChars // what a forward match of the node reads first (set by prepare)
	// possessive, on a greedy one-character repeat in a sequence: what
	// follows it must first read a character it cannot (mustReadOutside).
	possessive bool
	lead       string // a literal every forward match of the node starts with ("": none)
}

// Regex is a compiled pattern: DOTALL, as templates use them ((?m) anchors are their own kinds).
type Regex struct {
	Source string
	Root   *Node
	Names  []string // Names[g]: the name of group g ("" when unnamed); Names[0] unused
	// Entry: the characters at which the `regex` module attempts a match
	// (nil: any); a partial search attempts nowhere else, which decides
	// where a look-behind's partial match can appear.
	Entry []rune
	// LazyOpen: an attempt can open with a lazy one-character repeat of
	// minimum 0 (compiler/regex/lazy_partial.py opens_lazily): a partial
	// search attempts at every position Entry allows. LazyLead, LazyMax: such
	// a repeat that is the pattern's first node when Entry is nil (lazy_lead):
	// after a failed attempt at p the module skips the run of LazyLead
	// characters from p unless it is LazyMax long (-1: unbounded), and a run
	// reaching the end of the text makes a partial match at p.
	LazyOpen bool
	LazyLead []rune
	LazyMax  int
	// Required: set when the module's required string decides where its
	// partial search attempts (required.go).
	Required *Required

	lead     []rune
	leadDone bool
	// leadInside: lead was read off an alternation's branches (branchesLead)
	leadInside bool
	starts     firstChars // the characters a match can start reading at
	// needs: a literal every complete match reads (the last literal of the
	// top-level sequence; "": none). Where it does not occur at or after a
	// start, no complete match starts there: a held tool-call header that
	// has not reached its closing literal is then only tried for a partial
	// match, not backtracked through for a complete one at every token.
	needs string
}

// mayComplete: a complete match may start at s (see needs).
func (re *Regex) mayComplete(text string, s int) bool {
	return re.needs == "" || strings.Contains(text[s:], re.needs)
}

// lastStart is the last place a complete match may start (see needs), or
// len(text).
func (re *Regex) lastStart(text string) int {
	if re.needs == "" {
		return len(text)
	}
	return strings.LastIndex(text, re.needs)
}

// Match is one match: byte offsets, Partial when it ran into the end of text.
type Match struct {
	Start, End int
	Partial    bool
	caps       []int
	re         *Regex
	text       string
}

// Group returns the text of a named group and whether it took part.
func (m *Match) Group(name string) (string, bool) {
	if m.caps == nil {
		return "", false
	}
	for g, n := range m.re.Names {
		if n == name && g > 0 && m.caps[2*g] >= 0 {
			return m.text[m.caps[2*g]:m.caps[2*g+1]], true
		}
	}
	return "", false
}

// hasNames: some group has a name (else a match needs no group offsets:
// only names read them).
func (re *Regex) hasNames() bool {
	for g, name := range re.Names {
		if g > 0 && name != "" {
			return true
		}
	}
	return false
}

// HasGroup reports whether the pattern has a group of that name.
func (re *Regex) HasGroup(name string) bool {
	for g, n := range re.Names {
		if g > 0 && n == name {
			return true
		}
	}
	return false
}

// Captures lists the named groups that took part, in group order.
func (m *Match) Captures() []Capture {
	var out []Capture
	if m.caps == nil {
		return nil
	}
	for g, n := range m.re.Names {
		if g > 0 && n != "" && m.caps[2*g] >= 0 {
			out = append(out, Capture{n, m.text[m.caps[2*g]:m.caps[2*g+1]]})
		}
	}
	return out
}

// Capture is one named group's text.
type Capture struct {
	Name, Value string
}

// skippable: s is inside a run of the first lead that started at or after
// pos (for a lead read off branches, text[s] is in the run too).
func (re *Regex) skippable(text string, pos, s int, lead []rune) bool {
	if lead == nil || s <= pos {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:s])
	if !inSet(lead, r) {
		return false
	}
	if re.leadInside {
		if s >= len(text) {
			return false
		}
		r, _ = utf8.DecodeRuneInString(text[s:])
		return inSet(lead, r)
	}
	return true
}

// attempted: whether the `regex` module attempts a match at s (Entry).
func (re *Regex) attempted(text string, s int) bool {
	if re.Entry == nil || s >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[s:])
	return inSet(re.Entry, r)
}

// Search is the `regex` module's compiled.search(text, pos, partial=...)
// [process.stream, process.eos, hold.partial-pattern]:
// the leftmost complete match wins; otherwise, with partial, the leftmost
// start from which matching runs into the end of the text (End = len(text)).
func (re *Regex) Search(text string, pos int, partial bool) *Match {
	return re.search(&machine{}, text, pos, partial).toMatch(re, text)
}

func (re *Regex) search(m *machine, text string, pos int, partial bool) span {
	m.reset(re, text)
	lead := re.firstLead()
	last := re.lastStart(text)
	for s := pos; s <= last; {
		m.resetCaps()
		m.start = s
		if re.skippable(text, pos, s, lead) && s != m.noEmpty || re.starts.excludes(text, s) {
			// tried from the run's start already, or no match starts here
		} else if m.run(re.Root, s, false, m.accept) {
			return m.complete(s)
		}
		if s >= len(text) {
			break
		}
		_, size := utf8.DecodeRuneInString(text[s:])
		s += size
	}
	if !partial {
		return span{}
	}
	if re.Required != nil {
		return re.searchRequired(m, text, pos)
	}
	m.partial = true
	for s := pos; ; {
		m.resetCaps()
		m.hit = false
		m.start = s
		if !re.skippable(text, pos, s, lead) && (re.LazyOpen || !re.starts.excludes(text, s)) && re.attempted(text, s) {
			m.run(re.Root, s, false, m.accept)
		}
		if m.hit {
			return m.partialAt(s)
		}
		if s >= len(text) {
			break
		}
		next := re.afterFailure(text, s)
		if next > len(text) {
			return m.partialAt(s)
		}
		s = next
	}
	return span{}
}

// FindAll is finditer: non-overlapping complete matches, left to right;
// after an empty match the next one may start at the same place only if it
// is not empty (as the `regex` module does).
func (re *Regex) FindAll(text string) []*Match {
	var out []*Match
	m := &machine{}
	m.reset(re, text)
	pos := 0
	for pos <= len(text) {
		match := re.search(m, text, pos, false).toMatch(re, text)
		m.noEmpty = -1
		if match == nil {
			break
		}
		out = append(out, match)
		pos = match.End
		if match.End == match.Start {
			m.noEmpty = pos
		}
	}
	return out
}
