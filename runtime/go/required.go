package rt

import "unicode/utf8"

// Required says how the `regex` module's search attempts a pattern with a
// required string that a bounded lazy repeat may come before: such a
// repeat may report a partial match without reading the end of the text,
// so which positions the module attempts decides the answer
// (compiler/regex/required_partial.py).
type Required struct {
	String string   // the string (when Fold is nil)
	Fold   [][]rune // ignoring case: the cases of each of its characters
	Offset int      // the widest text before it, in characters
	// Starts: search_start's test at the position (nil: it stops
	// everywhere); Ahead: the next node's test it also reads, per
	// character (nil: none), AheadAt characters after the position.
	Starts   []rune
	Ahead    [][]rune
	AheadAt  int
	MinWidth int // the pattern's minimum width: the complete pass does not start where less is left
}

// searchRequired is the module's partial pass when no complete match
// exists. Before each attempt it locates the string (locate_required_string):
// at or after the position once that passes where the string was last
// found, failing a complete occurrence a start of it that runs into the end
// (or the end); the attempt starts no earlier than that less the offset.
// The complete pass before it leaves where it last found the string.
func (re *Regex) searchRequired(m *machine, text string, pos int) span {
	req := re.Required
	found := re.requiredAfterCompletePass(text, pos)
	m.partial = true
	for p := pos; p <= len(text); {
		if p >= found {
			at := found
			if at < 0 || p > at {
				at = tailFrom(text, p, req.String, req.Fold)
				if at >= 0 {
					found = at
				} else {
					at = req.runsOut(text, p)
				}
			}
			p = max(p, stepBack(text, at, req.Offset))
		}
		if p = req.nextStart(text, p, true); p < -1 {
			return m.partialAt(-2 - p)
		} else if p < 0 {
			break
		}
		m.resetCaps()
		m.hit = false
		m.start = p
		m.run(re.Root, p, false, m.accept)
		if m.hit {
			return m.partialAt(p)
		}
		if p >= len(text) {
			break
		}
		next := re.afterFailure(text, p)
		if next > len(text) {
			return m.partialAt(p)
		}
		p = next
	}
	return span{}
}

// requiredAfterCompletePass: where the module's complete pass last found
// the required string (-1: nowhere; it does not start when less than the
// minimum width is left), its attempts all failing.
func (re *Regex) requiredAfterCompletePass(text string, pos int) int {
	req := re.Required
	found := -1
	if !hasChars(text, pos, req.MinWidth) {
		return found
	}
	for p := pos; p < len(text); {
		if p >= found {
			if found < 0 || p > found {
				at := tailFrom(text, p, req.String, req.Fold)
				if at < 0 {
					break
				}
				found = at
			}
			p = max(p, stepBack(text, found, req.Offset))
		}
		if p = req.nextStart(text, p, false); p < 0 || p >= len(text) {
			break
		}
		p = re.afterFailure(text, p)
	}
	return found
}

// afterFailure: where the module attempts next after a failed attempt at p
// (< len(text)): past a run of LazyLead characters (see Regex), or one
// character on; past the end (len(text)+1) when that run reaches the end.
func (re *Regex) afterFailure(text string, p int) int {
	if re.LazyLead != nil {
		end, count := p, 0
		for end < len(text) && (re.LazyMax < 0 || count < re.LazyMax) {
			r, w := utf8.DecodeRuneInString(text[end:])
			if !inSet(re.LazyLead, r) {
				break
			}
			end, count = end+w, count+1
		}
		if re.LazyMax < 0 || count < re.LazyMax {
			if end >= len(text) {
				return len(text) + 1
			}
			p = end
		}
	}
	_, w := utf8.DecodeRuneInString(text[p:])
	return p + w
}

// nextStart: the first position at or after p the module's search_start
// stops at, or -1; in the partial pass, -2 - q when its look at the next
// node runs into the end from q (a partial match at q).
func (req *Required) nextStart(text string, p int, partial bool) int {
	if req.Starts == nil {
		return p
	}
	for {
		for p < len(text) {
			r, w := utf8.DecodeRuneInString(text[p:])
			if inSet(req.Starts, r) {
				break
			}
			p += w
		}
		if p >= len(text) {
			return -1
		}
		if req.Ahead == nil {
			return p
		}
		j := p
		if req.AheadAt == 1 {
			j += runeWidth(text, p)
		}
		k := 0
		for k < len(req.Ahead) && j < len(text) {
			r, w := utf8.DecodeRuneInString(text[j:])
			if !inSet(req.Ahead[k], r) {
				break
			}
			j, k = j+w, k+1
		}
		if k == len(req.Ahead) {
			return p
		}
		if j >= len(text) && partial {
			return -2 - p
		}
		p += runeWidth(text, p)
	}
}

// runsOut: where the module's partial search for the string, which has no
// complete occurrence at or after from, stops: the first start of it that
// runs into the end of the text, else the end. A string of five or more
// characters is looked for from its length less one before the end (the
// module's fast search), which may be before from.
func (req *Required) runsOut(text string, from int) int {
	size := len(req.Fold)
	if req.Fold == nil {
		size = utf8.RuneCountInString(req.String)
	}
	q := from
	if size >= 5 {
		q = stepBack(text, len(text), size-1)
	}
	for ; q < len(text); q += runeWidth(text, q) {
		j, k := q, 0
		for k < size && j < len(text) {
			r, w := utf8.DecodeRuneInString(text[j:])
			if !req.same(k, r) {
				break
			}
			j, k = j+w, k+1
		}
		if j >= len(text) && k < size {
			return q
		}
	}
	return len(text)
}

// same: whether r is the string's k-th character (or one of its cases).
func (req *Required) same(k int, r rune) bool {
	if req.Fold != nil {
		return inSet(req.Fold[k], r)
	}
	for _, c := range req.String {
		if k == 0 {
			return c == r
		}
		k--
	}
	return false
}

// stepBack: the position count characters before i (not before 0).
func stepBack(text string, i, count int) int {
	for ; count > 0 && i > 0; count-- {
		_, w := utf8.DecodeLastRuneInString(text[:i])
		i -= w
	}
	return i
}

// hasChars: whether at least count characters follow i.
func hasChars(text string, i, count int) bool {
	for ; count > 0; count-- {
		if i >= len(text) {
			return false
		}
		i += runeWidth(text, i)
	}
	return true
}

func runeWidth(text string, i int) int {
	_, w := utf8.DecodeRuneInString(text[i:])
	return w
}
