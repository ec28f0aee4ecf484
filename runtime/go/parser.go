package rt

import (
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Event is one streaming event: region_open, region_chunk (Text, Dirty) or
// region_close (Value), read through its methods. 24 bytes, the chunk's
// text and a pointer to the rest: every plain token gives one, so its size
// is most of what a token allocates, and Feed's events are the caller's to
// keep (the collector's work grows with their bytes). The type, field name
// and dirty flag of a field's open and chunk events are one record per
// program (read-only); a close event's record holds its value.
type Event struct {
	text string
	head *eventHead
}

// eventHead is what an Event holds besides the text.
type eventHead struct {
	kind  EventType
	dirty bool
	field string
	value any
}

// NewEvent makes an event (the parser makes its own; this is for callers
// that build events, a test's expected ones for instance).
func NewEvent(kind EventType, field, text string, dirty bool, value any) Event {
	return Event{text: text, head: &eventHead{kind: kind, dirty: dirty, field: field, value: value}}
}

// Type is the event's type (RegionOpen, RegionChunk or RegionClose; 0 for
// the zero Event).
func (e Event) Type() EventType {
	if e.head == nil {
		return 0
	}
	return e.head.kind
}

// Field is the name of the event's field.
func (e Event) Field() string {
	if e.head == nil {
		return ""
	}
	return e.head.field
}

// Text is a region_chunk's text ("" for the other types).
func (e Event) Text() string { return e.text }

// Dirty: a region_chunk's text is not the field's final value (content other
// than text, int, float or bool is parsed at the close).
func (e Event) Dirty() bool { return e.head != nil && e.head.dirty }

// Value is a region_close's parsed value (nil for the other types).
func (e Event) Value() any {
	if e.head == nil {
		return nil
	}
	return e.head.value
}

// EventType is an event's "type": RegionOpen, RegionChunk or RegionClose;
// String gives the reference's name.
type EventType uint8

// The event types.
const (
	RegionOpen EventType = iota + 1
	RegionChunk
	RegionClose
)

var eventTypeNames = [...]string{RegionOpen: "region_open", RegionChunk: "region_chunk", RegionClose: "region_close"}

// String is the type's name in the reference's events ("region_chunk").
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) && t > 0 {
		return eventTypeNames[t]
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalJSON writes the event as the Python dict it mirrors.
func (e Event) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	writeEvent(&b, e)
	return []byte(b.String()), nil
}

// Message is the parsed message: a dict with the template's key order.
type Message = *Object

// Watch kinds.
const (
	Open  = 0
	Close = 1
)

// Delimiter is a field's open or close: literals (longest first) searched as
// strings, or a regex run with partial matching.
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

// holdRun is a class W for a state without a fast path such that, while the
// held text is all W, more W text changes nothing: one watched delimiter is
// a greedy unbounded W repeat then something that must read a non-W
// character (its partial match stays at the held run's start), and no
// watched delimiter can match inside W text (each must read a non-W
// character after its own optional W lead). Newline or space runs then cost
// nothing per token instead of a search over the whole held run.
type holdRun struct {
	set   []rune
	ascii [2]uint64
}

// leadRunOf plans the state's holdRun, or nil.
func leadRunOf(p *Program, watch []Watch) *holdRun {
	var lead []rune
	for _, w := range watch {
		if d := p.delimiterOf(w); d.Regex != nil {
			if set, _ := splitLead(d.Regex.Root); set != nil {
				lead = set
				break
			}
		}
	}
	if lead == nil {
		return nil
	}
	run := &holdRun{set: lead, ascii: asciiBitmap(lead)}
	for _, w := range watch {
		if !run.cannotMatchIn(p.delimiterOf(w)) {
			return nil
		}
	}
	return run
}

func (p *Program) delimiterOf(w Watch) *Delimiter {
	f := p.Fields[w.Field]
	if w.Kind == Close {
		return f.Close
	}
	return f.Open
}

