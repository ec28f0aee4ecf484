package rt

import (
	"strconv"
	"strings"
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
	// The recovery mode's (recover.go): the span, an explicit open's
	// captures, a malformed region's error.
	spans, hasCaptures bool
	start, end         int
	captures           []Capture
	err                error
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
// than text, int, float or bool is parsed at the close) [event.chunk-clean,
// event.chunk-dirty].
func (e Event) Dirty() bool { return e.head != nil && e.head.dirty }

// Value is a region_close's parsed value (nil for the other types).
func (e Event) Value() any {
	if e.head == nil {
		return nil
	}
	return e.head.value
}

// Span is the recovery mode's start and end of an open, close or malformed
// event: the delimiter's span in the parser's InputText, in characters
// (Python string indices; empty for implicit boundaries). ok is false for a
// chunk and in the default mode.
func (e Event) Span() (start, end int, ok bool) {
	if e.head == nil || !e.head.spans {
		return 0, 0, false
	}
	return e.head.start, e.head.end, true
}

// Captures are the recovery mode's named groups of an explicit open (ok
// false for other events and in the default mode).
func (e Event) Captures() (captures []Capture, ok bool) {
	if e.head == nil || !e.head.hasCaptures {
		return nil, false
	}
	return e.head.captures, true
}

// Err is a RegionMalformed event's error (its PythonType is the class the
// interpreter raised); nil for the other types.
func (e Event) Err() error {
	if e.head == nil {
		return nil
	}
	return e.head.err
}

// EventType is an event's "type": RegionOpen, RegionChunk, RegionClose or
// (recovery mode) RegionMalformed; String gives the reference's name.
type EventType uint8

// The event types.
const (
	RegionOpen EventType = iota + 1
	RegionChunk
	RegionClose
	RegionMalformed
)

var eventTypeNames = [...]string{
	RegionOpen: "region_open", RegionChunk: "region_chunk", RegionClose: "region_close", RegionMalformed: "region_malformed",
}

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

// noEvents is a step's empty result.
func (p *Parser) noEvents(dst []Event) []Event {
	if p.appending {
		return dst
	}
	return []Event{}
}
