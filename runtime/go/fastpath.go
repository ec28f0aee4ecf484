package rt

import (
	"strings"
	"unicode/utf8"
)

// holdRun is a class W for a state without a hold lead such that, while the
// held text is all W, more W text changes nothing: one watched delimiter is
// a greedy unbounded W repeat then something that must read a non-W
// character (its partial match stays at the held run's start), and no
// watched delimiter can match inside W text (each must read a non-W
// character after its own optional W lead). Newline or space runs then cost
// nothing per token instead of a search over the whole held run. Planned by
// the compiler (Program.HoldRuns; compiler/passes/state_plan.py).
type holdRun struct {
	set   []rune
	ascii [2]uint64
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
