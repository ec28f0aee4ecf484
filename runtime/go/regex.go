package rt

import (
	"strings"
	"unicode/utf8"
)

// Op is the kind of a regex node. Patterns are parsed by the compiler
// (compiler/regex) and emitted as node trees; character classes arrive as
// code point ranges read off Python's `regex` module, so classes and case
// folding are the reference's by construction.
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

	first *firstChars // what a forward match of the node reads first (set by prepare)
	// possessive, on a greedy one-character repeat in a sequence: what
	// follows it must first read a character it cannot (mustReadOutside).
	possessive bool
	lead       string // a literal every forward match of the node starts with ("": none)
}

// cannotStart: a forward match of n cannot start at i (it must read a
// character that cannot begin it, or its leading literal is not there).
func (m *machine) cannotStart(n *Node, i int) bool {
	if n.first == nil {
		return false
	}
	if lit := n.lead; lit != "" {
		rest := m.text[i:]
		if len(rest) >= len(lit) {
			return rest[:len(lit)] != lit
		}
		return !m.partial || rest != lit[:len(rest)]
	}
	return n.first.excludes(m.text, i)
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

type machine struct {
	text    string
	partial bool
	hit     bool // a partial match: reading ran into the end of the text
	caps    []int
	end     int
	accept  func(int) bool
	start   int // where the current attempt started
	noEmpty int // finditer: no empty match may start here (-1: none)
	behind  int // look-behinds entered: reading the end of the text there is no partial match
	named   bool
}

// reset readies a (reused) machine for re on text.
func (m *machine) reset(re *Regex, text string) {
	m.text, m.partial, m.hit, m.named = text, false, false, re.hasNames()
	if cap(m.caps) < 2*len(re.Names) {
		m.caps = make([]int, 2*len(re.Names))
	}
	m.caps = m.caps[:2*len(re.Names)]
	if m.accept == nil {
		m.noEmpty = -1
		m.accept = func(j int) bool {
			if j == m.start && m.start == m.noEmpty {
				return false
			}
			m.end = j
			return true
		}
	}
}

// span is a match as the search loops pass it around (no allocation for
// partial matches, which are never committed); caps only for complete ones.
type span struct {
	start, end int
	partial    bool
	ok         bool
	caps       []int
}

func (m *machine) complete(start int) span {
	if !m.named {
		return span{start: start, end: m.end, ok: true} // only names read the offsets
	}
	return span{start: start, end: m.end, ok: true, caps: append([]int(nil), m.caps...)}
}

func (m *machine) partialAt(start int) span {
	return span{start: start, end: len(m.text), partial: true, ok: true}
}

func (sp span) toMatch(re *Regex, text string) *Match {
	if !sp.ok {
		return nil
	}
	return &Match{Start: sp.start, End: sp.end, Partial: sp.partial, caps: sp.caps, re: re, text: text}
}

func inSet(set []rune, r rune) bool {
	lo, hi := 0, len(set)/2
	for lo < hi {
		mid := (lo + hi) / 2
		if r < set[2*mid] {
			hi = mid
		} else if r > set[2*mid+1] {
			lo = mid + 1
		} else {
			return true
		}
	}
	return false
}

func isWordAt(text string, i int, before bool) bool {
	var r rune
	if before {
		if i == 0 {
			return false
		}
		r, _ = utf8.DecodeLastRuneInString(text[:i])
	} else {
		if i >= len(text) {
			return false
		}
		r, _ = utf8.DecodeRuneInString(text[i:])
	}
	return inSet(wordSet, r)
}

func (m *machine) assert(kind byte, i int) bool {
	text := m.text
	switch kind {
	case '^', 'A':
		return i == 0
	case '$':
		return i == len(text) || (i == len(text)-1 && text[i] == '\n')
	case 'Z':
		return i == len(text)
	case 'L':
		return i == 0 || text[i-1] == '\n'
	case 'E':
		return i == len(text) || text[i] == '\n'
	case 'b':
		return isWordAt(text, i, true) != isWordAt(text, i, false)
	case 'B':
		return isWordAt(text, i, true) == isWordAt(text, i, false)
	}
	return false
}

// step matches one literal or set node at i; -1 when it does not match.
// Forward reading at the end of the text in partial mode sets m.hit.
func (m *machine) step(n *Node, i int, back bool) int {
	text := m.text
	if n.Op == OpLit {
		lit := n.Lit
		if back {
			if i >= len(lit) && text[i-len(lit):i] == lit {
				return i - len(lit)
			}
			return -1
		}
		if len(text)-i >= len(lit) {
			if text[i:i+len(lit)] == lit {
				return i + len(lit)
			}
			return -1
		}
		if m.partial && m.behind == 0 && text[i:] == lit[:len(text)-i] {
			m.hit = true
		}
		return -1
	}
	if back {
		if i == 0 {
			return -1
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if inSet(n.Set, r) {
			return i - size
		}
		return -1
	}
	if i >= len(text) {
		if m.partial && m.behind == 0 {
			m.hit = true
		}
		return -1
	}
	c := text[i]
	if c < utf8.RuneSelf {
		if inSet(n.Set, rune(c)) {
			return i + 1
		}
		return -1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if inSet(n.Set, r) {
		return i + size
	}
	return -1
}

// run matches n at i (reading backwards inside lookbehinds) and calls k with
// each end in priority order; true stops the search (k accepted, or m.hit).
func (m *machine) run(n *Node, i int, back bool, k func(int) bool) bool {
	switch n.Op {
	case OpEmpty:
		return k(i)
	case OpLit, OpSet:
		j := m.step(n, i, back)
		if j < 0 {
			return m.hit
		}
		return k(j)
	case OpConcat:
		return m.seq(n.Subs, 0, i, back, k)
	case OpAlt:
		for _, b := range n.Subs {
			if m.run(b, i, back, k) {
				return true
			}
		}
		return false
	case OpGroup:
		if n.Group == 0 {
			return m.run(n.Subs[0], i, back, k)
		}
		g := n.Group
		return m.run(n.Subs[0], i, back, func(j int) bool {
			oldStart, oldEnd := m.caps[2*g], m.caps[2*g+1]
			if back {
				m.caps[2*g], m.caps[2*g+1] = j, i
			} else {
				m.caps[2*g], m.caps[2*g+1] = i, j
			}
			if k(j) {
				return true
			}
			m.caps[2*g], m.caps[2*g+1] = oldStart, oldEnd
			return false
		})
	case OpAssert:
		if m.assert(n.Kind, i) {
			return k(i)
		}
		return false
	case OpLook:
		if n.Behind {
			m.behind++
		}
		matched := m.run(n.Subs[0], i, n.Behind, func(int) bool { return true })
		if n.Behind {
			m.behind--
		}
		if m.hit {
			return true
		}
		if matched != n.Negative {
			return k(i)
		}
		return false
	case OpRepeat:
		body := n.Subs[0]
		if isOneChar(body) {
			return m.repeatOne(n, body, i, back, nil, 0, k)
		}
		return m.repeat(n, 0, i, back, k)
	}
	return false
}

func (m *machine) seq(items []*Node, idx int, i int, back bool, k func(int) bool) bool {
	for idx < len(items) {
		var n *Node
		if back {
			n = items[len(items)-1-idx]
		} else {
			n = items[idx]
		}
		switch n.Op {
		case OpLit, OpSet:
			i = m.step(n, i, back)
			if i < 0 {
				return m.hit
			}
			idx++
			continue
		case OpAssert:
			if !m.assert(n.Kind, i) {
				return false
			}
			idx++
			continue
		case OpLook: // zero-width with one outcome: go on in the loop
			matched := m.run(n.Subs[0], i, n.Behind, acceptAny)
			if m.hit {
				return true
			}
			if matched == n.Negative {
				return false
			}
			idx++
			continue
		case OpRepeat:
			if body := n.Subs[0]; isOneChar(body) {
				return m.repeatOne(n, body, i, back, items, idx+1, k) // no continuation closure
			}
		}
		if !back && n.first != nil {
			// A node that cannot start here fails (an optional one is
			// skipped) before any continuation is built.
			if n.Op == OpRepeat && n.Min == 0 {
				if m.cannotStart(n.Subs[0], i) {
					idx++
					continue
				}
			} else if m.cannotStart(n, i) {
				return false
			}
		}
		next := idx + 1
		if next == len(items) {
			return m.run(n, i, back, k) // the last item continues with k itself
		}
		return m.run(n, i, back, func(j int) bool { return m.seq(items, next, j, back, k) })
	}
	return k(i)
}

func acceptAny(int) bool { return true }

func isOneChar(n *Node) bool {
	return n.Op == OpSet || (n.Op == OpLit && utf8.RuneCountInString(n.Lit) == 1)
}

// repeatOne repeats a one-character body without recursion; each end goes
// on with items[next:] of the enclosing sequence, then k.
func (m *machine) repeatOne(n, body *Node, i int, back bool, items []*Node, next int, k func(int) bool) bool {
	j, count := i, 0
	for count < n.Min {
		j = m.step(body, j, back)
		if j < 0 {
			return m.hit
		}
		count++
	}
	if n.Lazy {
		for {
			if m.seq(items, next, j, back, k) {
				return true
			}
			if n.Max >= 0 && count >= n.Max {
				return false
			}
			j = m.step(body, j, back)
			if j < 0 {
				return m.hit
			}
			count++
		}
	}
	first := count
	if back && n.GiveBack != "" {
		return m.giveBack(n, body, i, func(j int) bool { return m.seq(items, next, j, back, k) })
	}
	for n.Max < 0 || count < n.Max {
		next := m.step(body, j, back)
		if next < 0 {
			if m.hit {
				return true
			}
			break
		}
		j = next
		count++
	}
	for {
		if m.seq(items, next, j, back, k) {
			return true
		}
		if count == first || n.possessive && !back && items != nil {
			return false
		}
		count--
		if back {
			_, size := utf8.DecodeRuneInString(m.text[j:])
			j += size
		} else {
			_, size := utf8.DecodeLastRuneInString(m.text[:j])
			j -= size
		}
	}
}

// giveBack is a greedy one-character repeat read backwards with a literal
// just left of it, as the `regex` module backtracks it: after the full count
// only ends of the literal are tried (nearest first); when none is left, a
// partial search reports a partial match (compiler/regex/lookbehind_partial.py).
func (m *machine) giveBack(n, body *Node, i int, k func(int) bool) bool {
	text, lit := m.text, n.GiveBack
	ends := []int{i} // ends[c]: where c iterations end
	for n.Max < 0 || len(ends)-1 < n.Max {
		j := m.step(body, ends[len(ends)-1], true)
		if j < 0 {
			break
		}
		ends = append(ends, j)
	}
	count := len(ends) - 1
	if count < n.Min {
		return false
	}
	if k(ends[count]) {
		return true
	}
	if count == n.Min {
		return false
	}
	room := ends[n.Min] // nothing is searched when the literal cannot fit before it
	for range lit {
		if room == 0 {
			return false
		}
		_, size := utf8.DecodeLastRuneInString(text[:room])
		room -= size
	}
	for c := count - 1; c >= n.Min; c-- {
		end := ends[c]
		if end < len(lit) || text[end-len(lit):end] != lit {
			continue
		}
		if k(end) {
			return true
		}
		if c == n.Min {
			return false
		}
	}
	if m.partial {
		m.hit = true
		return true
	}
	return false
}

// repeat is the general repeat; an iteration that matches nothing once the
// minimum is reached ends the repeat (as the `regex` module does).
func (m *machine) repeat(n *Node, count, i int, back bool, k func(int) bool) bool {
	if n.Max == 1 && count == 0 {
		// `?` (or `{1}`): one iteration goes on with k itself, which is what
		// the general case comes to, without building two continuations
		// per attempt.
		if n.Min == 1 {
			return m.run(n.Subs[0], i, back, k)
		}
		if n.Lazy {
			return k(i) || m.run(n.Subs[0], i, back, k)
		}
		return m.run(n.Subs[0], i, back, k) || k(i)
	}
	more := n.Max < 0 || count < n.Max
	iterate := func() bool {
		return m.run(n.Subs[0], i, back, func(j int) bool {
			if j == i && count >= n.Min {
				return k(j)
			}
			return m.repeat(n, count+1, j, back, k)
		})
	}
	if count < n.Min {
		return iterate()
	}
	if n.Lazy {
		if k(i) {
			return true
		}
		return more && iterate()
	}
	if more && iterate() {
		return true
	}
	return k(i)
}

func (m *machine) resetCaps() {
	for i := range m.caps {
		m.caps[i] = -1
	}
}

// firstLead is the class of an unbounded repeat the pattern starts with
// (the \s of \s*<tool_call>): in a run of its characters only the run's
// first position can start a match that the later ones could not.
func (re *Regex) firstLead() []rune {
	if !re.leadDone {
		re.prepare()
	}
	return re.lead
}

// firstChars is what a forward match must read first at its start: an
// ASCII bitmap plus whether a non-ASCII character may do; any is true when
// a match may start without reading (then every position is tried).
type firstChars struct {
	ascii [2]uint64
	wide  bool
	any   bool
}

// excludes reports that no match, complete or partial, starts at s: the
// pattern must read text[s] first and that character cannot begin it.
func (f *firstChars) excludes(text string, s int) bool {
	if f.any || s >= len(text) {
		return false
	}
	c := text[s]
	if c >= utf8.RuneSelf {
		return !f.wide
	}
	return f.ascii[c>>6]&(1<<(c&63)) == 0
}

// firstOf collects the characters n can read first going forward, and
// whether n can succeed without reading. A superset is always safe:
// look-behinds, negative lookaheads and assertions read nothing forward
// at the start and count as empty; a positive lookahead that must read
// stands for what follows it.
func firstOf(n *Node, f *firstChars) (nullable bool) {
	switch n.Op {
	case OpLit:
		if n.Lit == "" {
			return true
		}
		if c := n.Lit[0]; c < utf8.RuneSelf {
			f.ascii[c>>6] |= 1 << (c & 63)
		} else {
			f.wide = true
		}
		return false
	case OpSet:
		for i := 0; i+1 < len(n.Set); i += 2 {
			lo, hi := n.Set[i], n.Set[i+1]
			if hi >= utf8.RuneSelf {
				f.wide = true
				hi = utf8.RuneSelf - 1
			}
			for c := lo; c <= hi; c++ {
				f.ascii[c>>6] |= 1 << (c & 63)
			}
		}
		return false
	case OpConcat:
		for _, sub := range n.Subs {
			if !firstOf(sub, f) {
				return false
			}
		}
		return true
	case OpAlt:
		nullable := false
		for _, sub := range n.Subs {
			if firstOf(sub, f) {
				nullable = true
			}
		}
		return nullable
	case OpRepeat:
		if n.Max == 0 {
			return true
		}
		return firstOf(n.Subs[0], f) || n.Min == 0
	case OpGroup:
		return firstOf(n.Subs[0], f)
	case OpLook:
		if n.Behind || n.Negative {
			return true
		}
		return firstOf(n.Subs[0], f)
	}
	return true // OpEmpty, OpAssert
}

// annotateFirst gives every node its firstChars.
func annotateFirst(n *Node) {
	for _, sub := range n.Subs {
		annotateFirst(sub)
	}
	if n.Op == OpConcat {
		for i, sub := range n.Subs {
			if sub.Op == OpRepeat && !sub.Lazy && isOneChar(sub.Subs[0]) {
				sub.possessive = mustReadOutside(n.Subs[i+1:], sub.Subs[0])
			}
		}
	}
	f := &firstChars{}
	f.any = firstOf(n, f)
	n.first = f
	switch n.Op {
	case OpLit:
		n.lead = n.Lit
	case OpConcat:
		if len(n.Subs) > 0 {
			n.lead = n.Subs[0].lead
		}
	case OpGroup:
		n.lead = n.Subs[0].lead
	case OpRepeat:
		if n.Min > 0 {
			n.lead = n.Subs[0].lead
		}
	}
}

// mustReadOutside: matching items (forward) must first read a character
// that body cannot match, and nothing before that read can run into the
// end of the text (no lookahead or assertion; look-behinds only when they
// hold no give-back repeat).
// Then a greedy repeat of body right before items never gives characters
// back: at a shorter count, items would start reading a body character.
func mustReadOutside(items []*Node, body *Node) bool {
	var f firstChars
	nullable, clean := cleanFirst(&Node{Op: OpConcat, Subs: items}, &f)
	if nullable || !clean || f.any {
		return false
	}
	var b firstChars
	firstOf(body, &b)
	return b.ascii[0]&f.ascii[0] == 0 && b.ascii[1]&f.ascii[1] == 0 && !(b.wide && f.wide)
}

// cleanFirst is firstOf that also reports whether the first read is
// reached without a lookahead or an assertion.
func cleanFirst(n *Node, f *firstChars) (nullable, clean bool) {
	switch n.Op {
	case OpLit, OpSet:
		return firstOf(n, f), true
	case OpConcat:
		for _, sub := range n.Subs {
			nullable, clean := cleanFirst(sub, f)
			if !clean || !nullable {
				return false, clean
			}
		}
		return true, true
	case OpAlt:
		for _, sub := range n.Subs {
			subNullable, clean := cleanFirst(sub, f)
			if !clean {
				return false, false
			}
			nullable = nullable || subNullable
		}
		return nullable, true
	case OpRepeat:
		if n.Max == 0 {
			return true, true
		}
		nullable, clean := cleanFirst(n.Subs[0], f)
		return nullable || n.Min == 0, clean
	case OpGroup:
		return cleanFirst(n.Subs[0], f)
	case OpLook: // a look-behind reports no partial match unless it gives back (giveBack)
		return true, n.Behind && !givesBack(n)
	case OpEmpty:
		return true, true
	}
	return false, false // OpAssert
}

func givesBack(n *Node) bool {
	if n.GiveBack != "" {
		return true
	}
	for _, sub := range n.Subs {
		if givesBack(sub) {
			return true
		}
	}
	return false
}

// prepare computes what Search reads of the pattern; Program.Init calls it
// so parsers on several goroutines only read.
func (re *Regex) prepare() {
	re.leadDone = true
	re.starts = firstChars{}
	re.starts.any = firstOf(re.Root, &re.starts)
	annotateFirst(re.Root)
	n := re.Root
	if n.Op == OpConcat && len(n.Subs) > 0 {
		n = n.Subs[0]
	}
	re.needs = ""
	if root := re.Root; root.Op == OpConcat {
		for i := len(root.Subs) - 1; i >= 0 && re.needs == ""; i-- {
			if root.Subs[i].Op == OpLit {
				re.needs = root.Subs[i].Lit
			}
		}
	}
	if n.Op == OpRepeat && n.Max < 0 && n.Subs[0].Op == OpSet {
		re.lead = n.Subs[0].Set
	} else if lead := branchesLead(re.Root); lead != nil && subsetOf(lead, re.Entry) {
		re.lead, re.leadInside = lead, true
	}
}

// branchesLead is the lead class of an alternation whose branches either
// start with a greedy unbounded repeat of one class (maybe inside a
// positive lookahead: `(?=\s*<\|start\|>)`) or must read a character
// outside that class first, with no lookahead or assertion before that
// read (`<\|end\|>`; see cleanFirst). Inside a run of the class, a
// match (complete or partial) at a later position of the run is one of the
// first kind, and the run's start has one too; so, as for a pattern that
// starts with the repeat, only the run's start is tried (skippable). nil
// when the pattern has no such shape.
func branchesLead(root *Node) []rune {
	for root.Op == OpGroup {
		root = root.Subs[0]
	}
	if root.Op != OpAlt {
		return nil
	}
	var lead []rune
	var others []*Node
	for _, branch := range root.Subs {
		if set := repeatLead(branch); set != nil {
			if lead != nil && !sameSet(lead, set) {
				return nil
			}
			lead = set
		} else {
			others = append(others, branch)
		}
	}
	if lead == nil {
		return nil
	}
	bits := asciiBitmap(lead)
	wide := lead[len(lead)-1] >= utf8.RuneSelf
	for _, branch := range others {
		var f firstChars
		if nullable, clean := cleanFirst(branch, &f); nullable || !clean || f.any || f.ascii[0]&bits[0] != 0 || f.ascii[1]&bits[1] != 0 || f.wide && wide {
			return nil
		}
	}
	return lead
}

// repeatLead: n is (inside groups and positive lookaheads) a greedy
// unbounded repeat of a class followed by more; the class.
func repeatLead(n *Node) []rune {
	for n.Op == OpGroup || n.Op == OpLook && !n.Behind && !n.Negative {
		n = n.Subs[0]
	}
	if n.Op != OpConcat || len(n.Subs) < 2 {
		return nil
	}
	first := n.Subs[0]
	if first.Op != OpRepeat || first.Lazy || first.Max >= 0 || first.Subs[0].Op != OpSet {
		return nil
	}
	return first.Subs[0].Set
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

// Search is the `regex` module's compiled.search(text, pos, partial=...):
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
	m.partial = true
	for s := pos; ; {
		m.resetCaps()
		m.hit = false
		m.start = s
		if !re.skippable(text, pos, s, lead) && !re.starts.excludes(text, s) && re.attempted(text, s) {
			m.run(re.Root, s, false, m.accept)
		}
		if m.hit {
			return m.partialAt(s)
		}
		if s >= len(text) {
			break
		}
		_, size := utf8.DecodeRuneInString(text[s:])
		s += size
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