// splitLead: a root that is a greedy unbounded repeat of a class, then the
// rest of its sequence.
func splitLead(root *Node) ([]rune, []*Node) {
	if root.Op != OpConcat || len(root.Subs) < 2 {
		return nil, nil
	}
	first := root.Subs[0]
	if first.Op != OpRepeat || first.Lazy || first.Max >= 0 || first.Subs[0].Op != OpSet {
		return nil, nil
	}
	return first.Subs[0].Set, root.Subs[1:]
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

// cannotMatchIn: no match of d lies in text that is all of the run's class.
func (run *holdRun) cannotMatchIn(d *Delimiter) bool {
	if d.Regex == nil {
		for _, lit := range d.Literals {
			if holdsAll(run.set, lit) {
				return false
			}
		}
		return true
	}
	root := d.Regex.Root
	if set, rest := splitLead(root); set != nil && sameSet(set, run.set) {
		root = &Node{Op: OpConcat, Subs: rest}
	}
	var f firstChars
	if firstOf(root, &f) {
		return false
	}
	hasWide := len(run.set) > 0 && run.set[len(run.set)-1] >= utf8.RuneSelf
	return f.ascii[0]&run.ascii[0] == 0 && f.ascii[1]&run.ascii[1] == 0 && !(f.wide && hasWide)
}

// FastPath is what lets a state skip every search (planned by the
// compiler): no delimiter watched in the state can match, or be pending, in
// text that holds none of Triggers and does not end in a Leads character.
// While held text and new text are all HoldLead characters, a pending match
// stays where it is, so more such text changes nothing.
type FastPath struct {
	Triggers []string
	Leads    []rune // union of the lead classes, as ranges
	HoldLead []rune // nil: none

	leadASCII, holdASCII [2]uint64 // the classes' ASCII members, as bitmaps
	triggerASCII         [2]uint64 // the triggers, when each is one ASCII character
	byteTriggers         bool      // every trigger is one ASCII character
	oneByte              int       // the trigger when there is one, of one ASCII character (-1: none)
}

// prepare sets the bitmaps from the classes and triggers.
func (fast *FastPath) prepare() {
	fast.leadASCII, fast.holdASCII = asciiBitmap(fast.Leads), asciiBitmap(fast.HoldLead)
	fast.triggerASCII, fast.byteTriggers, fast.oneByte = [2]uint64{}, true, -1
	if len(fast.Triggers) == 1 && len(fast.Triggers[0]) == 1 && fast.Triggers[0][0] < utf8.RuneSelf {
		fast.oneByte = int(fast.Triggers[0][0])
	}
	for _, t := range fast.Triggers {
		if len(t) != 1 || t[0] >= utf8.RuneSelf {
			fast.byteTriggers = false
			continue
		}
		fast.triggerASCII[t[0]>>6] |= 1 << (t[0] & 63)
	}
}

// holdsTrigger: text holds one of the triggers. strings.IndexByte for one
// ASCII character (the usual `<`: its vector code beats a loop over a short
// token's bytes by half), else one pass over the bytes when every trigger
// is one ASCII character (a byte of a multi-byte character is never ASCII),
// which for a short token beats one search per trigger.
func (fast *FastPath) holdsTrigger(text string) bool {
	if fast.oneByte >= 0 {
		return strings.IndexByte(text, byte(fast.oneByte)) >= 0
	}
	if !fast.byteTriggers {
		for _, trigger := range fast.Triggers {
			if strings.Contains(text, trigger) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < utf8.RuneSelf && fast.triggerASCII[c>>6]&(1<<(c&63)) != 0 {
			return true
		}
	}
	return false
}

func asciiBitmap(set []rune) (bits [2]uint64) {
	for c := rune(0); c < 128; c++ {
		if inSet(set, c) {
			bits[c>>6] |= 1 << (c & 63)
		}
	}
	return bits
}

func inClass(bits *[2]uint64, set []rune, r rune) bool {
	if r < 128 {
		return bits[r>>6]&(1<<(r&63)) != 0
	}
	return inSet(set, r)
}

func holdsAllFast(bits *[2]uint64, set []rune, text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 128 {
			return holdsAll(set, text[i:])
		}
		if bits[c>>6]&(1<<(c&63)) == 0 {
			return false
		}
	}
	return true
}

func holdsAll(set []rune, text string) bool {
	for _, r := range text {
		if !inSet(set, r) {
			return false
		}
	}
	return true
}

// runStart is the start of the run of lead characters ending text.
func (fast *FastPath) runStart(text string) int {
	end := len(text)
	for end > 0 {
		c := text[end-1]
		if c >= utf8.RuneSelf {
			return runStart(fast.Leads, text, end)
		}
		if fast.leadASCII[c>>6]&(1<<(c&63)) == 0 {
			break
		}
		end--
	}
	return end
}

// runStart is the start of the run of lead characters ending at end.
func runStart(set []rune, text string, end int) int {
	for end > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if !inSet(set, r) {
			break
		}
		end -= size
	}
	return end
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

// partialStart is the leftmost start of a proper prefix of a literal that runs to the end, or -1.
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

// lastAnchorEnd is the end of the last non-overlapping start-anchor match, or -1.
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

// Option configures a Parser.
type Option func(*Parser) error

// WithTools gives the tools (JSON-schema values: *Object, as Loads returns)
// whose declared parameter types tool-call arguments are cast to.
func WithTools(tools []any) Option {
	return func(p *Parser) error {
		p.params = toolParameters(tools)
		return nil
	}
}

// WithToolsJSON is WithTools with the tool list as JSON text.
func WithToolsJSON(tools string) Option {
	return func(p *Parser) error {
		v, err := Loads(tools)
		if err != nil {
			return err
		}
		if v == nil {
			p.params = nil
			return nil
		}
		list, ok := v.([]any)
		if !ok {
			return Errorf("TypeError", "tools must be a list")
		}
		p.params = toolParameters(list)
		return nil
	}
}

// Parser is a streaming response parser for one generation.
type Parser struct {
	prog      *Program
	params    map[string]*Object
	buf       string
	pos       int
	output    *Object
	current   int
	state     int
	captures  []Capture
	body      appendOnly
	opened    bool
	finalized bool
	initial   []Event
	pieces    scratchText // held text not yet joined onto buf (copied out before a Reset)
	store     appendOnly  // buf is its tail from storeOff when inStore (see extend)
	storeOff  int
	inStore   bool
	lazy      bool // buf lacks the text routed by the common path since lazyMark in body
	// before[:nBefore]: texts that, joined, precede buf[0] when buf does not
	// hold the context itself (beforeLen bytes; the last Context characters
	// are all that matters). materialize leaves them where they are (the
	// body, the store) while the state's scan reads nothing before the read
	// position; process joins them to buf when it enters a state that reads
	// them.
	before    [32]string
	nBefore   int
	beforeLen int
	lazyMark  int
	lastScan  *scanResult // the last scan answer taken from the memo, for lastKey in lastState
	lastKey   memoKey
	lastState int
	scratch   machine // reused by every regex search of this parser
	heldLead  bool    // the held text is all of the state's hold lead
	heldRun   bool    // the held text is all of the state's holdRun class
	slab      []Event // returned events are carved from it (see startEvents)
	appending bool    // AppendFeed: events go to its dst, not to the slab
	// from[i]: where watch i of the state last found no match, complete or
	// partial, before (absolute offsets; -1: unknown), taken at read position
	// fromPos in state fromState (see scanText); consumed is the absolute
	// offset of buf[0].
	from      []int
	fromOK    bool
	fromState int
	fromPos   int
	consumed  int
}

// slabSize is how many events one allocation holds: 341 of 24 bytes fill
// the 8,192-byte size class.
const slabSize = 341

// startEvents is an empty list of events at the free end of the parser's
// event slab: a step's events are written in place, and finish hands them
// out as a slice of the slab (one allocation per slabSize events instead
// of one per Feed). Each returned slice is capped at its length, so a
// caller's append copies, and the slab never writes its elements again:
// the caller owns them.
func (p *Parser) startEvents(dst []Event) []Event {
	if p.appending {
		return dst
	}
	if cap(p.slab)-len(p.slab) < 4 {
		p.slab = make([]Event, 0, slabSize)
	}
	return p.slab[len(p.slab):len(p.slab)]
}

// finish publishes a step's events (see startEvents).
func (p *Parser) finish(events []Event) []Event {
	if p.appending {
		return events
	}
	n := len(events)
	if n == 0 {
		return []Event{}
	}
	if start := len(p.slab); cap(p.slab)-start >= n && &p.slab[start : start+1][0] == &events[0] {
		p.slab = p.slab[:start+n]
	} // else the events outgrew the slab: append gave them their own array
	return events[:n:n]
}

// publishOne publishes one chunk event (see startEvents).
func (p *Parser) publishOne(dst []Event, head *eventHead, text string) []Event {
	if p.appending {
		addEvent(&dst, head, text)
		return dst
	}
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]Event, 0, slabSize)
	}
	n := len(p.slab)
	p.slab = p.slab[:n+1]
	setEvent(&p.slab[n], head, text)
	return p.slab[n : n+1 : n+1]
}

