package rt

import (
	"strings"
	"unicode/utf8"
)

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

// isWordAt: the character before (or at) i is in the module's Unicode \w
// [regex.unicode-word].
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
	case '^', 'A': // at the buffer's start only [regex.caret-buffer-start]
		return i == 0
	case '$': // [regex.dollar-before-final-newline]
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
	case OpLook: // [regex.lookaround]
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
	if n.Lazy && n.LazyTest && !back && m.behind == 0 {
		return m.lazyTail(n, body, i, j, count, func(j int) bool { return m.seq(items, next, j, back, k) })
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

// lazyTail is a lazy one-character repeat backtracked as the `regex` module
// does (compiler/regex/lazy_partial.py): the test is LazyTail, or when it
// ignores case the cases of each character in LazyFold; when it is one
// character, backtracking at the text's last character (or its end) makes
// a partial match whatever the body says; when it is a string, the string
// is searched for from one character on, and not finding it (ending by
// start + Max + its length) makes one; otherwise one character at a time,
// never reading at the end once the repeat got there. j is where the
// minimum count ended.
func (m *machine) lazyTail(n, body *Node, start, j, count int, k func(int) bool) bool {
	text, tail := m.text, n.LazyTail
	size := len(text)
	fold := n.LazyFold
	runes := len(fold)
	if fold == nil {
		runes = utf8.RuneCountInString(tail)
	}
	bounded := n.Max >= 0
	partial := func() bool {
		if m.partial {
			m.hit = true
			return true
		}
		return false
	}
	if k(j) {
		return true
	}
	if bounded && count >= n.Max {
		return false
	}
	if fold == nil && tail == "" {
		if j >= size {
			return partial()
		}
		for {
			next := m.step(body, j, false)
			if next < 0 {
				return false
			}
			j, count = next, count+1
			if k(j) {
				return true
			}
			if j >= size || bounded && count >= n.Max {
				return false
			}
		}
	}
	if runes == 1 {
		for {
			for {
				if j >= size {
					return partial()
				}
				if _, w := utf8.DecodeRuneInString(text[j:]); j+w >= size {
					return partial()
				}
				if bounded && count >= n.Max {
					return false
				}
				next := m.step(body, j, false)
				if next < 0 {
					return false
				}
				j, count = next, count+1
				if tailAt(text, j, tail, fold) >= 0 {
					break
				}
			}
			if k(j) {
				return true
			}
			if bounded && count >= n.Max {
				return false
			}
		}
	}
	limit := size // where an occurrence must end
	if bounded {
		limit = start
		for steps := n.Max + runes; steps > 0 && limit < size; steps-- {
			_, w := utf8.DecodeRuneInString(text[limit:])
			limit += w
		}
	}
	for {
		if j >= size {
			return partial()
		}
		_, w := utf8.DecodeRuneInString(text[j:])
		found := tailFrom(text, j+w, tail, fold)
		if found < 0 || tailAt(text, found, tail, fold) > limit {
			return partial()
		}
		for j < found {
			next := m.step(body, j, false)
			if next < 0 {
				return false
			}
			j, count = next, count+1
		}
		if k(j) {
			return true
		}
		if bounded && count >= n.Max {
			return false
		}
	}
}

// tailAt: where a lazy repeat's tail test (the literal tail, or when fold is
// set the cases of each of its characters) ends when read at i, or -1.
func tailAt(text string, i int, tail string, fold [][]rune) int {
	if fold == nil {
		if strings.HasPrefix(text[i:], tail) {
			return i + len(tail)
		}
		return -1
	}
	for _, set := range fold {
		if i >= len(text) {
			return -1
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if !inSet(set, r) {
			return -1
		}
		i += w
	}
	return i
}

// tailFrom: the first start of the tail test at or after i, or -1.
func tailFrom(text string, i int, tail string, fold [][]rune) int {
	if fold == nil {
		if found := strings.Index(text[i:], tail); found >= 0 {
			return i + found
		}
		return -1
	}
	for i < len(text) {
		if tailAt(text, i, tail, fold) >= 0 {
			return i
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
	}
	return -1
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
