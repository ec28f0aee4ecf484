package rt

import (
	"strings"
	"unicode/utf8"
)

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
	rec       *recovery // the recovery mode's state (nil: the default mode; see recover.go)
	malformed string    // WithMalformed's mode
}

// NewParser starts a parser; prefix is the prompt text sent to the model
// ("" opts out): text after its last start anchor is processed first and
// gives InitialEvents.
// [prefix.empty, prefix.one-anchor, prefix.no-anchor, prefix.nothing-after-anchor,
// prefix.events, prefix.held-back, error.at-init]
func NewParser(prog *Program, prefix string, opts ...Option) (*Parser, error) {
	p := &Parser{prog: prog}
	for _, opt := range opts {
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	if p.malformed != "" && p.rec == nil {
		return nil, Errorf("ValueError", "malformed= applies only with recover=True")
	}
	p.output = DeepCopy(prog.defaults).(*Object) // [template.defaults]
	p.enterImplicit()
	p.initial = []Event{}
	if p.rec != nil {
		if err := p.startRecovering(prefix); err != nil {
			return nil, err
		}
		return p, nil
	}
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

// Feed adds generated text and returns the events it completes; "" is
// legal and processes the buffer again [feed.empty-chunk, chunking.per-character,
// error.at-feed].
func (p *Parser) Feed(text string) ([]Event, error) { return p.feed(nil, text) }

// feed is Feed, or AppendFeed's step onto dst when p.appending.
func (p *Parser) feed(dst []Event, text string) ([]Event, error) {
	if p.finalized {
		return nil, Errorf("RuntimeError", "ResponseParser already finalized")
	}
	if p.rec != nil {
		return p.recFeed(dst, text)
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