// addEvent appends an event, writing its fields one by one (a struct copy
// of an Event is a bulk write barrier while the collector marks).
func addEvent(events *[]Event, head *eventHead, text string) {
	list := *events
	n := len(list)
	if n < cap(list) {
		list = list[:n+1]
	} else {
		list = append(list, Event{})
	}
	setEvent(&list[n], head, text)
	*events = list
}

func setEvent(e *Event, head *eventHead, text string) {
	e.text = text
	if e.head != head { // an AppendFeed buffer mostly holds it already: no write barrier
		e.head = head
	}
}

// NewParser starts a parser; prefix is the prompt text sent to the model
// ("" opts out): text after its last start anchor is processed first and
// gives InitialEvents.
func NewParser(prog *Program, prefix string, opts ...Option) (*Parser, error) {
	p := &Parser{prog: prog}
	for _, opt := range opts {
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	p.output = DeepCopy(prog.defaults).(*Object)
	p.enterImplicit()
	p.initial = []Event{}
	if prefix != "" {
		text := prefix
		if end := lastAnchorEnd(prog.StartAnchor, prefix); end >= 0 {
			text = prefix[end:]
		}
		if text != "" {
			p.buf = text
			if err := p.process(&p.initial, false); err != nil {
				return nil, err
			}
			p.noteHeld()
		}
	}
	return p, nil
}

// InitialEvents are the events of a turn the prefix prefilled.
func (p *Parser) InitialEvents() []Event { return p.initial }

// Captures are the named groups of the open match of the region open now.
func (p *Parser) Captures() []Capture { return append([]Capture(nil), p.captures...) }

// AppendFeed is Feed appending the events to dst (as append does) instead
// of returning a new slice: a caller that is done with a step's events
// before the next step can pass the same storage again (events[:0]), and
// plain tokens then allocate nothing. Feed's events are the caller's to
// keep, so each costs an allocation, and the collector's work for it.
func (p *Parser) AppendFeed(dst []Event, text string) ([]Event, error) {
	p.appending = true
	events, err := p.feed(dst, text)
	p.appending = false
	if events == nil {
		events = dst // finalized
	}
	return events, err
}

// noEvents is a step's empty result.
func (p *Parser) noEvents(dst []Event) []Event {
	if p.appending {
		return dst
	}
	return []Event{}
}

// Feed adds generated text and returns the events it completes.
func (p *Parser) Feed(text string) ([]Event, error) { return p.feed(nil, text) }

// feed is Feed, or AppendFeed's step onto dst when p.appending.
func (p *Parser) feed(dst []Event, text string) ([]Event, error) {
	if p.finalized {
		return nil, Errorf("RuntimeError", "ResponseParser already finalized")
	}
	if fast := p.prog.fast[p.state+1]; fast != nil && text != "" {
		if events, done := p.feedFast(dst, fast, text); done {
			return events, nil
		}
	}
	p.materialize()
	if p.heldRun {
		if run := p.prog.holdRuns[p.state+1]; holdsAllFast(&run.ascii, run.set, text) {
			p.pieces.WriteString(text) // the pending match stays where it is
			return p.noEvents(dst), nil
		}
	}
	return p.feedSlowly(dst, text)
}

// feedFast handles text that cannot start a delimiter without searching;
// done is false when the general step must run.
func (p *Parser) feedFast(dst []Event, fast *FastPath, text string) ([]Event, bool) {
	if fast.holdsTrigger(text) {
		return nil, false
	}
	last := rune(text[len(text)-1])
	if last >= utf8.RuneSelf {
		last, _ = utf8.DecodeLastRuneInString(text)
	}
	endsInLead := inClass(&fast.leadASCII, fast.Leads, last)
	if p.pos == len(p.buf) && p.pieces.Len() == 0 {
		if !endsInLead {
			// No delimiter can start in text: it all goes to the region.
			if p.opened && p.current >= 0 { // the common case: one chunk event
				f := p.prog.Fields[p.current]
				if !p.lazy { // buf catches up from the body when needed (see materialize)
					p.lazy, p.lazyMark = true, p.body.Len()
				}
				p.appendBody(text)
				return p.publishOne(dst, &f.chunkHead, text), true
			}
			p.materialize()
			context := p.prog.Context
			if context >= 0 && len(text) >= storeMin && utf8.RuneCountInString(text) >= context {
				p.consumed += len(p.buf)
				p.buf, p.inStore = text, false // it holds all the context regex delimiters read behind
				p.fromOK = false
				p.dropBefore()
			} else {
				p.extend(text)
			}
			p.pos = len(p.buf)
			p.trim()
			events := p.startEvents(dst)
			p.route(&events, text)
			return p.finish(events), true
		}
		if fast.HoldLead != nil {
			if p.opened && p.current >= 0 {
				return p.holdLazily(dst, fast, text)
			}
			p.materialize()
			return p.holdLeadRun(dst, fast, text)
		}
	} else if p.heldLead {
		if holdsAllFast(&fast.holdASCII, fast.HoldLead, text) {
			p.pieces.WriteString(text) // the pending match stays where it is
			return p.noEvents(dst), true
		}
		if p.lazy {
			return p.releaseLazily(dst, fast, text, endsInLead)
		}
		if !endsInLead {
			return p.releaseHeld(dst, fast, text)
		}
		return p.releaseAndHold(dst, fast, text)
	}
	return nil, false
}

// holdLazily is holdLeadRun on the common path (see materialize): what
// comes before the trailing run goes to the region's body and one chunk
// event, the run is held in pieces (after the read position, where the
// general step joins them once buf is brought up to date).
func (p *Parser) holdLazily(dst []Event, fast *FastPath, text string) ([]Event, bool) {
	start := fast.runStart(text)
	if !holdsAllFast(&fast.holdASCII, fast.HoldLead, text[start:]) {
		return nil, false
	}
	if !p.lazy {
		p.lazy, p.lazyMark = true, p.body.Len()
	}
	p.pieces.WriteString(text[start:])
	p.heldLead = true
	if start == 0 {
		return p.noEvents(dst), true
	}
	f := p.prog.Fields[p.current]
	p.appendBody(text[:start])
	return p.publishOne(dst, &f.chunkHead, text[:start]), true
}

// releaseLazily is releaseHeld (or, when text ends in lead characters,
// releaseAndHold) on the common path: the held pieces and the text up to
// its trailing run go to the body as one chunk, cut from the body itself.
func (p *Parser) releaseLazily(dst []Event, fast *FastPath, text string, endsInLead bool) ([]Event, bool) {
	start := len(text)
	if endsInLead {
		start = fast.runStart(text)
		if start == 0 || !holdsAllFast(&fast.holdASCII, fast.HoldLead, text[start:]) {
			return nil, false
		}
	}
	for _, trigger := range fast.Triggers { // the held text is the pieces (buf is behind: see materialize)
		if len(trigger) > 1 || strings.Contains(p.pieces.String(), trigger) {
			return nil, false
		}
	}
	mark := p.body.Len()
	p.appendBody(p.pieces.String())
	p.pieces.Reset()
	p.appendBody(text[:start])
	chunk := p.body.String()[mark:] // bytes the body wrote are never written again
	p.heldLead = endsInLead
	if endsInLead {
		p.pieces.WriteString(text[start:])
	}
	f := p.prog.Fields[p.current]
	return p.publishOne(dst, &f.chunkHead, chunk), true
}

// releaseAndHold: held lead characters, then text with no trigger that ends
// in a run of hold-lead characters (a word and its space): everything before
// that run is routed and the run is held, as holdLeadRun does.
func (p *Parser) releaseAndHold(dst []Event, fast *FastPath, text string) ([]Event, bool) {
	start := fast.runStart(text)
	if start == 0 || !holdsAllFast(&fast.holdASCII, fast.HoldLead, text[start:]) {
		return nil, false
	}
	if p.heldHasTrigger(fast) {
		return nil, false
	}
	events := p.startEvents(dst)
	p.appendText(text)
	runAt := len(p.buf) - (len(text) - start)
	p.route(&events, p.buf[p.pos:runAt])
	p.pos = runAt
	p.trim()
	p.heldLead = true
	return p.finish(events), true
}

// holdLeadRun: text with no trigger ends in lead characters: route what
// comes before the trailing run, hold the run (exact when the run is all of
// the state's hold lead: a partial match starts at the run, none before).
func (p *Parser) holdLeadRun(dst []Event, fast *FastPath, text string) ([]Event, bool) {
	start := fast.runStart(text)
	if !holdsAllFast(&fast.holdASCII, fast.HoldLead, text[start:]) {
		return nil, false
	}
	events := p.startEvents(dst)
	p.appendText(text)
	if start > 0 {
		p.route(&events, text[:start])
	}
	p.pos += start
	p.trim()
	p.heldLead = true
	return p.finish(events), true
}

// releaseHeld: held lead characters followed by text with no trigger and
// no trailing lead: nothing can match any more, all of it is routed.
func (p *Parser) releaseHeld(dst []Event, fast *FastPath, text string) ([]Event, bool) {
	if p.heldHasTrigger(fast) {
		return nil, false
	}
	events := p.startEvents(dst)
	p.appendText(text)
	p.route(&events, p.buf[p.pos:])
	p.pos = len(p.buf)
	p.trim()
	p.heldLead = false
	return p.finish(events), true
}

func (p *Parser) feedSlowly(dst []Event, text string) ([]Event, error) {
	events := p.startEvents(dst)
	if text != "" {
		p.appendText(text)
	}
	err := p.process(&events, false)
	p.noteHeld()
	return p.finish(events), err
}

func (p *Parser) joinPieces() {
	if p.pieces.Len() > 0 {
		p.extend(p.pieces.String())
		p.pieces.Reset()
	}
}

// heldHasTrigger: the held text (unjoined pieces included) holds one of
// the fast path's triggers (single characters; a single byte cannot
// straddle the join, a longer one is looked for in the joined text).
func (p *Parser) heldHasTrigger(fast *FastPath) bool {
	for _, trigger := range fast.Triggers {
		if len(trigger) > 1 {
			p.joinPieces()
		}
		if strings.Contains(p.buf[p.pos:], trigger) || strings.Contains(p.pieces.String(), trigger) {
			return true
		}
	}
	return false
}

func (p *Parser) appendText(text string) {
	p.trim() // cuts before pos only: the same before or after the join
	if p.pieces.Len() > 0 {
		p.extend(p.pieces.String())
		p.pieces.Reset()
	}
	p.extend(text)
}

// materialize brings buf up to date after common-path tokens, which went
// to the open region's body only: buf gets the text routed since (or just
// its last Context characters, which are all any delimiter reads behind
// the read position), and the read position moves to its end.
func (p *Parser) materialize() {
	if !p.lazy {
		return
	}
	p.lazy = false
	routed := p.body.String()[p.lazyMark:]
	if p.prog.ahead[p.state+1] && p.prog.Context > trimSlack && p.pos == len(p.buf) {
		// This state's scan reads nothing before the read position: buf
		// starts there, and what precedes it stays where it is (see
		// joinBefore), instead of being copied at every general step.
		p.keepBefore(p.buf)
		p.keepBefore(routed)
		p.consumed += len(p.buf) + len(routed)
		p.buf, p.pos, p.inStore, p.fromOK = "", 0, false, false
		return
	}
	cut := 0
	if context := p.prog.Context; context >= 0 && len(routed) > context+trimSlack {
		cut = backChars(routed, len(routed), context) // exactly Context characters after it (0: fewer)
	}
	if cut > 0 { // the next extend copies these characters only
		p.consumed += len(p.buf) + cut
		p.buf, p.inStore = routed[cut:], false
		p.dropBefore()
		p.fromOK = false
	} else {
		p.extend(routed)
	}
	p.pos = len(p.buf)
	p.trim()
}

// storeMin is the least capacity (bytes) a new store gets.
const storeMin = 512

// extend appends text to buf. buf is the tail of an append-only store (an
// appendOnly): bytes once written are never written again, so every
// string cut from buf (event texts, captures) stays valid, and appending
// costs a copy of text instead of a copy of buf. When buf is not the
// store's tail, the live text is copied to the store's end; when the store
// is full, a new one starts with the live text, and the old one stays with
// the strings cut from it.
func (p *Parser) extend(text string) {
	if p.inStore && p.store.Cap()-p.store.Len() >= len(text) {
		p.store.WriteString(text)
		p.buf = p.store.String()[p.storeOff:]
		return
	}
	live := p.buf
	if need := len(live) + len(text); p.inStore || p.store.Cap()-p.store.Len() < need {
		size := 2 * need
		if size < storeMin {
			size = storeMin
		}
		p.store.Reset()
		p.store.Grow(size)
	}
	// buf is not the store's tail (materialize cut it from the body) and the
	// store has room: the live text goes after what the store holds, which
	// stays as written, instead of into a new store at every general step.
	p.storeOff, p.inStore = p.store.Len(), true
	p.store.WriteString(live)
	p.store.WriteString(text)
	p.buf = p.store.String()[p.storeOff:]
}

// noteHeld: after processing, trim and note whether the held text is all of
// the state's hold lead.
func (p *Parser) noteHeld() {
	p.trim()
	fast := p.prog.fast[p.state+1]
	p.heldLead = fast != nil && fast.HoldLead != nil && p.pos < len(p.buf) && holdsAllFast(&fast.holdASCII, fast.HoldLead, p.buf[p.pos:])
	run := p.prog.holdRuns[p.state+1]
	p.heldRun = run != nil && p.pos < len(p.buf) && holdsAllFast(&run.ascii, run.set, p.buf[p.pos:])
}

// Finalize ends the generation: the message and the last events.
func (p *Parser) Finalize() (Message, []Event, error) {
	if p.finalized {
		return nil, nil, Errorf("RuntimeError", "ResponseParser already finalized")
	}
	events := []Event{}
	p.materialize()
	p.joinPieces()
	if err := p.process(&events, true); err != nil {
		return nil, events, err
	}
	var missing []string
	for _, f := range p.prog.Fields {
		if !f.Optional && !p.output.Has(f.Name) {
			missing = append(missing, "'"+f.Name+"'")
		}
	}
	if missing != nil {
		return nil, events, Errorf("ValueError", "Required response_template fields missing from parsed output: [%s]", strings.Join(missing, ", "))
	}
	out := NewObject()
	for _, key := range p.output.Keys() {
		value, _ := p.output.Get(key)
		if p.prog.defaults.Has(key) || !emptyValue(value) {
			out.Set(key, value)
		}
	}
	p.output = out
	p.finalized = true
	return out, events, nil
}

func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case *Object:
		return x.Len() == 0
	}
	return false
}

