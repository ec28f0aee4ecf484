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
	// HoldRuns: per state without a hold lead, the class W of its holdRun
	// (see holdRun), planned by the compiler (compiler/passes/state_plan.py).
	HoldRuns map[int][]rune
	// Ahead: the states where no watched delimiter reads before where its
	// match starts (no look-behind, ^, \A, (?m)^, \b, \B), so the scan needs
	// no context before the read position (see scan). Absent: it may.
	Ahead map[int]bool

	defaults *Object
	watch    [][]Watch
	fast     []*FastPath
	holdRuns []*holdRun // per state (see HoldRuns)
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
		p.literal[state] = true
		for _, w := range watch {
			if d := p.delimiterOf(w); d == nil || d.Regex != nil {
				p.literal[state] = false
			}
		}
	}
	for state, set := range p.HoldRuns {
		p.holdRuns[state+1] = &holdRun{set: set, ascii: asciiBitmap(set)}
	}
	for state, ahead := range p.Ahead {
		p.ahead[state+1] = ahead
	}
	return p
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
