package rt

import "strings"

// Finalize ends the generation: the message and the last events
// [process.eos, finalize.flush-held, finalize.closes-open-region, error.at-finalize].
func (p *Parser) Finalize() (Message, []Event, error) {
	if p.finalized {
		return nil, nil, Errorf("RuntimeError", "ResponseParser already finalized")
	}
	events := []Event{}
	var malformed map[string]bool // recovery mode: fields a malformed region of which is not missing
	if p.rec != nil {
		if err := p.recProcess(&events, true); err != nil {
			return nil, events, err
		}
		malformed = p.rec.bad
	} else {
		p.materialize()
		p.joinPieces()
		if err := p.process(&events, true); err != nil {
			return nil, events, err
		}
	}
	var missing []string
	for _, f := range p.prog.Fields {
		if !f.Optional && !p.output.Has(f.Name) && !malformed[f.Name] {
			missing = append(missing, "'"+f.Name+"'")
		}
	}
	if missing != nil { // [field.optional-false, field.optional-false.present, error.finalize.required-missing]
		return nil, events, Errorf("ValueError", "Required response_template fields missing from parsed output: [%s]", strings.Join(missing, ", "))
	}
	out := NewObject()
	for _, key := range p.output.Keys() {
		value, _ := p.output.Get(key)
		// Defaults first, then fields as first stored; empty values dropped unless
		// defaults hold the key [finalize.defaults-kept-when-empty, finalize.key-order,
		// content.text.empty]
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
				if !hadText && best.start == best.end { // [close.zero-width-empty-stops]
					break
				}
			}
			continue
		}
		if eos { // [finalize.flush-held, delim.no-close]
			if p.pos < len(p.buf) {
				p.route(events, p.buf[p.pos:])
				p.pos = len(p.buf)
			}
			return p.close(events)
		}
		if hold > p.pos { // text from the hold position on waits [hold.text-held]
			p.route(events, p.buf[p.pos:hold])
			p.pos = hold
		}
		break
	}
	return nil
}

// route: text outside regions without an implicit field is dropped; the
// implicit region opens with its first text [null-sink.discard,
// field.no-implicit, implicit.lazy-open].
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
	// The open match's named groups that took part; a close's never reach the
	// scope [capture.named-groups, capture.unmatched-group-dropped,
	// capture.close-groups-not-in-scope]
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
	if !f.TransformEach { // [transform]
		return f.Transform.apply(&scope{captures: p.captures, content: value})
	}
	// [transform_each]
	list, ok := value.([]any)
	if !ok { // [error.transform_each.not-list]
		return nil, Errorf("ValueError", "Field '%s': transform_each requires the parsed content to be a list, got %s.", f.Name, TypeName(value))
	}
	out := make([]any, 0, len(list))
	for _, item := range list {
		obj, ok := item.(*Object)
		if !ok { // [error.transform_each.item-not-dict]
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

// close stores a region that opened (one that never did stores nothing)
// [close.never-opened-skipped, implicit.closed, implicit.closed-by-open, value.empty].
func (p *Parser) close(events *[]Event) error {
	if p.current >= 0 && p.opened {
		f := p.prog.Fields[p.current]
		value, err := p.valueOf(f, p.body.String())
		if err != nil {
			return err
		}
		if len(p.params) > 0 { // [typing.tools.empty-list]
			value = typeToolCalls(value, p.params)
		}
		if err := p.storeValue(f, value); err != nil {
			return err
		}
		addEvent(events, &eventHead{kind: RegionClose, field: f.Name, value: value}, "")
	}
	p.enterImplicit()
	p.captures = nil
	p.body.Reset()
	p.opened = false
	return nil
}

// storeValue adds one region's value to the output: joined, appended or set
// [join.first, join.append, join.empty-match, repeats.append, store.set,
// store.overwrite, store.replaces-default].
func (p *Parser) storeValue(f *Field, value any) error {
	out := p.output
	previous, has := out.Get(f.Name)
	switch {
	case f.Join != nil:
		s, ok := value.(string)
		if !ok { // [error.join.non-string]
			return Errorf("ValueError", "Field '%s': 'join' requires each match to parse to a string, got %s.", f.Name, TypeName(value))
		}
		if !has || previous == nil { // [join.first]
			out.Set(f.Name, s)
		} else if prev, ok := previous.(string); ok { // [join.append, join.empty-match]
			out.Set(f.Name, prev+*f.Join+s)
		} else {
			return Errorf("TypeError", "can only concatenate str (not \"%s\") to str", TypeName(previous))
		}
	case f.Repeats: // [repeats.append]
		if !has {
			out.Set(f.Name, []any{value})
		} else if list, ok := previous.([]any); ok {
			out.Set(f.Name, append(list, value))
		} else {
			return Errorf("AttributeError", "'%s' object has no attribute 'append'", TypeName(previous))
		}
	default: // [store.set, store.overwrite, store.replaces-default]
		out.Set(f.Name, value)
	}
	return nil
}
