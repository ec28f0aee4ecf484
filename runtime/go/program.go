package rt

import (
	"strings"
	"unicode/utf8"
)

// Message is the parsed message: a dict with the template's key order.
type Message = *Object

// Watch kinds.
const (
	Open  = 0
	Close = 1
)

// Delimiter is a field's open or close: literals (longest first) searched as
// strings, or a regex run with partial matching [delim.open.literal,
// delim.open.list, delim.open.pattern, delim.close.literal, delim.close.list,
// delim.close.pattern, start_anchor.literal, start_anchor.list,
// start_anchor.pattern].
type Delimiter struct {
	Literals    []string
	GrowsAtEdge bool
	Regex       *Regex
	Hint        *Hint // where the regex can match (nil: search everywhere)

	prefixes map[string]bool
	longest  int
}

// Field is one field of a template, as the driver needs it.
type Field struct {
	Name          string
	Content       string
	ContentArgs   string // JSON text
	Repeats       bool
	Join          *string
	Optional      bool
	Transform     *Transform
	TransformEach bool
	Open, Close   *Delimiter

	args  *Object
	dirty bool
	// The field's open and chunk events' heads (see Event).
	openHead, chunkHead eventHead
}

// Watch is one delimiter a state searches for.
type Watch struct {
	Kind  int
	Field int
}

// Program is a compiled template: the tables a generated package supplies.
type Program struct {
	Name        string
	Template    string // the source template, JSON
	Defaults    string // JSON
	Fields      []*Field
	Implicit    int // index of the implicit field, -1 for none (a null sink)
	StartAnchor *Delimiter
	States      map[int][]Watch // -1: the implicit region; i: field i open
	Context     int             // characters kept before the read position (-1: all)
	Patterns    map[string]*Regex
	Fast        map[int]*FastPath // states whose delimiters allow skipping the search

	defaults *Object
	watch    [][]Watch
	fast     []*FastPath
	derived  []bool     // the state's fast path was derived here, not planned by the compiler
	holdRuns []*holdRun // per state without a hold lead (see leadRunOf)
	memos    []scanMemo // per state (see scan)
	literal  []bool     // per state: every watched delimiter is literals (see scan)
	ahead    []bool     // per state: no watched delimiter reads before where its match starts (see scan)
}

func (p *Program) delimiterOf(w Watch) *Delimiter {
	f := p.Fields[w.Field]
	if w.Kind == Close {
		return f.Close
	}
	return f.Open
}

// Init finishes a program's tables; generated packages call it once.
func (p *Program) Init() *Program {
	d, err := Loads(p.Defaults)
	if err != nil {
		panic(err)
	}
	p.defaults, _ = d.(*Object)
	if p.defaults == nil {
		p.defaults = NewObject()
	}
	p.watch = make([][]Watch, len(p.Fields)+1)
	for state, watch := range p.States {
		p.watch[state+1] = watch
	}
	p.fast = make([]*FastPath, len(p.Fields)+1)
	for state, fast := range p.Fast {
		fast.prepare()
		p.fast[state+1] = fast
	}
	p.holdRuns = make([]*holdRun, len(p.Fields)+1)
	p.memos = make([]scanMemo, len(p.Fields)+1)
	p.literal = make([]bool, len(p.Fields)+1)
	p.ahead = make([]bool, len(p.Fields)+1)
	p.derived = make([]bool, len(p.Fields)+1)
	for _, f := range p.Fields {
		a, err := Loads(f.ContentArgs)
		if err != nil {
			panic(err)
		}
		f.args, _ = a.(*Object)
		f.dirty = !(f.Content == "text" || f.Content == "int" || f.Content == "float" || f.Content == "bool")
		f.openHead = eventHead{kind: RegionOpen, field: f.Name}
		f.chunkHead = eventHead{kind: RegionChunk, field: f.Name, dirty: f.dirty}
		for _, d := range []*Delimiter{f.Open, f.Close} {
			if d != nil {
				d.init()
			}
		}
		if f.Transform != nil {
			f.Transform.prepare()
		}
	}
	p.StartAnchor.init()
	for _, re := range p.Patterns {
		re.prepare()
	}
	for state, watch := range p.watch {
		p.literal[state], p.ahead[state] = true, true
		for _, w := range watch {
			if d := p.delimiterOf(w); d == nil || d.Regex != nil {
				p.literal[state] = false
				p.ahead[state] = p.ahead[state] && d != nil && !readsBehind(d.Regex.Root)
			}
		}
	}
	for state := range p.watch {
		if p.Context < 0 {
			break
		}
		if p.fast[state] == nil {
			if fast := deriveFastPath(p, p.watch[state]); fast != nil {
				p.fast[state], p.derived[state] = fast, true
			}
		}
		if p.fast[state] == nil || p.fast[state].HoldLead == nil {
			p.holdRuns[state] = leadRunOf(p, p.watch[state])
		}
	}
	return p
}