// ParseWith is one feed of the whole text, then Finalize.
func ParseWith(prog *Program, text, prefix string, opts ...Option) (Message, error) {
	p, err := NewParser(prog, prefix, opts...)
	if err != nil {
		return nil, err
	}
	if _, err := p.Feed(text); err != nil {
		return nil, err
	}
	message, _, err := p.Finalize()
	return message, err
}

// trimSlack is how far (bytes) consumed text may run past the kept context
// before trim cuts it: cutting lazily keeps trim off the per-token path.
// Keeping more than the context changes no match: searches start at pos,
// and nothing reads further behind it than the context.
const trimSlack = 64

// trim drops consumed text, keeping (at least) the context regex delimiters
// read behind.
func (p *Parser) trim() {
	context := p.prog.Context
	if context < 0 || p.pos <= context+trimSlack {
		return
	}
	if cut := backChars(p.buf, p.pos, context); cut > 0 {
		p.buf = p.buf[cut:]
		p.consumed += cut
		p.pos -= cut
		p.storeOff += cut
		p.dropBefore() // buf holds the context
	}
}

// keepBefore notes text that precedes buf (see before), dropping older
// texts once the newer ones surely hold Context characters, and joining
// them when there are too many to note.
func (p *Parser) keepBefore(text string) {
	if text == "" {
		return
	}
	if p.nBefore == len(p.before) {
		joined := strings.Join(p.before[:p.nBefore], "")
		p.dropBefore()
		p.before[0], p.nBefore, p.beforeLen = joined, 1, len(joined)
	}
	p.before[p.nBefore] = text
	p.nBefore++
	p.beforeLen += len(text)
	drop := 0
	for drop < p.nBefore-1 && p.beforeLen-len(p.before[drop]) >= utf8.UTFMax*p.prog.Context {
		p.beforeLen -= len(p.before[drop])
		drop++
	}
	if drop > 0 {
		copy(p.before[:], p.before[drop:p.nBefore])
		for i := p.nBefore - drop; i < p.nBefore; i++ {
			p.before[i] = ""
		}
		p.nBefore -= drop
	}
}

