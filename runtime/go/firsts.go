package rt

import "unicode/utf8"

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
	f.any = firstOf(n, f) || opensLazily(n)
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

// opensLazily: a forward match of n can reach a lazy one-character repeat
// of minimum 0 whose backtracking follows the `regex` module's tail test
// (LazyTest) before reading a character. Its partial matches need not read
// the character at the start (a[^<]*?x on "a<": a partial match at 0), so
// no first-character pruning applies to n.
func opensLazily(n *Node) bool {
	switch n.Op {
	case OpRepeat:
		if n.Lazy && n.LazyTest && n.Min == 0 {
			return true
		}
		return n.Max != 0 && opensLazily(n.Subs[0])
	case OpConcat:
		for _, sub := range n.Subs {
			if opensLazily(sub) {
				return true
			}
			var f firstChars
			if !firstOf(sub, &f) {
				return false
			}
		}
		return false
	case OpAlt:
		for _, sub := range n.Subs {
			if opensLazily(sub) {
				return true
			}
		}
		return false
	case OpGroup:
		return opensLazily(n.Subs[0])
	case OpLook:
		return !n.Behind && opensLazily(n.Subs[0])
	}
	return false
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
	re.starts.any = firstOf(re.Root, &re.starts) || opensLazily(re.Root)
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
	// A greedy repeat only: from inside a run of a lazy one the partial
	// matches need not be a subset ([^<]+?(?<=a)x on ",zb": one at 2, none at 0).
	if n.Op == OpRepeat && n.Max < 0 && !n.Lazy && n.Subs[0].Op == OpSet {
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

func sameSet(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// subsetOf: every character of the ranges a is in the ranges b (nil b: all).
func subsetOf(a, b []rune) bool {
	if b == nil {
		return true
	}
	for i := 0; i+1 < len(a); i += 2 {
		for r := a[i]; r <= a[i+1]; r++ {
			if !inSet(b, r) {
				return false
			}
		}
	}
	return true
}
