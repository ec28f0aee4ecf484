package rt

import (
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"
)

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
//
// [hold.partial-literal, hold.partial-pattern, hold.pattern-at-edge,
// hold.literal-can-extend, hold.zero-width-at-edge, commit.literal-at-edge,
// commit.at-eos, hold.blocks-commit, tie.longest, tie.open-before-close,
// tie.field-name, delim.zero-width-match]
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
			if !eos && end == size && d.GrowsAtEdge { // [hold.literal-can-extend, commit.literal-at-edge]
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
			if !eos && (sp.partial || end == size) { // [hold.partial-pattern, hold.pattern-at-edge, hold.zero-width-at-edge]
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
				if length < bestLength { // [tie.longest]
					continue
				}
				if length == bestLength {
					if w.Kind > best.kind { // [tie.open-before-close]
						continue
					}
					if w.Kind == best.kind && f.Name >= p.prog.Fields[best.field].Name { // [tie.field-name]
						continue
					}
				}
			}
		}
		best, have = found{w.Kind, w.Field, start, end, re, caps}, true
	}
	return best, have && best.start < hold, hold // [hold.blocks-commit]
}