func (p *Parser) dropBefore() {
	if p.nBefore > 0 {
		p.before = [len(p.before)]string{}
		p.nBefore, p.beforeLen = 0, 0
	}
}

// joinBefore puts the texts materialize left where they were back before
// buf, for a state whose scan reads before the read position.
func (p *Parser) joinBefore() {
	if p.nBefore == 0 || p.prog.ahead[p.state+1] {
		return
	}
	parts := append(p.before[:p.nBefore:p.nBefore], p.buf)
	p.buf = strings.Join(parts, "")
	p.pos += p.beforeLen
	p.consumed -= p.beforeLen
	p.inStore = false
	p.dropBefore()
}

type found struct {
	kind, field, start, end int
	re                      *Regex // the regex that matched (nil: a literal)
	caps                    []int  // its groups' offsets (nil: no named group)
}

// scan finds the best committable match and the hold position (SPEC steps
// 2-3), remembered per short tail (see scanMemo) where a regex is watched:
// literals alone are found in a short tail faster than its key is hashed
// (and their scan reads nothing behind the read position, so a memo keyed
// by the context would remember every prose context apart).
func (p *Parser) scan(watch []Watch, eos bool) (found, bool, int) {
	context := p.prog.Context
	if p.prog.ahead[p.state+1] {
		context = 0 // the scan reads nothing before the read position
	}
	if eos || p.prog.literal[p.state+1] || context < 0 || context > memoContext || len(p.buf)-p.pos > memoTail {
		return p.scanText(watch, eos)
	}
	base := p.pos
	if context > 0 {
		base = backChars(p.buf, p.pos, context)
	}
	key := memoKey{p.pos - base, p.buf[base:]}
	// The parser's own last answer first, then the program's memo.
	r, hit := p.lastScan, p.lastScan != nil && p.lastState == p.state && p.lastKey == key
	if !hit {
		memo := &p.prog.memos[p.state+1]
		memo.mu.RLock()
		r = memo.entries[key.text]
		memo.mu.RUnlock()
		if hit = r != nil && r.key.at == key.at; hit {
			p.lastScan, p.lastKey, p.lastState = r, r.key, p.state
		}
	}
	if !hit {
		best, ok, hold := p.scanText(watch, eos)
		r = &scanResult{best: best, ok: ok, hold: hold - base}
		r.best.start -= base
		r.best.end -= base
		if ok && best.caps != nil {
			r.best.caps = shiftCaps(best.caps, -base)
		}
		p.prog.memos[p.state+1].remember(key, r)
		return best, ok, hold
	}
	best := r.best
	best.start += base
	best.end += base
	if best.caps != nil {
		best.caps = shiftCaps(best.caps, base)
	}
	return best, r.ok, r.hold + base
}