// deriveFastPath plans a fast path the compiler's analysis left out (look-
// arounds before the trigger: `</think>|(?=\s*<tool_call>)`), from the
// delimiters' trees: every branch of every watched delimiter is (look-
// behinds and assertions, which read nothing forward,) then an optional
// run of one lead class, then something whose first characters are ASCII
// triggers; a positive lookahead stands for its body. Text holding no
// trigger and not ending in a lead then starts no match, complete or
// partial (a partial one runs through leads to the end, or reads a
// trigger). nil when a delimiter does not have that shape.
func deriveFastPath(p *Program, watch []Watch) *FastPath {
	var triggers firstChars
	var leads []rune
	for _, w := range watch {
		d := p.delimiterOf(w)
		if d == nil {
			return nil
		}
		if d.Regex == nil {
			for _, lit := range d.Literals {
				if lit == "" || lit[0] >= utf8.RuneSelf {
					return nil
				}
				triggers.ascii[lit[0]>>6] |= 1 << (lit[0] & 63)
			}
			continue
		}
		var ok bool
		if leads, ok = branchShape(d.Regex.Root, &triggers, leads); !ok {
			return nil
		}
	}
	if triggers.wide || triggers.any {
		return nil
	}
	fast := &FastPath{Leads: leads}
	for c := 0; c < utf8.RuneSelf; c++ {
		if triggers.ascii[c>>6]&(1<<(c&63)) != 0 {
			fast.Triggers = append(fast.Triggers, string(rune(c)))
		}
	}
	fast.prepare()
	if leads != nil {
		for _, w := range watch {
			if d := p.delimiterOf(w); d.Regex != nil && subsetOf(leads, d.Regex.Entry) && holdsAtRunStart(d.Regex.Root, leads) {
				fast.HoldLead, fast.holdASCII = leads, fast.leadASCII
				break
			}
		}
	}
	return fast
}

