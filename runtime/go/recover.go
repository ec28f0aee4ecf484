package rt

import "unicode/utf8"

// Recovery mode (WithRecover): the streaming machine of vLLM 0.33's vendored
// interpreter (vllm/parser/chat_parsing/), as runtime/recover.py does for
// Python (docs/recovery.md). A region whose value fails to parse (a
// KeyError, TypeError or ValueError) ends with a RegionMalformed event
// carrying the error, and parsing goes on; open, close and malformed events
// carry Start/End (the delimiter's span in InputText, in characters, as
// Python indexes a string), an explicit open its named Captures; prefix
// text held back as a possible delimiter is not repeated in a chunk; a
// malformed required field is not reported missing. The buffer is kept
// whole (no trim, no fast path): every step is the plain search.

// MalformedModes are what a malformed region leaves in the message: nothing
// ("drop"), or its raw text stored into the content field ("content").
var MalformedModes = []string{"drop", "content"}

// WithRecover turns on the recovery mode.
func WithRecover() Option {
	return func(p *Parser) error {
		if p.rec == nil {
			p.rec = &recovery{content: -1}
		}
		return nil
	}
}

// WithMalformed chooses what a malformed region leaves in the message
// ("drop" or "content"); it needs WithRecover.
func WithMalformed(mode string) Option {
	return func(p *Parser) error {
		if mode != "drop" && mode != "content" {
			return Errorf("ValueError", "malformed must be one of ['drop', 'content'], got '%s'", mode)
		}
		p.malformed = mode
		return nil
	}
}

// recovery is the recovery mode's own state (the rest is the Parser's).
type recovery struct {
	content   int // the field malformed "content" stores into (-1: drop)
	prefixLen int // bytes of the processed prefix
	openStart int // byte offset of the current region's open delimiter
	bad       map[string]bool
	cpByte    int // a byte offset of buf and its character count (offsets only grow)
	cpCount   int
}

// startRecovering finishes NewParser in the recovery mode.
func (p *Parser) startRecovering(prefix string) error {
	r := p.rec
	r.bad = map[string]bool{}
	if p.malformed == "content" {
		r.content = p.prog.Implicit
		for i, f := range p.prog.Fields {
			if f.Name == "content" {
				r.content = i
			}
		}
		if r.content < 0 {
			return Errorf("ValueError", "malformed=\"content\" needs a field named \"content\" or an implicit field")
		}
	}
	if prefix != "" {
		text := prefix
		if end := lastAnchorEnd(p.prog.StartAnchor, prefix); end >= 0 {
			text = prefix[end:]
		}
		if text != "" {
			p.buf = text
			if err := p.recProcess(&p.initial, false); err != nil {
				return err
			}
			r.prefixLen = len(text)
		}
	}
	return nil
}

// InputText is the recovery mode's input after start-anchor truncation,
// which the events' offsets index (in characters); "" in the default mode.
func (p *Parser) InputText() string {
	if p.rec == nil {
		return ""
	}
	return p.buf
}

func (p *Parser) recFeed(dst []Event, text string) ([]Event, error) {
	if text != "" {
		p.extend(text) // the append-only store: a feed copies its text, not the buffer
	}
	events := []Event{}
	err := p.recProcess(&events, false)
	if p.appending {
		return append(dst, events...), err
	}
	return events, err
}

// cp is the character offset of byte offset i of buf.
func (p *Parser) cp(i int) int {
	r := p.rec
	if i < r.cpByte {
		r.cpByte, r.cpCount = 0, 0
	}
	r.cpCount += utf8.RuneCountInString(p.buf[r.cpByte:i])
	r.cpByte = i
	return r.cpCount
}