// backChars is where the n characters before pos start (0 when there are
// fewer): pos-n when those bytes are ASCII, checked eight at a time.
func backChars(s string, pos, n int) int {
	if start := pos - n; start >= 0 {
		i := start
		for ; i+8 <= pos; i += 8 {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&0x8080808080808080 != 0 {
				break
			}
		}
		for ; i < pos && s[i] < utf8.RuneSelf; i++ {
		}
		if i == pos {
			return start
		}
	}
	base, counted := pos, 0
	for base >= 8 && counted+8 < n { // eight bytes hold at most eight starts: the n-th is further left
		w := uint64(s[base-8]) | uint64(s[base-7])<<8 | uint64(s[base-6])<<16 | uint64(s[base-5])<<24 |
			uint64(s[base-4])<<32 | uint64(s[base-3])<<40 | uint64(s[base-2])<<48 | uint64(s[base-1])<<56
		x := w&0xC0C0C0C0C0C0C0C0 ^ 0x8080808080808080 // a byte is 0 where it continues a character
		counted += bits.OnesCount64((x | x<<1) & 0x8080808080808080)
		base -= 8
	}
	for counted < n && base > 0 {
		base--
		if utf8.RuneStart(s[base]) {
			counted++
		}
	}
	return base
}

// memoTail is the longest tail (bytes after the read position) whose scan
// is remembered, memoContext the longest context (characters), memoSize
// bounds the entries per state (about 300 KB for the longest context).
const (
	memoTail    = 48
	memoContext = 256
	memoSize    = 1024
)

