package rt

import "unsafe"

// appendOnly is a strings.Builder without the pointer store of every
// write: WriteString re-slices the byte slice in place when it has room
// (the compiler then stores only the length), where Builder assigns the
// whole slice header, and a pointer stored into the heap while the
// collector marks goes through its write barrier. The region body and the
// buffer's store take one write per token.
//
// As with a Builder, bytes once written are never written again (growing
// copies into a new array; Reset drops the array), so every string String
// returns, and every string cut from one, stays valid.
type appendOnly struct{ b []byte }

func (a *appendOnly) Len() int { return len(a.b) }

func (a *appendOnly) Cap() int { return cap(a.b) }

// String is the text written since the last Reset (no copy).
func (a *appendOnly) String() string { return unsafe.String(unsafe.SliceData(a.b), len(a.b)) }

// Reset empties the store; the next write starts a new array.
func (a *appendOnly) Reset() { a.b = nil }

// Grow makes room for n more bytes: a new array of twice the capacity
// plus n when there is less room.
func (a *appendOnly) Grow(n int) {
	if cap(a.b)-len(a.b) < n {
		b := make([]byte, len(a.b), 2*cap(a.b)+n)
		copy(b, a.b)
		a.b = b
	}
}

// WriteString appends s, doubling the capacity when it lacks room.
func (a *appendOnly) WriteString(s string) {
	n := len(a.b)
	if cap(a.b)-n < len(s) {
		a.Grow(len(s))
	}
	a.b = a.b[:n+len(s)]
	copy(a.b[n:], s)
}

// scratchText is reusable text: Reset keeps the array, so the next writes
// overwrite it. Only for text read or copied before the next Reset (the
// held pieces: joined onto the buffer or the body by a copy); String's
// result must not be kept.
type scratchText struct{ b []byte }

func (s *scratchText) Len() int { return len(s.b) }

// String is a view of the text (valid until the next Reset).
func (s *scratchText) String() string { return unsafe.String(unsafe.SliceData(s.b), len(s.b)) }

func (s *scratchText) Reset() { s.b = s.b[:0] }

func (s *scratchText) WriteString(text string) {
	n := len(s.b)
	if cap(s.b)-n < len(text) {
		b := make([]byte, n, 2*cap(s.b)+len(text))
		copy(b, s.b)
		s.b = b
	}
	s.b = s.b[:n+len(text)]
	copy(s.b[n:], text)
}