// holdsAtRunStart: some branch of n is (inside positive lookaheads) a
// greedy unbounded repeat of the lead class and then more, so at the start
// of a run of lead characters that ends the text it is a partial match (the
// repeat reads to the end; what follows must read a trigger). A derived
// fast path's text before the run can start no match, complete or partial
// (see deriveFastPath), so the run is held from its start: the lead class
// is the state's hold lead.
func holdsAtRunStart(n *Node, leads []rune) bool {
	switch n.Op {
	case OpAlt:
		for _, sub := range n.Subs {
			if holdsAtRunStart(sub, leads) {
				return true
			}
		}
	case OpGroup:
		return holdsAtRunStart(n.Subs[0], leads)
	case OpLook:
		return !n.Behind && !n.Negative && holdsAtRunStart(n.Subs[0], leads)
	case OpConcat:
		if len(n.Subs) < 2 {
			return false
		}
		first := n.Subs[0]
		return first.Op == OpRepeat && !first.Lazy && first.Max < 0 && first.Subs[0].Op == OpSet && sameSet(first.Subs[0].Set, leads)
	}
	return false
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

// branchShape checks one node has the shape deriveFastPath needs, adding
// its triggers and lead class (one class for the whole state: two
// different ones give up).
func branchShape(n *Node, triggers *firstChars, leads []rune) ([]rune, bool) {
	switch n.Op {
	case OpAlt:
		for _, sub := range n.Subs {
			var ok bool
			if leads, ok = branchShape(sub, triggers, leads); !ok {
				return leads, false
			}
		}
		return leads, true
	case OpGroup:
		return branchShape(n.Subs[0], triggers, leads)
	case OpLook:
		if n.Behind || n.Negative {
			return leads, false // alone it matches without reading
		}
		return branchShape(n.Subs[0], triggers, leads)
	}
	items := []*Node{n}
	if n.Op == OpConcat {
		items = n.Subs
	}
	for len(items) > 0 && (items[0].Op == OpAssert || items[0].Op == OpLook && items[0].Behind && !readsForward(items[0])) {
		items = items[1:]
	}
	if len(items) == 0 {
		return leads, false
	}
	if first := items[0]; first.Op == OpRepeat && !first.Lazy && first.Subs[0].Op == OpSet && len(items) > 1 {
		if leads != nil && !sameSet(leads, first.Subs[0].Set) {
			return leads, false
		}
		leads = first.Subs[0].Set
		items = items[1:]
	}
	if len(items) == 1 && (items[0].Op == OpAlt || items[0].Op == OpGroup || items[0].Op == OpLook) {
		return branchShape(items[0], triggers, leads)
	}
	if firstOf(&Node{Op: OpConcat, Subs: items}, triggers) {
		triggers.any = true
	}
	return leads, !triggers.any
}

// readsBehind: the subtree holds a look-behind or an assertion that reads
// the character before its position or depends on where the text starts
// (^, \A, multiline ^, \b, \B): a match of a tree without one reads only
// from its start on.
func readsBehind(n *Node) bool {
	switch {
	case n.Op == OpLook && n.Behind:
		return true
	case n.Op == OpAssert:
		switch n.Kind {
		case '^', 'A', 'L', 'b', 'B':
			return true
		}
	}
	for _, sub := range n.Subs {
		if readsBehind(sub) {
			return true
		}
	}
	return false
}

// readsForward: the subtree holds a lookahead (which may read to the end).
func readsForward(n *Node) bool {
	if n.Op == OpLook && !n.Behind {
		return true
	}
	for _, sub := range n.Subs {
		if readsForward(sub) {
			return true
		}
	}
	return false
}

func (d *Delimiter) init() {
	if d.Regex != nil {
		d.Regex.prepare()
		if d.Hint != nil {
			d.Hint.prepare()
		}
		return
	}
	d.prefixes = map[string]bool{}
	for _, lit := range d.Literals {
		if len(lit) > d.longest {
			d.longest = len(lit)
		}
		for i := 1; i < len(lit); i++ {
			if utf8.RuneStart(lit[i]) {
				d.prefixes[lit[:i]] = true
			}
		}
	}
}

// find is the leftmost complete literal match at or after pos (longest on ties).
func (d *Delimiter) find(buf string, pos int) (int, int) {
	bestStart, bestEnd := -1, -1
	for _, lit := range d.Literals {
		at := strings.Index(buf[pos:], lit)
		if at >= 0 && (bestStart < 0 || pos+at < bestStart) {
			bestStart, bestEnd = pos+at, pos+at+len(lit)
		}
	}
	return bestStart, bestEnd
}

// partialStart is the leftmost start of a proper prefix of a literal that runs to the end, or -1
// [hold.partial-literal].
func (d *Delimiter) partialStart(buf string, pos int) int {
	start := len(buf) - d.longest + 1
	if start < pos {
		start = pos
	}
	for ; start < len(buf); start++ {
		if utf8.RuneStart(buf[start]) && isProperPrefix(d.Literals, buf[start:]) {
			return start
		}
	}
	return -1
}

// isProperPrefix: tail is a proper prefix of one of the strings, ending at
// one of its character boundaries (what the prefix tables hold; checked
// directly, which for a few short strings beats hashing the tail).
func isProperPrefix(strs []string, tail string) bool {
	for _, s := range strs {
		if len(tail) < len(s) && s[:len(tail)] == tail && utf8.RuneStart(s[len(tail)]) {
			return true
		}
	}
	return false
}

// lastAnchorEnd is the end of the last non-overlapping start-anchor match, or -1
// [prefix.last-anchor].
func lastAnchorEnd(anchor *Delimiter, text string) int {
	last := -1
	if anchor.Regex != nil {
		for _, m := range anchor.Regex.FindAll(text) {
			last = m.End
		}
		return last
	}
	pos := 0
	for {
		start, end := anchor.find(text, pos)
		if start < 0 {
			return last
		}
		pos, last = end, end
	}
}

// Str is a pointer to a string (an optional string in a Program's tables).
func Str(s string) *string { return &s }