// scanMemo remembers, per program state, the scan of short tails: the scan
// reads nothing but the tail and the context before it (the program's
// Context characters: no delimiter reads further behind), so its answer is
// a function of that text and of where the tail starts in it. Streams of
// many small tool calls meet the same few tails at every call, and a run of
// one trigger character (lone `<`) the same tail at every token. Shared by
// every parser of the program, hence the lock.
type scanMemo struct {
	mu      sync.RWMutex
	entries map[string]*scanResult // by key text (a string key hashes fastest); the answer holds its key
}

type memoKey struct {
	at   int    // where the tail starts in text
	text string // context, then the tail
}

// scanResult is a scan's answer with offsets relative to the key's text.
type scanResult struct {
	best found
	ok   bool
	hold int
	key  memoKey // as the memo holds it (a copy of the text)
}

func (m *scanMemo) remember(key memoKey, r *scanResult) {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*scanResult{}
	}
	if _, taken := m.entries[key.text]; !taken && len(m.entries) < memoSize {
		key.text = strings.Clone(key.text)
		r.key = key
		m.entries[key.text] = r
	}
	m.mu.Unlock()
}

func shiftCaps(caps []int, by int) []int {
	out := make([]int, len(caps))
	for i, c := range caps {
		out[i] = c
		if c >= 0 {
			out[i] = c + by
		}
	}
	return out
}

// scanText is scan without the memo.
//
// While the read position and the state stay and text is only appended, a
// regex delimiter's search starts where its last search found nothing
// before: a match (complete or partial) of the longer text starting at s
// reads through the old end (it would have been a partial match at s) or
// not (it would have been a complete one), so it starts at or after the
// old leftmost partial match, or after the old end when there was none. A
// held tool-call header is searched again at every token; the delimiters
// that cannot match in it then read only the new text.
func (p *Parser) scanText(watch []Watch, eos bool) (found, bool, int) {
	buf, pos := p.buf, p.pos
	size := len(buf)
	hold := size
	var best found
	have := false
	if !eos && !(p.fromOK && p.fromState == p.state && p.fromPos == p.consumed+pos && len(p.from) == len(watch)) {
		p.from = p.from[:0]
		for range watch {
			p.from = append(p.from, -1)
		}
		p.fromOK, p.fromState, p.fromPos = true, p.state, p.consumed+pos
	}
	for wi, w := range watch {
		f := p.prog.Fields[w.Field]
		d := f.Open
		if w.Kind == Close {
			d = f.Close
		}
		var start, end int
		var re *Regex
		var caps []int
		if d.Regex == nil {
			start, end = d.find(buf, pos)
			if start < 0 {
				if !eos {
					if at := d.partialStart(buf, pos); at >= 0 && at < hold {
						hold = at
					}
				}
				continue
			}
			if !eos && end == size && d.GrowsAtEdge {
				if start < hold {
					hold = start
				}
				continue
			}
		} else {
			at := pos
			if !eos && p.from[wi]-p.consumed > at {
				at = p.from[wi] - p.consumed
			}
			var sp span
			if d.Hint != nil {
				sp = d.Regex.searchHinted(&p.scratch, d.Hint, buf, at, !eos)
			} else {
				sp = d.Regex.search(&p.scratch, buf, at, !eos)
			}
			if !eos {
				switch {
				case !sp.ok:
					p.from[wi] = p.consumed + size
				case sp.partial:
					p.from[wi] = p.consumed + sp.start
				default:
					p.from[wi] = -1
				}
			}
			if !sp.ok {
				continue
			}
			start, end = sp.start, sp.end
			if !eos && (sp.partial || end == size) {
				if start < hold {
					hold = start
				}
				continue
			}
			re = d.Regex
			caps = sp.caps
		}
		if have {
			if start > best.start {
				continue
			}
			if start == best.start {
				length, bestLength := end-start, best.end-best.start
				if length < bestLength {
					continue
				}
				if length == bestLength {
					if w.Kind > best.kind {
						continue
					}
					if w.Kind == best.kind && f.Name >= p.prog.Fields[best.field].Name {
						continue
					}
				}
			}
		}
		best, have = found{w.Kind, w.Field, start, end, re, caps}, true
	}
	return best, have && best.start < hold, hold
}