func (p *Parser) recProcess(events *[]Event, eos bool) error {
	for {
		best, ok, hold := p.scanText(p.prog.watch[p.state+1], eos)
		if ok {
			if best.start > p.pos {
				p.recRoute(events, p.buf[p.pos:best.start])
			}
			p.pos = best.end
			if best.kind == Open {
				if err := p.recClose(events, best.start, best.start); err != nil {
					return err
				}
				p.recOpen(events, best)
			} else {
				hadText := p.opened
				if err := p.recClose(events, best.start, best.end); err != nil {
					return err
				}
				if !hadText && best.start == best.end {
					break // a zero-width close of an empty region would fire forever
				}
			}
			continue
		}
		if eos {
			if p.pos < len(p.buf) {
				p.recRoute(events, p.buf[p.pos:])
				p.pos = len(p.buf)
			}
			return p.recClose(events, p.pos, p.pos)
		}
		if hold > p.pos {
			p.recRoute(events, p.buf[p.pos:hold])
			p.pos = hold
		}
		break
	}
	return nil
}

func (p *Parser) recRoute(events *[]Event, text string) {
	if p.current < 0 || text == "" {
		return
	}
	f := p.prog.Fields[p.current]
	if !p.opened {
		at := p.cp(p.pos)
		*events = append(*events, Event{head: &eventHead{kind: RegionOpen, field: f.Name, spans: true, start: at, end: at}})
		p.opened = true
		p.rec.openStart = p.pos
	}
	p.appendBody(text)
	// Prefix text held back as a possible delimiter belongs to the prompt, not the chunk.
	if skip := p.rec.prefixLen - p.pos; skip > 0 {
		if skip > len(text) {
			skip = len(text)
		}
		text = text[skip:]
	}
	if text != "" {
		*events = append(*events, Event{text: text, head: &f.chunkHead})
	}
}

func (p *Parser) recOpen(events *[]Event, best found) {
	f := p.prog.Fields[best.field]
	p.current = best.field
	p.state = best.field
	p.captures = nil
	if best.caps != nil {
		p.captures = (&Match{caps: best.caps, re: best.re, text: p.buf}).Captures()
	}
	p.body.Reset()
	p.opened = true
	p.rec.openStart = best.start
	head := &eventHead{kind: RegionOpen, field: f.Name, spans: true, start: p.cp(best.start), end: p.cp(best.end)}
	head.captures, head.hasCaptures = append([]Capture{}, p.captures...), true
	*events = append(*events, Event{head: head})
}

// recovered: the Python classes vLLM's interpreter turns into region_malformed.
func recovered(err error) bool {
	switch PythonType(err) {
	case "KeyError", "TypeError", "ValueError":
		return true
	}
	return false
}

func (p *Parser) recClose(events *[]Event, start, end int) error {
	if p.current >= 0 && p.opened {
		f := p.prog.Fields[p.current]
		value, err := p.valueOf(f, p.body.String())
		if err == nil && len(p.params) > 0 {
			value = typeToolCalls(value, p.params)
		}
		if _, isString := value.(string); err == nil && f.Join != nil && !isString {
			err = Errorf("ValueError", "Field '%s': 'join' requires each match to parse to a string, got %s.", f.Name, TypeName(value))
		}
		if err != nil && !recovered(err) {
			return err
		}
		head := &eventHead{kind: RegionClose, field: f.Name, spans: true, start: p.cp(start), end: p.cp(end), value: value}
		if err != nil {
			head.kind, head.value, head.err = RegionMalformed, nil, err
			p.rec.bad[f.Name] = true
			*events = append(*events, Event{head: head})
			if p.rec.content >= 0 {
				if err := p.storeRaw(p.buf[p.rec.openStart:end]); err != nil {
					return err
				}
			}
		} else {
			if err := p.storeValue(f, value); err != nil {
				return err
			}
			*events = append(*events, Event{head: head})
		}
	}
	p.enterImplicit()
	p.captures = nil
	p.body.Reset()
	p.opened = false
	return nil
}

// storeRaw: malformed "content" stores the raw text as one more match of the content field.
func (p *Parser) storeRaw(raw string) error {
	f := p.prog.Fields[p.rec.content]
	text := raw
	if f.Content == "text" && Truthy(argOr(f.args, "strip", true)) {
		text = Strip(text)
	}
	if text == "" {
		return nil
	}
	return p.storeValue(f, text)
}