func (p *Parser) process(events *[]Event, eos bool) error {
	for {
		p.joinBefore()
		best, ok, hold := p.scan(p.prog.watch[p.state+1], eos)
		if ok {
			if best.start > p.pos {
				p.route(events, p.buf[p.pos:best.start])
			}
			p.pos = best.end
			if best.kind == Open {
				if err := p.close(events); err != nil {
					return err
				}
				p.open(events, best.field, best.re, best.caps)
			} else {
				hadText := p.opened
				if err := p.close(events); err != nil {
					return err
				}
				if !hadText && best.start == best.end {
					break
				}
			}
			continue
		}
		if eos {
			if p.pos < len(p.buf) {
				p.route(events, p.buf[p.pos:])
				p.pos = len(p.buf)
			}
			return p.close(events)
		}
		if hold > p.pos {
			p.route(events, p.buf[p.pos:hold])
			p.pos = hold
		}
		break
	}
	return nil
}

func (p *Parser) route(events *[]Event, text string) {
	if p.current < 0 || text == "" {
		return
	}
	f := p.prog.Fields[p.current]
	if !p.opened {
		addEvent(events, &f.openHead, "")
		p.opened = true
	}
	p.appendBody(text)
	addEvent(events, &f.chunkHead, text)
}

// appendBody adds text to the open region's body (doubling its store when
// full: growing by a quarter, as append does for a long slice, is five
// times the copying and twice the allocation of a prose region).
func (p *Parser) appendBody(text string) { p.body.WriteString(text) }

func (p *Parser) enterImplicit() {
	p.current = p.prog.Implicit
	p.state = -1
}

func (p *Parser) open(events *[]Event, index int, re *Regex, caps []int) {
	f := p.prog.Fields[index]
	p.current = index
	p.state = index
	p.captures = nil
	if caps != nil {
		p.captures = (&Match{caps: caps, re: re, text: p.buf}).Captures()
	}
	p.body.Reset()
	p.body.Grow(128) // one allocation for a short body (a tool call) instead of several
	p.opened = true
	addEvent(events, &f.openHead, "")
}

// valueOf parses a closed region's body and applies the transform.
func (p *Parser) valueOf(f *Field, body string) (any, error) {
	value, err := p.prog.ParseContent(body, f.Content, f.args)
	if err != nil || f.Transform == nil {
		return value, err
	}
	if !f.TransformEach {
		return f.Transform.apply(&scope{captures: p.captures, content: value})
	}
	list, ok := value.([]any)
	if !ok {
		return nil, Errorf("ValueError", "Field '%s': transform_each requires the parsed content to be a list, got %s.", f.Name, TypeName(value))
	}
	out := make([]any, 0, len(list))
	for _, item := range list {
		obj, ok := item.(*Object)
		if !ok {
			return nil, Errorf("ValueError", "Field '%s': transform_each requires each list element to be a dict, got %s.", f.Name, TypeName(item))
		}
		v, err := f.Transform.apply(&scope{captures: p.captures, item: obj, each: true})
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (p *Parser) close(events *[]Event) error {
	if p.current >= 0 && p.opened {
		f := p.prog.Fields[p.current]
		value, err := p.valueOf(f, p.body.String())
		if err != nil {
			return err
		}
		if len(p.params) > 0 {
			value = typeToolCalls(value, p.params)
		}
		out := p.output
		previous, has := out.Get(f.Name)
		switch {
		case f.Join != nil:
			s, ok := value.(string)
			if !ok {
				return Errorf("ValueError", "Field '%s': 'join' requires each match to parse to a string, got %s.", f.Name, TypeName(value))
			}
			if !has || previous == nil {
				out.Set(f.Name, s)
			} else if prev, ok := previous.(string); ok {
				out.Set(f.Name, prev+*f.Join+s)
			} else {
				return Errorf("TypeError", "can only concatenate str (not \"%s\") to str", TypeName(previous))
			}
		case f.Repeats:
			if !has {
				out.Set(f.Name, []any{value})
			} else if list, ok := previous.([]any); ok {
				out.Set(f.Name, append(list, value))
			} else {
				return Errorf("AttributeError", "'%s' object has no attribute 'append'", TypeName(previous))
			}
		default:
			out.Set(f.Name, value)
		}
		addEvent(events, &eventHead{kind: RegionClose, field: f.Name, value: value}, "")
	}
	p.enterImplicit()
	p.captures = nil
	p.body.Reset()
	p.opened = false
	return nil
}

// Str is a pointer to a string (an optional string in a Program's tables).
func Str(s string) *string { return &s }
